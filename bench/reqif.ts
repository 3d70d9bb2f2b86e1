/**
 * ReqIF interchange (issue 15, Performance), on an embedded libSQL file with 100,000 requirements (1,000
 * stories in 10 epics, 10,000 depends_on links), seeded in SQL:
 *   (a) ReqIF export of the workspace: ≤ 6 s, streamed with flat memory; the JSON export of the same
 *       workspace, measured in the same run alternately, is the baseline (target ratio ≤ 2, i.e. 6 s ÷ 3 s).
 *   (b) heap growth during the ReqIF export (sampled every 20 ms), against the file's size.
 *   (c) ReqIF import of that file as a dry run (parse + plan against an empty workspace), against the export.
 *   (d) a generated `--server-mb` (100) MB ReqIF file applied through a real server process
 *       (`POST /api/v1/import?format=reqif&dry_run=false` on dist/server/node.js): its resident-set growth over
 *       the idle server, target < 200 MB (bench/reqif-server-memory.ts). `--server-mb 0` skips it.
 * Prints a table and writes bench/results/reqif.{json,md}.
 *
 *   npx tsx bench/reqif.ts [--rows 100000] [--runs 3] [--server-mb 100]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { importInputOf } from "../src/core/interchange/formats.js";
import { interchangeFormat } from "../src/core/interchange/registry.js";
import { addMemberOp, createWorkspaceOp } from "../src/db/admin-ops.js";
import { openDatabase } from "../src/db/client.js";
import { exportSource } from "../src/db/interchange-export.js";
import { planImport } from "../src/db/interchange-import.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { getUserByUsername } from "../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../src/db/workspaces.repo.js";
import { median, numberArg } from "./lib.js";
import { measureServerImport } from "./reqif-server-memory.js";

const ROWS = numberArg("rows", 100_000);
const RUNS = numberArg("runs", 3);
const SERVER_MB = numberArg("server-mb", 100);
const STORIES = Math.max(1, Math.round(ROWS / 100));
const EPICS = 10;

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-reqif-"));
const database = await openDatabase({ url: `file:${join(dir, "b.db")}` });
await migrateDatabase(database);
const cli = { actor: { kind: "cli" as const }, now: new Date() };
await createWorkspaceOp(database, cli, { slug: "b", name: "B" });
await createWorkspaceOp(database, cli, { slug: "empty", name: "Empty" });
await addMemberOp(database, cli, { username: "bench", role: "admin", workspace: "b" });
const ws = await database.read((db) => findWorkspaceBySlug(db, "b"));
const empty = await database.read((db) => findWorkspaceBySlug(db, "empty"));
const user = await database.read((db) => getUserByUsername(db, "bench"));
if (!ws || !empty) throw new Error("no workspace");

console.log(`Seeding ${ROWS.toLocaleString("en")} requirements…`);
await database.write(async (tx) => {
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${EPICS})
    INSERT INTO epics (workspace_id, reference_id, title, description, creator_id)
    SELECT ${ws.id}, printf('EP-%03d', i), 'Epic ' || i, 'What epic ' || i || ' is about.', ${user.id} FROM n`);
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${STORIES})
    INSERT INTO user_stories (workspace_id, reference_id, epic_id, title, description, creator_id)
    SELECT ${ws.id}, printf('US-%03d', i), (SELECT id FROM epics WHERE workspace_id = ${ws.id} AND reference_id = printf('EP-%03d', 1 + (i % ${EPICS}))),
      'Story ' || i, 'As a user I want ' || i || ' & <more>.', ${user.id} FROM n`);
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS})
    INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id, creator_id, priority, status)
    SELECT ${ws.id}, printf('REQ-%03d', i),
      (SELECT id FROM user_stories WHERE workspace_id = ${ws.id} AND reference_id = printf('US-%03d', 1 + (i % ${STORIES}))),
      'Requirement ' || i,
      'The system shall handle case ' || i || ' within the agreed time, and say what was wrong otherwise.' || char(10) ||
        'Second line with "quotes" & <angle brackets>.',
      (SELECT id FROM requirement_types WHERE workspace_id = ${ws.id} ORDER BY id LIMIT 1), ${user.id}, 1 + (i % 4),
      CASE i % 3 WHEN 0 THEN 'Draft' WHEN 1 THEN 'Active' ELSE 'Obsolete' END FROM n`);
  await tx.run(sql`INSERT INTO relationships (workspace_id, source_requirement_id, target_requirement_id, type_id, creator_id, source_revision, target_revision)
    SELECT ${ws.id}, r.id, r.id - 1, (SELECT id FROM relationship_types WHERE workspace_id = ${ws.id} AND name = 'depends_on'), ${user.id}, 1, 1
    FROM requirements r WHERE r.workspace_id = ${ws.id} AND r.id % 10 = 0 AND r.id > 1`);
});

/** One export to a writer that only counts; the heap is sampled while it runs. */
async function exportOnce(format: string, keep = false) {
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 20);
  let bytes = 0;
  const parts: string[] = [];
  const t0 = performance.now();
  await database.read(async (db) => {
    const source = await exportSource(db, ws?.id as number, { now: new Date() });
    await interchangeFormat(format).export(source, {
      write: (chunk) => {
        bytes += chunk.length;
        if (keep) parts.push(String(chunk));
      },
    });
  });
  const ms = performance.now() - t0;
  clearInterval(sampler);
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  return { ms, bytes, heapGrowth: heapPeak - heapBefore, text: parts.join("") };
}

const reqifMs: number[] = [];
const jsonMs: number[] = [];
let reqifBytes = 0;
let jsonBytes = 0;
const heapGrowth: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const r = await exportOnce("reqif");
  reqifMs.push(r.ms);
  reqifBytes = r.bytes;
  heapGrowth.push(r.heapGrowth);
  const j = await exportOnce("json");
  jsonMs.push(j.ms);
  jsonBytes = j.bytes;
  console.log(`run ${run + 1}: reqif ${r.ms.toFixed(0)} ms, json ${j.ms.toFixed(0)} ms`);
}

// (c) import of the exported file as a dry run into the empty workspace.
const file = (await exportOnce("reqif", true)).text;
const t0 = performance.now();
const doc = await interchangeFormat("reqif").parse(importInputOf(file, "bench.reqif"));
const parseMs = performance.now() - t0;
const plan = await database.read((db) => planImport(db, empty.id, doc, { createTypes: true }));
const importMs = performance.now() - t0;

// (d) the memory of a real server applying a big ReqIF file.
const server = SERVER_MB > 0 ? await measureServerImport(SERVER_MB) : undefined;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const reqif = median(reqifMs);
const json = median(jsonMs);
const rows = [
  {
    case: `(a) ReqIF export, ${ROWS.toLocaleString("en")} requirements (median of ${RUNS})`,
    measured: `${reqif.toFixed(0)} ms (${mb(reqifBytes)}); JSON ${json.toFixed(0)} ms (${mb(jsonBytes)}); ratio ${(reqif / json).toFixed(2)}`,
    target: "≤ 6,000 ms; ratio ≤ 2",
    met: reqif <= 6000 && reqif / json <= 2,
  },
  {
    case: "(b) heap growth during the ReqIF export (largest of the runs)",
    measured: `${mb(Math.max(...heapGrowth))} for a ${mb(reqifBytes)} file`,
    target: "flat: far below the file's size",
    met: Math.max(...heapGrowth) < reqifBytes / 4,
  },
  {
    case: "(c) ReqIF import dry run (parse + plan) into an empty workspace",
    measured: `${importMs.toFixed(0)} ms (parse ${parseMs.toFixed(0)} ms), ${plan.create.length.toLocaleString("en")} creates, ${plan.errors.length} errors; ${(importMs / reqif).toFixed(2)}× the export`,
    target: "reported (JSON import target: ≤ 3× its export)",
    met: plan.errors.length === 0,
  },
  ...(server
    ? [
        {
          case: `(d) server memory: a ${mb(server.fileBytes)} ReqIF file (${server.requirements.toLocaleString("en")} requirements) applied through POST /api/v1/import by a real server process`,
          measured: `resident set +${mb(server.growth)} over the idle server's ${mb(server.idleRss)} (anonymous +${mb(server.anonGrowth)}); ${server.created.toLocaleString("en")} created in ${(server.ms / 1000).toFixed(1)} s`,
          target: "< 200 MB growth",
          met: server.growth < 200 * 1024 * 1024,
        },
      ]
    : []),
];
console.table(rows);
const load = loadavg()[0]?.toFixed(2);
const stamp = new Date().toISOString();
mkdirSync("bench/results", { recursive: true });
writeFileSync(
  "bench/results/reqif.json",
  `${JSON.stringify({ run: stamp, node: process.version, load, rows: ROWS, runs: RUNS, results: rows }, null, 2)}\n`,
);
writeFileSync(
  "bench/results/reqif.md",
  `# ReqIF interchange

Run ${stamp} on Node ${process.version} (1-minute load average ${load}), embedded libSQL file, ${ROWS.toLocaleString("en")}
requirements in ${STORIES.toLocaleString("en")} stories and ${EPICS} epics, ${Math.floor(ROWS / 10).toLocaleString("en")} links; exports
through the format registry to a writer that only counts bytes, ReqIF and JSON alternating.

| case | measured | target | met |
|---|---|---|---|
${rows.map((r) => `| ${r.case} | ${r.measured} | ${r.target} | ${r.met ? "yes" : "no"} |`).join("\n")}
`,
);
database.close();
rmSync(dir, { recursive: true, force: true });
