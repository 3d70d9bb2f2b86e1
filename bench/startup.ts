/**
 * Issue 16 item 3: `npm start` to healthy. Spawns each server on a free port and times spawn → the first
 * GET /healthz answered 200 (polled every 5 ms), interleaved so the shared machine's drift hits all alike:
 *   (m) a minimal Hono + libSQL server (bench/startup-minimal.mjs, unbundled): the baseline;
 *   (b) what `npm start` runs, `node scripts/start.mjs` (the bundled server, dist/server/node.js), on a
 *       database it migrated before (a restart);
 *   (f) the same on a fresh database (first start: migrations and bootstrap);
 *   (t) the server under tsx, `node --import tsx src/node.ts` (`npm run start:tsx`, what `npm start` was).
 * Plus, once, `npm start` itself (npm's own start-up on top, the same for any package).
 * Goal: (b) and (f) ≤ 2 × (m), medians. Results in bench/results/startup.{md,json}.
 *
 *   npx tsx bench/startup.ts [--rounds 9]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
// @ts-expect-error: a plain .mjs build script without type declarations
import { buildServer, staleReason } from "../scripts/build-server.mjs";
import { median, numberArg } from "./lib.js";

const root = resolve(import.meta.dirname, "..");
const rounds = numberArg("rounds", 9);

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolvePort(port));
    });
  });
}

async function healthy(port: number, child: ChildProcess, started: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode} before it was healthy`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 30_000) throw new Error("not healthy within 30 s");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function timeStart(command: string, args: string[], db: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      REQLIX_DB_URL: `file:${db}`,
      REQLIX_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
    // Its own process group: `npm start` runs the server as a grandchild, which must stop with it.
    detached: true,
  });
  try {
    return await healthy(port, child, started);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-(child.pid as number), "SIGTERM");
    await exited;
  }
}

async function main(): Promise<void> {
  if (staleReason() !== undefined) await buildServer();
  const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-startup-"));
  const node = process.execPath;
  const scenarios = [
    {
      key: "m",
      label: "minimal Hono + libSQL server (baseline)",
      run: (i: number) => timeStart(node, ["bench/startup-minimal.mjs"], join(dir, `m${i}.db`)),
    },
    {
      key: "b",
      label: "`npm start`'s command, bundled server, migrated database",
      run: () => timeStart(node, ["scripts/start.mjs"], join(dir, "restart.db")),
    },
    {
      key: "f",
      label: "`npm start`'s command, bundled server, fresh database",
      run: (i: number) => timeStart(node, ["scripts/start.mjs"], join(dir, `f${i}.db`)),
    },
    {
      key: "t",
      label: "the server under tsx (`npm run start:tsx`)",
      run: () => timeStart(node, ["--import", "tsx", "src/node.ts"], join(dir, "tsx.db")),
    },
  ];
  try {
    // Warm-up: the file cache, and the restart database migrated once.
    for (const s of scenarios) await s.run(-1);
    const samples: Record<string, number[]> = Object.fromEntries(scenarios.map((s) => [s.key, []]));
    for (let i = 0; i < rounds; i++) for (const s of scenarios) samples[s.key]?.push(await s.run(i));
    const npmMs = await timeStart("npm", ["start", "--silent"], join(dir, "npm.db")).catch(() => Number.NaN);
    const m = median(samples.m as number[]);
    const rows = scenarios.map((s) => {
      const med = median(samples[s.key] as number[]);
      return { key: s.key, label: s.label, median_ms: Math.round(med), ratio: Number((med / m).toFixed(2)) };
    });
    const goal = 2;
    const verdict = rows
      .filter((r) => r.key === "b" || r.key === "f")
      .map((r) => `- (${r.key}) ≤ ${goal} × (m): ${r.ratio <= goal ? "met" : "NOT met"} (${r.ratio}×)`);
    const load = loadavg()[0]?.toFixed(1);
    const md = [
      "# Start-up: spawn to the first 200 from /healthz",
      "",
      `Node ${process.version}, ${new Date().toISOString()}; ${cpus().length} CPUs, load average ${load} at the end; ${rounds} interleaved rounds (medians).`,
      "",
      "| | server | median ms | × (m) |",
      "|---|---|---:|---:|",
      ...rows.map((r) => `| (${r.key}) | ${r.label} | ${r.median_ms} | ${r.ratio} |`),
      "",
      ...verdict,
      "",
      `\`npm start\` itself (once, fresh database): ${Math.round(npmMs)} ms — npm's own start-up comes on top of (f).`,
      "",
    ].join("\n");
    process.stdout.write(md);
    const out = resolve(import.meta.dirname, "results");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "startup.md"), md);
    writeFileSync(
      join(out, "startup.json"),
      `${JSON.stringify({ node: process.version, time: new Date().toISOString(), load_average: load, rounds, rows, npm_start_ms: Math.round(npmMs), samples }, null, 2)}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
