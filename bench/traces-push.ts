/**
 * A trace push of 100,000 citations (traceability issue): ≤ 2 s on Node, through the real app over real
 * HTTP (@hono/node-server on a loopback port; auth, body cap, JSON parse, zod validation, id resolution,
 * one write transaction with bulk inserts, pruning, audit). Baseline in the same run: the same rows
 * inserted by a bare loop of prepared INSERTs in one transaction on the same database (no HTTP, no
 * validation). Each run pushes a new commit, so every run stores 100,000 rows.
 *
 *   npx tsx bench/traces-push.ts [--citations 100000] [--runs 5]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { serve } from "@hono/node-server";
import { createApp } from "../src/app.js";
import { bootstrap } from "../src/db/bootstrap.js";
import { openDatabase } from "../src/db/client.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { findWorkspaceBySlug } from "../src/db/workspaces.repo.js";
import { median, numberArg, rng } from "./lib.js";

const CITATIONS = numberArg("citations", 100_000);
const RUNS = numberArg("runs", 5);
const REQUIREMENTS = 200;
const TARGET_MS = 2000;

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-traces-"));
const database = await openDatabase({ url: `file:${join(dir, "bench.db")}` });
await migrateDatabase(database);
const boot = await bootstrap(database);
if (!boot.created) throw new Error("fresh database was not bootstrapped");
const token = boot.token;
const ws = await database.read((db) => findWorkspaceBySlug(db, "default"));
if (!ws) throw new Error("no default workspace");
const app = createApp({ database, logger: { log() {} }, version: "bench" });
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function rpc(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/api/v1/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = (await res.json()) as { result?: { structuredContent: Record<string, unknown> } };
  if (!body.result) throw new Error(`${name}: ${JSON.stringify(body)}`);
  return body.result.structuredContent;
}

// ----- data: requirements to cite, and a realistic snapshot (95% existing ids, 5% orphans) -----------

const epic = (await rpc("create_epic", { title: "bench" })).reference_id as string;
const story = (await rpc("create_user_story", { epic_id: epic, title: "bench" })).reference_id as string;
for (let i = 0; i < REQUIREMENTS; i++) {
  await rpc("create_requirement", { user_story_id: story, title: `r${i}`, type: "Functional", priority: 2 });
}
const random = rng(7);
const KINDS = ["impl", "test", "doc"] as const;
const citations = Array.from({ length: CITATIONS }, (_, i) => {
  const orphan = random() < 0.05;
  const n = orphan ? 10_000 + Math.floor(random() * 500) : 1 + Math.floor(random() * REQUIREMENTS);
  const kind = KINDS[Math.floor(random() * 3)] as (typeof KINDS)[number];
  return {
    id: `REQ-${String(n).padStart(3, "0")}`,
    revision: random() < 0.3 ? 1 : null,
    file: `src/module-${i % 400}/file-${i % 37}.ts`,
    line: 1 + (i % 2000),
    column: 1 + (i % 60),
    kind,
    test_name: kind === "test" ? `module ${i % 400} does thing ${i % 50}` : null,
    snippet: `  // implements REQ-${String(n).padStart(3, "0")}: ${"x".repeat(40 + (i % 60))}`,
  };
});
const snapshot = (commit: string) =>
  JSON.stringify({
    schema: 1,
    repository: "acme/web",
    commit,
    branch: "main",
    scanned_at: new Date().toISOString(),
    citations,
    commits: Array.from({ length: 200 }, (_, i) => ({
      sha: (i + 1).toString(16).padStart(40, "0"),
      ids: [`REQ-${String(1 + (i % REQUIREMENTS)).padStart(3, "0")}`],
      subject: `feat: change ${i}`,
    })),
  });
const bodyBytes = Buffer.byteLength(snapshot("0".repeat(40)));

// ----- measured: the push over HTTP; baseline: prepared INSERTs in one transaction ---------------------

const pushMs: number[] = [];
const pushCpuMs: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const body = snapshot((0xabc000 + run).toString(16).padStart(40, "0"));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body,
  });
  const answer = (await res.json()) as { citations?: number; created?: boolean };
  pushMs.push(performance.now() - t0);
  const cpu = process.cpuUsage(cpu0);
  pushCpuMs.push((cpu.user + cpu.system) / 1000);
  if (res.status !== 201 || answer.citations !== CITATIONS) throw new Error(`push failed: ${res.status}`);
}

const [snap] = (await database.client.execute("SELECT max(id) AS id FROM trace_snapshots")).rows;
const snapshotId = Number(snap?.id);
const baselineMs: number[] = [];
const baselineCpuMs: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const tx = await database.client.transaction("write");
  for (const c of citations) {
    await tx.execute({
      sql: `INSERT INTO trace_citations (snapshot_id, workspace_id, reference_id, entity_kind, entity_id, revision,
            file, line, "column", kind, test_name, snippet) VALUES (?, ?, ?, 'requirement', NULL, ?, ?, ?, ?, ?, ?, ?)`,
      args: [snapshotId, ws.id, c.id, c.revision, c.file, c.line, c.column, c.kind, c.test_name, c.snippet],
    });
  }
  await tx.rollback(); // measured the inserts; keep the database as the pushes left it
  baselineMs.push(performance.now() - t0);
  const cpu = process.cpuUsage(cpu0);
  baselineCpuMs.push((cpu.user + cpu.system) / 1000);
}

const push = median(pushMs);
const baseline = median(baselineMs);
const summary = {
  date: new Date().toISOString(),
  node: process.version,
  load_average_1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  citations: CITATIONS,
  body_mb: Math.round((bodyBytes / 1024 / 1024) * 10) / 10,
  runs: RUNS,
  push_median_ms: Math.round(push),
  push_max_ms: Math.round(Math.max(...pushMs)),
  push_cpu_median_ms: Math.round(median(pushCpuMs)),
  baseline_median_ms: Math.round(baseline),
  baseline_cpu_median_ms: Math.round(median(baselineCpuMs)),
  push_over_baseline: Math.round((push / baseline) * 100) / 100,
  target_ms: TARGET_MS,
  pass: push <= TARGET_MS,
};
console.table([summary]);

mkdirSync("bench/results", { recursive: true });
writeFileSync(
  "bench/results/traces-push.json",
  `${JSON.stringify({ summary, push_ms: pushMs, baseline_ms: baselineMs }, null, 2)}\n`,
);
writeFileSync(
  "bench/results/traces-push.md",
  [
    `# Trace push of ${CITATIONS.toLocaleString("en")} citations`,
    "",
    `Run ${summary.date} on Node ${summary.node} (1-minute load average ${summary.load_average_1m}). POST /api/v1/traces through the real app over HTTP on loopback (auth, ${summary.body_mb} MB JSON body, validation, id resolution against ${REQUIREMENTS} requirements with 5% orphans, one write transaction, pruning, audit); each run a new commit. Baseline: the same ${CITATIONS.toLocaleString("en")} rows inserted by a loop of prepared INSERTs in one transaction on the same database, no HTTP and no validation. ${RUNS} runs each.`,
    "",
    "| measure | median ms | max ms | CPU median ms (this process: server and client) |",
    "|---|---:|---:|---:|",
    `| push over HTTP | ${summary.push_median_ms} | ${summary.push_max_ms} | ${summary.push_cpu_median_ms} |`,
    `| baseline: prepared INSERT loop, one transaction | ${summary.baseline_median_ms} | ${Math.round(Math.max(...baselineMs))} | ${summary.baseline_cpu_median_ms} |`,
    "",
    `**Push / baseline: ${summary.push_over_baseline}×. Target ≤ ${TARGET_MS} ms: ${summary.pass ? "met" : "NOT met"}.**`,
    "",
  ].join("\n"),
);

server.close();
await database.close();
rmSync(dir, { recursive: true, force: true });
if (!summary.pass) process.exitCode = 1;
