/**
 * The cost of the faces (issue 3 item 11): the same repository read (getEpic) served
 *   (a) by a bare Hono route,
 *   (b) as tools/call get_epic on POST /api/v1/mcp,
 *   (c) as tools/call get_epic on /mcp (protocol/streamable-http.ts: no SDK server or transport per request),
 * all three behind the same app middleware (request id, body limit, Origin/Host check, token auth), over
 * real HTTP (@hono/node-server in a child process, so the load generator does not share its event loop).
 * The faces queue their read's audit row in the production sink; the bare route is bare, as issue 16 defines
 * the baseline (batching the faces' audit is one of the levers it names), unless BENCH_BARE_AUDIT=on gives it
 * the same row (a comparison of the faces' own overhead alone). All share the production token cache
 * (src/http/token-cache.ts; BENCH_TOKEN_CACHE=off looks every token up). No rate limiter in any of them.
 * Targets (issue 16): (b) ≥ 0.85 × (a), (c) ≥ 0.75 × (a) at every concurrency, by req/s and by server CPU
 * per request.
 *
 *   npx tsx bench/faces-read.ts [--seconds 4] [--rounds 3] [--concurrency 1,10,50] [--cpu-prof dir]
 *     [--scenarios a,b,c]   (one scenario with --cpu-prof: the profile of that path alone; no ratios)
 *     [--bundled]           (the server from a bundle built as `npm start`'s, instead of under tsx)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { median, numberArg, percentile } from "./lib.js";

const args = process.argv.slice(2);

// ----- server side (child process) -------------------------------------------------------------------

async function serveChild(): Promise<void> {
  const { serve } = await import("@hono/node-server");
  const { createApp } = await import("../src/app.js");
  const { bootstrap } = await import("../src/db/bootstrap.js");
  const { openDatabase } = await import("../src/db/client.js");
  const { getEpic } = await import("../src/db/epics.repo.js");
  const { migrateDatabase } = await import("../src/db/migrate.js");
  const { createAuditSink } = await import("../src/http/audit.js");
  const { TokenCache } = await import("../src/http/token-cache.js");

  const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-faces-"));
  const database = await openDatabase({ url: `file:${join(dir, "bench.db")}` });
  await migrateDatabase(database);
  const boot = await bootstrap(database);
  if (!boot.created) throw new Error("a fresh database was not bootstrapped");
  const logger = { log() {} }; // logging is not what is measured; it costs the same in all three
  // BENCH_AUDIT=off isolates the cost of the audit trail (not a production setting).
  const audit =
    process.env.BENCH_AUDIT === "off"
      ? { record: async () => {}, flush: async () => {} }
      : createAuditSink({ database, logger });
  // As src/node.ts builds it: with the token cache (BENCH_TOKEN_CACHE=off: every request looks its token up).
  const tokenCache = process.env.BENCH_TOKEN_CACHE === "off" ? undefined : new TokenCache();
  // get_epic and create_epic are in the `backlog` toolset, not the default one: every toolset, as with
  // REQLIX_DEFAULT_TOOLSETS=all (the selection is computed once per scope either way).
  const app = createApp({
    database,
    logger,
    version: "bench",
    audit,
    defaultToolsets: "all",
    ...(tokenCache ? { tokenCache } : {}),
  });
  // (a): the bare route, under the same middleware as the faces (it lives below /api/v1/mcp/*). It writes no
  // audit row: the targets are against a bare route over the same query, and the faces' audit is theirs to
  // make cheap. BENCH_BARE_AUDIT=on queues the same row in the same sink, to see the faces' overhead alone.
  const bareAudit = process.env.BENCH_BARE_AUDIT === "on";
  app.get("/api/v1/mcp/bare/epics/:id", async (c) => {
    const auth = c.get("auth");
    const started = performance.now();
    const epic = await database.read((db) => getEpic(db, auth.workspaceId, c.req.param("id")));
    if (bareAudit) {
      void audit.record({
        workspaceId: auth.workspaceId,
        userId: auth.userId,
        tokenId: auth.tokenId,
        channel: "jsonrpc",
        method: "tools/call",
        target: "get_epic",
        referenceId: epic.reference_id,
        outcome: "ok",
        requestId: c.get("requestId"),
        durationMs: Math.round(performance.now() - started),
      });
    }
    return c.json(epic);
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
  const port = (server.address() as AddressInfo).port;
  // Seed one epic through the JSON-RPC face itself.
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${boot.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "create_epic",
        arguments: { title: "Checkout", description: "Everything about paying." },
      },
    }),
  });
  const created = (await res.json()) as { result: { structuredContent: { reference_id: string } } };
  process.stdout.write(
    `${JSON.stringify({ port, token: boot.token, epic: created.result.structuredContent.reference_id })}\n`,
  );
  // "cpu" on stdin → the server's CPU time so far (µs), so the parent can charge each scenario its share.
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line.trim() === "cpu") {
      const { user, system } = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ cpu: user + system })}\n`);
    }
  });
  process.stdin.on("end", async () => {
    server.close();
    await audit.flush();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

// ----- load side (parent) ----------------------------------------------------------------------------

interface Scenario {
  key: "a" | "b" | "c";
  label: string;
  request(): { url: string; init: RequestInit };
  check(status: number, body: string): boolean;
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU time per request (µs): what bounds throughput on a quiet machine. */
  cpuPerReq: number;
}

// node:http with keep-alive instead of fetch: the load generator shares two cores with the server, and
// undici's fetch costs the client several times more per POST than per GET, which skewed the ratios.
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(url: string, init: RequestInit): Promise<{ status: number; body: string }> {
  return new Promise((resolveSend, reject) => {
    const body = typeof init.body === "string" ? init.body : undefined;
    const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const req = httpRequest(url, { method: init.method ?? "GET", headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolveSend({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function drive(
  s: Scenario,
  seconds: number,
  concurrency: number,
  serverCpu: () => Promise<number>,
): Promise<Sample> {
  const cpu0 = await serverCpu();
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const { url, init } = s.request();
      const t0 = performance.now();
      const res = await send(url, init);
      latencies.push(performance.now() - t0);
      if (!s.check(res.status, res.body)) errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpuPerReq = ((await serverCpu()) - cpu0) / latencies.length;
  latencies.sort((x, y) => x - y);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    cpuPerReq,
  };
}

/** This file as the production server bundle is built (two folders down, so `../../drizzle` resolves). */
async function bundleChild(): Promise<string> {
  const { build } = await import("esbuild");
  // @ts-expect-error: a plain .mjs build script without type declarations
  const { slimStartup } = await import("../scripts/build-local.mjs");
  const outfile = resolve(import.meta.dirname, "..", "dist", "bench", "faces-read-server.mjs");
  await build({
    entryPoints: [import.meta.filename],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: process.env.BENCH_PROFILE_NAMES !== "on",
    legalComments: "none",
    external: ["libsql", "esbuild"],
    logLevel: "warning",
    plugins: [slimStartup],
    define: { __REQLIX_VERSION__: JSON.stringify("bench") },
    banner: {
      js: "import { createRequire as __reqlixCreateRequire } from 'node:module'; const require = __reqlixCreateRequire(import.meta.url);",
    },
  });
  return outfile;
}

async function main(): Promise<void> {
  const seconds = numberArg("seconds", 4);
  const rounds = numberArg("rounds", 3);
  const ci = args.indexOf("--concurrency");
  const levels = (ci === -1 ? "1,10,50" : (args[ci + 1] ?? "")).split(",").map(Number);
  if (levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("--concurrency takes e.g. 1,10,50");
  const pi = args.indexOf("--cpu-prof");
  // --cpu-prof <dir>: the server child writes a V8 CPU profile there when it exits (node --cpu-prof).
  const prof = pi === -1 ? [] : ["--cpu-prof", "--cpu-prof-dir", resolve(args[pi + 1] ?? "prof")];
  // --bundled: the server child runs from one esbuild bundle made as `npm start`'s (scripts/build-server.mjs:
  // minified, no kept function names), instead of under tsx (which wraps every function it creates to keep
  // its name: a cost per closure that production never pays).
  const bundled = args.includes("--bundled");
  const entry = bundled ? await bundleChild() : import.meta.filename;
  const child: ChildProcess = spawn(
    process.execPath,
    [...prof, ...(bundled ? [] : ["--import", "tsx"]), entry, "--serve"],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((r) => child.once("exit", r));
  const pending: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else pending.push(line);
  });
  const nextLine = () =>
    new Promise<string>((resolveLine, reject) => {
      const ready = pending.shift();
      if (ready !== undefined) return resolveLine(ready);
      waiting.push(resolveLine);
      exited.then((code) => reject(new Error(`server exited with ${code}`)));
    });
  const serverCpu = async () => {
    child.stdin?.write("cpu\n");
    return (JSON.parse(await nextLine()) as { cpu: number }).cpu;
  };
  const first = await nextLine();
  const { port, token, epic } = JSON.parse(first) as { port: number; token: string; epic: string };
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${token}` };
  const call = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_epic", arguments: { epic_id: epic } },
  });
  const hasEpic = (body: string) =>
    body.includes(`"reference_id":"${epic}"`) || body.includes(`\\"reference_id\\": \\"${epic}\\"`);

  const scenarios: Scenario[] = [
    {
      key: "a",
      label: "bare Hono route (GET /api/v1/mcp/bare/epics/:id)",
      request: () => ({ url: `${base}/api/v1/mcp/bare/epics/${epic}`, init: { headers: auth } }),
      check: (status, body) => status === 200 && hasEpic(body),
    },
    {
      key: "b",
      label: "tools/call get_epic on POST /api/v1/mcp",
      request: () => ({
        url: `${base}/api/v1/mcp`,
        init: { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: call },
      }),
      check: (status, body) => status === 200 && hasEpic(body),
    },
    {
      key: "c",
      label: "tools/call get_epic on /mcp (Streamable HTTP)",
      request: () => ({
        url: `${base}/mcp`,
        init: {
          method: "POST",
          headers: {
            ...auth,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
          },
          body: call,
        },
      }),
      check: (status, body) => status === 200 && hasEpic(body),
    },
  ];

  const si = args.indexOf("--scenarios");
  if (si !== -1) {
    const only = (args[si + 1] ?? "").split(",");
    scenarios.splice(0, scenarios.length, ...scenarios.filter((s) => only.includes(s.key)));
    for (const concurrency of levels) {
      for (const s of scenarios) {
        const x = await drive(s, seconds * rounds, concurrency, serverCpu);
        process.stdout.write(
          `c=${concurrency} (${s.key}) ${Math.round(x.rps)} req/s, ${Math.round(x.cpuPerReq)} µs CPU/req\n`,
        );
      }
    }
    child.stdin?.end();
    await exited;
    return;
  }
  const targets = { b: 0.85, c: 0.75 };
  const tables: Table[] = [];
  for (const concurrency of levels) {
    // Warm up every path (JIT, the registry, the database pages), then interleave rounds to share drift.
    for (const s of scenarios) await drive(s, 1, concurrency, serverCpu);
    const samples: Record<string, Sample[]> = { a: [], b: [], c: [] };
    for (let r = 0; r < rounds; r++) {
      for (const s of scenarios)
        (samples[s.key] as Sample[]).push(await drive(s, seconds, concurrency, serverCpu));
    }
    tables.push(summarize(concurrency, scenarios, samples, targets));
  }
  child.stdin?.end();
  await exited;

  const load = loadavg()[0]?.toFixed(1);
  const lines = [
    `# Faces benchmark: the same read through a bare route, /api/v1/mcp and /mcp`,
    "",
    `Node ${process.version}, ${new Date().toISOString()}; ${cpus().length} CPUs, load average ${load} at the end; audit ${process.env.BENCH_AUDIT === "off" ? "OFF (BENCH_AUDIT=off)" : "on"}${process.env.BENCH_BARE_AUDIT === "on" ? " on all three (BENCH_BARE_AUDIT=on: the bare route queues the same row)" : " for the faces (the bare route writes no row)"}; token cache ${process.env.BENCH_TOKEN_CACHE === "off" ? "off" : "on"}; concurrency ${levels.join(", ")}; ${rounds} rounds × ${seconds} s each, interleaved (medians); server in a child process over real HTTP, ${args.includes("--bundled") ? "run from an esbuild bundle made as npm start's (--bundled)" : "run under tsx"}.`,
    "",
    "| c | | path | req/s | p50 ms | p99 ms | ratio to (a) | server CPU µs/req | CPU ratio to (a) | errors |",
    "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ...tables.flatMap((t) =>
      t.rows.map(
        (r) =>
          `| ${t.concurrency} | (${r.key}) | ${r.label} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.ratio_to_a} | ${r.cpu_us_per_req} | ${r.cpu_ratio_to_a} | ${r.errors} |`,
      ),
    ),
    "",
    ...tables.flatMap((t) =>
      t.verdict.map(
        (v) =>
          `- c = ${t.concurrency}, (${v.key}) ≥ ${v.target} × (a): req/s ${v.met ? "met" : "NOT met"} (${v.ratio}); server CPU ${v.cpu_met ? "met" : "NOT met"} (${v.cpu_ratio})`,
      ),
    ),
    "",
    "req/s shares the machine with everything else running; server CPU per request (the child's",
    "process.cpuUsage over each run / requests served) is what bounds one server core's throughput and",
    "moves far less with outside load. The CPU ratio is (a)'s CPU per request over the row's.",
  ];
  const md = `${lines.join("\n")}\n`;
  process.stdout.write(md);
  const out = resolve(import.meta.dirname, "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "faces-read.md"), md);
  writeFileSync(
    join(out, "faces-read.json"),
    `${JSON.stringify({ node: process.version, time: new Date().toISOString(), load_average: load, audit: process.env.BENCH_AUDIT !== "off", rounds, seconds, tables }, null, 2)}\n`,
  );
  if (tables.some((t) => t.rows.some((r) => r.errors > 0))) process.exitCode = 1;
}

interface Table {
  concurrency: number;
  rows: (ReturnType<typeof summaryRow> & { ratio_to_a: number; cpu_ratio_to_a: number })[];
  verdict: {
    key: string;
    target: number;
    ratio: number;
    cpu_ratio: number;
    met: boolean;
    cpu_met: boolean;
  }[];
}

function summaryRow(s: Scenario, list: Sample[]) {
  return {
    key: s.key,
    label: s.label,
    rps: Math.round(median(list.map((x) => x.rps))),
    p50_ms: Number(median(list.map((x) => x.p50)).toFixed(2)),
    p99_ms: Number(median(list.map((x) => x.p99)).toFixed(2)),
    errors: list.reduce((n, x) => n + x.errors, 0),
    cpu_us_per_req: Math.round(median(list.map((x) => x.cpuPerReq))),
  };
}

function summarize(
  concurrency: number,
  scenarios: Scenario[],
  samples: Record<string, Sample[]>,
  targets: { b: number; c: number },
): Table {
  const summary = scenarios.map((s) => summaryRow(s, samples[s.key] as Sample[]));
  const a = summary[0] as (typeof summary)[number];
  const rows = summary.map((s) => ({
    ...s,
    ratio_to_a: Number((s.rps / a.rps).toFixed(3)),
    // Throughput one server core could give, relative to (a): a/b of CPU per request.
    cpu_ratio_to_a: Number((a.cpu_us_per_req / s.cpu_us_per_req).toFixed(3)),
  }));
  const verdict = rows
    .filter((r) => r.key !== "a")
    .map((r) => {
      const target = targets[r.key as "b" | "c"];
      return {
        key: r.key,
        target,
        ratio: r.ratio_to_a,
        cpu_ratio: r.cpu_ratio_to_a,
        met: r.ratio_to_a >= target,
        cpu_met: r.cpu_ratio_to_a >= target,
      };
    });
  return { concurrency, rows, verdict };
}

if (args.includes("--serve")) await serveChild();
else await main();
