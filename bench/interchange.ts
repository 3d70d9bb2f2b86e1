/**
 * Interchange (issue 15): export of 100,000 requirements as JSON ≤ 3 s (ReqIF ≤ 6 s once registered),
 * streamed with flat memory (server RSS growth reported), and import of the same JSON ≤ 3× its export time.
 * Through the real app over real HTTP (@hono/node-server on loopback, auth, streaming, audit) on a real
 * libSQL file. Baseline in the same run: the same requirement rows read by one bare SELECT and serialised
 * with JSON.stringify (no app, no joins beyond the type). The workspace is seeded with bulk INSERTs (setup,
 * not measured): 100 epics × 10 stories × 100 requirements.
 *
 *   npx tsx bench/interchange.ts [--requirements 100000] [--runs 3] [--skip-import 1]
 *
 * Results go to bench/results/interchange.{json,md} (at the default size) or interchange-<N>.{json,md}.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { serve } from "@hono/node-server";
import { createApp } from "../src/app.js";
import { formatNames } from "../src/core/interchange/registry.js";
import { addMemberOp, createTokenOp, createWorkspaceOp } from "../src/db/admin-ops.js";
import { bootstrap } from "../src/db/bootstrap.js";
import { openDatabase } from "../src/db/client.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { findWorkspaceBySlug } from "../src/db/workspaces.repo.js";
import { median, numberArg, rng, zipfWords } from "./lib.js";

const REQUIREMENTS = numberArg("requirements", 100_000);
const RUNS = numberArg("runs", 3);
const SKIP_IMPORT = numberArg("skip-import", 0) === 1;
const STORIES = Math.max(1, Math.round(REQUIREMENTS / 100));
const EPICS = Math.max(1, Math.round(STORIES / 10));
const JSON_TARGET_MS = 3000;
const REQIF_TARGET_MS = 6000;

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-interchange-"));
const database = await openDatabase({ url: `file:${join(dir, "bench.db")}` });
await migrateDatabase(database);
const boot = await bootstrap(database);
if (!boot.created) throw new Error("fresh database was not bootstrapped");
const ownerToken = boot.token;
const ws = await database.read((db) => findWorkspaceBySlug(db, "default"));
if (!ws) throw new Error("no default workspace");

// ----- seed (bulk, unmeasured) ------------------------------------------------------------------------
const random = rng(15);
const words = zipfWords(
  "the system shall must user card payment order account report export import within seconds log audit secure data record field value list page error message retry limit role admin token session".split(
    " ",
  ),
  random,
);
const typeRow = await database.client.execute({
  sql: "SELECT id FROM requirement_types WHERE workspace_id = ? AND name = 'Functional'",
  args: [ws.id],
});
const typeId = Number(typeRow.rows[0]?.id);
const stamp = "2026-01-02T03:04:05.678Z";
{
  const tx = await database.client.transaction("write");
  for (let e = 1; e <= EPICS; e++) {
    await tx.execute({
      sql: "INSERT INTO epics (id, workspace_id, reference_id, title, description, creator_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
      args: [
        e,
        ws.id,
        `EP-${String(e).padStart(3, "0")}`,
        `Epic ${e} ${words.phrase(3)}`,
        words.phrase(20),
        stamp,
        stamp,
      ],
    });
  }
  for (let s = 1; s <= STORIES; s++) {
    await tx.execute({
      sql: "INSERT INTO user_stories (id, workspace_id, reference_id, epic_id, title, description, creator_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
      args: [
        s,
        ws.id,
        `US-${String(s).padStart(3, "0")}`,
        1 + ((s - 1) % EPICS),
        `Story ${s} ${words.phrase(4)}`,
        words.phrase(25),
        stamp,
        stamp,
      ],
    });
  }
  for (let r = 1; r <= REQUIREMENTS; r++) {
    await tx.execute({
      sql: "INSERT INTO requirements (id, workspace_id, reference_id, user_story_id, title, description, priority, type_id, creator_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
      args: [
        r,
        ws.id,
        `REQ-${String(r).padStart(3, "0")}`,
        1 + ((r - 1) % STORIES),
        `Requirement ${r} ${words.phrase(5)}`,
        words.phrase(40),
        1 + (r % 4),
        typeId,
        stamp,
        stamp,
      ],
    });
  }
  await tx.execute({
    sql: "INSERT INTO reference_counters (workspace_id, prefix, last_value) VALUES (?, 'EP', ?), (?, 'US', ?), (?, 'REQ', ?)",
    args: [ws.id, EPICS, ws.id, STORIES, ws.id, REQUIREMENTS],
  });
  await tx.commit();
}

const app = createApp({
  database,
  logger: { log() {} },
  version: "bench",
  maxImportBodyBytes: 512 * 1024 * 1024,
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** CPU time (user + system) of this process — server and client — since `start`: what load does not inflate. */
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

/** Streams GET /api/v1/export, counting bytes, sampling this process's RSS while it runs. */
async function exportOnce(format: string, keep = false) {
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/export?format=${format}`, {
    headers: { authorization: `Bearer ${ownerToken}` },
  });
  if (res.status !== 200 || !res.body) throw new Error(`export ${format}: ${res.status} ${await res.text()}`);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    if (keep) chunks.push(value);
  }
  const ms = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  clearInterval(sampler);
  return {
    ms,
    cpuMs,
    bytes,
    rssGrowthMb: (peak - rss0) / 1024 / 1024,
    body: keep ? Buffer.concat(chunks) : undefined,
  };
}

const jsonRuns = [];
for (let i = 0; i < RUNS; i++) jsonRuns.push(await exportOnce("json"));
// The file for the import, downloaded once more and kept (the measured runs keep nothing, so RSS is the server's).
const file = (await exportOnce("json", true)).body as Buffer;
const exported = JSON.parse(file.toString("utf8")) as { requirements: unknown[] };
if (exported.requirements.length !== REQUIREMENTS)
  throw new Error(`exported ${exported.requirements.length} requirements`);

const reqifRegistered = formatNames().includes("reqif");
const reqifRuns = [];
if (reqifRegistered) for (let i = 0; i < RUNS; i++) reqifRuns.push(await exportOnce("reqif"));

// Baseline: one bare SELECT of the requirement rows, serialised.
const baselineMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  const rs = await database.client.execute({
    sql: "SELECT r.reference_id, r.title, r.description, r.status, r.priority, t.name AS type, r.created_at, r.updated_at FROM requirements r JOIN requirement_types t ON t.id = r.type_id WHERE r.workspace_id = ?",
    args: [ws.id],
  });
  let n = 0;
  for (const row of rs.rows) n += JSON.stringify(row).length;
  if (n === 0) throw new Error("baseline read nothing");
  baselineMs.push(performance.now() - t0);
}

// Import of the same JSON into an empty workspace (one run: each run needs a fresh workspace).
async function importOnce() {
  const cli = { actor: { kind: "cli" as const }, now: new Date() };
  await createWorkspaceOp(database, cli, { slug: "copy", name: "copy" });
  await addMemberOp(database, cli, { username: "admin", role: "admin", workspace: "copy" });
  const copyToken = (
    await createTokenOp(database, cli, { username: "admin", name: "bench", workspace: "copy" })
  ).token;
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const imported = await fetch(`${base}/api/v1/import?format=json&dry_run=false`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${copyToken}`,
      "content-type": "application/json",
      "content-disposition": 'attachment; filename="bench.json"',
    },
    body: new Uint8Array(file),
  });
  const ms = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu0);
  clearInterval(sampler);
  const answer = (await imported.json()) as { counts?: { create: number } };
  if (imported.status !== 200)
    throw new Error(`import: ${imported.status} ${JSON.stringify(answer).slice(0, 500)}`);
  return { ms, cpuMs, created: answer.counts?.create ?? 0, rssGrowthMb: (peak - rss0) / 1024 / 1024 };
}
const imp = SKIP_IMPORT ? undefined : await importOnce();

const jsonMs = median(jsonRuns.map((r) => r.ms));
const reqifMs = reqifRuns.length > 0 ? median(reqifRuns.map((r) => r.ms)) : undefined;
const baseline = median(baselineMs);
const summary = {
  date: new Date().toISOString(),
  node: process.version,
  load_average_1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  requirements: REQUIREMENTS,
  stories: STORIES,
  epics: EPICS,
  runs: RUNS,
  json_bytes_mb: Math.round(((jsonRuns[0]?.bytes ?? 0) / 1024 / 1024) * 10) / 10,
  json_export_median_ms: Math.round(jsonMs),
  json_export_rss_growth_mb: Math.round(Math.max(...jsonRuns.map((r) => r.rssGrowthMb))),
  json_target_ms: JSON_TARGET_MS,
  json_pass: jsonMs <= JSON_TARGET_MS,
  reqif: reqifRegistered ? "registered" : "not registered",
  reqif_export_median_ms: reqifMs === undefined ? null : Math.round(reqifMs),
  reqif_export_rss_growth_mb:
    reqifRuns.length > 0 ? Math.round(Math.max(...reqifRuns.map((r) => r.rssGrowthMb))) : null,
  reqif_target_ms: REQIF_TARGET_MS,
  reqif_pass: reqifMs === undefined ? null : reqifMs <= REQIF_TARGET_MS,
  baseline_select_median_ms: Math.round(baseline),
  export_over_baseline: Math.round((jsonMs / baseline) * 100) / 100,
  import_ms: imp ? Math.round(imp.ms) : null,
  json_export_cpu_median_ms: Math.round(median(jsonRuns.map((r) => r.cpuMs))),
  import_cpu_ms: imp ? Math.round(imp.cpuMs) : null,
  import_over_export_cpu: imp
    ? Math.round((imp.cpuMs / median(jsonRuns.map((r) => r.cpuMs))) * 100) / 100
    : null,
  import_created: imp?.created ?? null,
  import_rss_growth_mb: imp ? Math.round(imp.rssGrowthMb) : null,
  import_over_export: imp ? Math.round((imp.ms / jsonMs) * 100) / 100 : null,
  import_target_ratio: 3,
  import_pass: imp ? imp.ms <= 3 * jsonMs : null,
};

const md = `# Interchange: export and import of ${REQUIREMENTS.toLocaleString("en")} requirements

Run ${summary.date} on Node ${summary.node} (1-minute load average ${summary.load_average_1m}). ${EPICS} epics × ${STORIES / EPICS} stories × ${REQUIREMENTS / STORIES} requirements, seeded with bulk INSERTs. Exports: GET /api/v1/export through the real app over HTTP on loopback, the body streamed and consumed by fetch; RSS growth is this process's (server and client) peak over its start, sampled every 20 ms. Import: POST /api/v1/import?dry_run=false of the JSON export into an empty workspace (one transaction, through the repositories the tools use). Baseline: one bare SELECT of the requirement rows, each JSON.stringify'd. ${RUNS} runs for exports, 1 for the import.

| measure | median ms | target | RSS growth MB | result |
|---|---:|---:|---:|---|
| JSON export (${summary.json_bytes_mb} MB) | ${summary.json_export_median_ms} | ≤ ${JSON_TARGET_MS} | ${summary.json_export_rss_growth_mb} | ${summary.json_pass ? "met" : "NOT met"} |
| ReqIF export | ${reqifMs === undefined ? "—" : summary.reqif_export_median_ms} | ≤ ${REQIF_TARGET_MS} | ${summary.reqif_export_rss_growth_mb ?? "—"} | ${reqifRegistered ? (summary.reqif_pass ? "met" : "NOT met") : "not registered in this build"} |
| baseline: bare SELECT + JSON.stringify | ${summary.baseline_select_median_ms} | | | |
| JSON import (same file, ${summary.import_created ?? "—"} created) | ${summary.import_ms ?? "not run (--skip-import)"} | ≤ 3× export (${3 * summary.json_export_median_ms}) | ${summary.import_rss_growth_mb ?? "—"} | ${summary.import_pass === null ? "—" : summary.import_pass ? "met" : "NOT met"}${summary.import_over_export === null ? "" : ` (${summary.import_over_export}×)`} |

Export / baseline: ${summary.export_over_baseline}×. CPU time of the process (user + system, what load does not inflate): JSON export ${summary.json_export_cpu_median_ms} ms, import ${summary.import_cpu_ms ?? "—"} ms${summary.import_over_export_cpu === null ? "" : ` = ${summary.import_over_export_cpu}× its export`}.
`;
console.log(md);
mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
const stem = REQUIREMENTS === 100_000 ? "interchange" : `interchange-${REQUIREMENTS}`;
writeFileSync(join(import.meta.dirname, "results", `${stem}.json`), `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(join(import.meta.dirname, "results", `${stem}.md`), md);
await new Promise((r) => server.close(r));
await database.close();
rmSync(dir, { recursive: true, force: true });
