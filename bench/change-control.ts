/**
 * Change control's costs (issue "change control", Performance), on an embedded libSQL file:
 *   (a) a write with history ÷ the same write without it (history recording turned off for this process
 *       only, by the bench): update_requirement through the tool handler, alternating blocks. Target ≤ 1.3×.
 *   (b) get_history (tool handler, first page of 20) of a requirement with 1,000 revisions: p50 ≤ 5 ms.
 *   (c) create_baseline over 100,000 requirements (plus their stories): ≤ 2 s.
 *   (d) diff_baseline (first page) over those 100,000 with 1% changed since: ≤ 1 s.
 *   (e) delete_user_story with cascade of a story of 3,000 requirements, 3,000 depends_on links and 100
 *       acceptance criteria: a delete revision for each of its 6,101 items, in the delete's transaction
 *       (one SELECT per kind, batched INSERTs): ≤ 1 s; the same delete without history for comparison.
 * Prints a table and writes bench/results/change-control.{json,md}.
 *
 *   npx tsx bench/change-control.ts [--writes 600] [--rows 100000]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Role } from "../src/core/roles.js";
import { addMemberOp, createTokenOp, createWorkspaceOp } from "../src/db/admin-ops.js";
import { openDatabase } from "../src/db/client.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { setHistoryRecording } from "../src/db/revisions.repo.js";
import { getUserByUsername } from "../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../src/db/workspaces.repo.js";
import { createBaselineTool, diffBaselineTool } from "../src/hosted/baselines.tools.js";
import type { HostedContext } from "../src/hosted/context.js";
import { deleteUserStoryTool } from "../src/hosted/deletes.tools.js";
import { createEpicTool } from "../src/hosted/epics.tools.js";
import { getHistoryTool } from "../src/hosted/history.tools.js";
import { createRequirementTool, updateRequirementTool } from "../src/hosted/requirements.tools.js";
import { createUserStoryTool } from "../src/hosted/user-stories.tools.js";
import { median, numberArg, percentile } from "./lib.js";

const WRITES = numberArg("writes", 600);
const ROWS = numberArg("rows", 100_000);

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-cc-"));
const database = await openDatabase({ url: `file:${join(dir, "b.db")}` });
await migrateDatabase(database);
const cli = { actor: { kind: "cli" as const }, now: new Date() };
await createWorkspaceOp(database, cli, { slug: "b", name: "B" });
const role: Role = "admin";
await addMemberOp(database, cli, { username: "bench", role, workspace: "b" });
const token = await createTokenOp(database, cli, { username: "bench", name: "bench", workspace: "b" });
const ws = await database.read((db) => findWorkspaceBySlug(db, "b"));
const user = await database.read((db) => getUserByUsername(db, "bench"));
if (!ws) throw new Error("no workspace");
const ctx: HostedContext = {
  auth: {
    userId: user.id,
    username: "bench",
    workspaceId: ws.id,
    workspaceSlug: "b",
    role,
    tokenId: token.id,
    isOwner: false,
  },
  database,
  requestId: "bench",
  now: () => new Date(),
  signal: new AbortController().signal,
  progress: async () => {},
};
// The handlers as the registry defines them (argument parsing included, as a face would).
const call = async <T>(
  tool: { input: { parse(x: unknown): unknown }; handler(i: never, c: HostedContext): unknown },
  args: unknown,
) => (await tool.handler(tool.input.parse(args) as never, ctx)) as T;

await call(createEpicTool, { title: "Bench" });
await call(createUserStoryTool, { epic_id: "EP-001", title: "Bench story" });
await call(createRequirementTool, { user_story_id: "US-001", title: "Hot", type: "Functional", priority: 2 });

// (a) writes with and without history, alternating blocks of 25 so drift and other load hit both alike;
// the ratio is of the median block, which a burst of load on the shared machine does not move.
const blocks: { on: number[]; off: number[] } = { on: [], off: [] };
for (let done = 0; done < WRITES * 2; done += 25) {
  const on = (done / 25) % 2 === 0;
  setHistoryRecording(on);
  const t0 = performance.now();
  for (let k = 0; k < 25; k++) {
    await call(updateRequirementTool, {
      requirement_id: "REQ-001",
      description: `text ${done + k}`,
      change_note: "bench",
    });
  }
  (on ? blocks.on : blocks.off).push((performance.now() - t0) / 25);
}
setHistoryRecording(true);
const perOn = median(blocks.on);
const perOff = median(blocks.off);

// (b) get_history of an entity with 1,000 revisions.
await call(createRequirementTool, {
  user_story_id: "US-001",
  title: "Long lived",
  type: "Functional",
  priority: 2,
});
for (let k = 1; k < 1000; k++) {
  await call(updateRequirementTool, {
    requirement_id: "REQ-002",
    description: `revision ${k + 1} words ${k % 7}`,
  });
}
const historyMs: number[] = [];
for (let k = 0; k < 300; k++) {
  const t0 = performance.now();
  await call(getHistoryTool, { id: "REQ-002" });
  historyMs.push(performance.now() - t0);
}
historyMs.sort((a, b) => a - b);

// (c) 100,000 requirements (100 stories), each with its first revision, seeded in SQL.
console.log(`Seeding ${ROWS.toLocaleString("en")} requirements…`);
const seedStart = performance.now();
await database.write(async (tx) => {
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 101)
    INSERT INTO user_stories (workspace_id, reference_id, epic_id, title, creator_id)
    SELECT ${ws.id}, printf('US-%03d', i), 1, 'Story ' || i, ${user.id} FROM n`);
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS})
    INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id, creator_id)
    SELECT ${ws.id}, printf('REQ-%06d', i + 10), 2 + (i % 100), 'Requirement ' || i,
      'The system shall handle case ' || i || ' within the agreed time.', 1, ${user.id} FROM n`);
  await tx.run(sql`INSERT INTO revisions (workspace_id, entity_kind, entity_id, reference_id, revision, op, snapshot, user_id, tool, created_at)
    SELECT q.workspace_id, 'requirement', q.id, q.reference_id, 1, 'create',
      json_object('reference_id', q.reference_id, 'user_story_id', s.reference_id, 'title', q.title, 'description', q.description,
        'status', q.status, 'priority', q.priority, 'type_name', 'Functional', 'creator_username', 'bench',
        'assignee_username', NULL, 'revision', 1, 'created_at', q.created_at, 'updated_at', q.updated_at),
      q.creator_id, 'bench', q.created_at
    FROM requirements q JOIN user_stories s ON s.id = q.user_story_id WHERE q.reference_id LIKE 'REQ-0%' AND length(q.reference_id) = 10`);
  await tx.run(sql`INSERT INTO revisions (workspace_id, entity_kind, entity_id, reference_id, revision, op, snapshot, user_id, tool, created_at)
    SELECT workspace_id, 'user_story', id, reference_id, 1, 'create', json_object('reference_id', reference_id, 'title', title), creator_id, 'bench', created_at
    FROM user_stories WHERE id > 1`);
});
console.log(`Seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

const t0 = performance.now();
const made = await call<{ entry_count: number }>(createBaselineTool, { name: "v1" });
const createMs = performance.now() - t0;

// (d) 1% of the requirements change (a new revision each, as a write records it), then diff.
await database.write(async (tx) => {
  await tx.run(sql`UPDATE requirements SET revision = 2, description = description || ' Tightened.'
    WHERE workspace_id = ${ws.id} AND id % 100 = 0`);
  await tx.run(sql`INSERT INTO revisions (workspace_id, entity_kind, entity_id, reference_id, revision, op, snapshot, user_id, tool, created_at)
    SELECT r.workspace_id, 'requirement', r.entity_id, r.reference_id, 2, 'update',
      json_set(r.snapshot, '$.description', q.description, '$.revision', 2), r.user_id, 'bench', r.created_at
    FROM revisions r JOIN requirements q ON q.id = r.entity_id
    WHERE r.workspace_id = ${ws.id} AND r.entity_kind = 'requirement' AND r.revision = 1 AND q.revision = 2 AND q.id % 100 = 0`);
});
const diffRuns: number[] = [];
let counts: Record<string, number> = {};
for (let k = 0; k < 5; k++) {
  const d0 = performance.now();
  const diff = await call<{ counts: Record<string, number> }>(diffBaselineTool, { from: "v1", limit: 100 });
  diffRuns.push(performance.now() - d0);
  counts = diff.counts;
}
diffRuns.sort((a, b) => a - b);

// (e) A big story (own reference ids, apart from the seeded ones) deleted with cascade, with and without
// history: 3,000 requirements each depending on the one before, 100 criteria.
const BIG = 3000;
const wsId = ws.id;
async function seedBigStory(ref: string, prefix: number): Promise<void> {
  await database.write(async (tx) => {
    await tx.run(sql`INSERT INTO user_stories (workspace_id, reference_id, epic_id, title, creator_id)
      VALUES (${wsId}, ${ref}, 1, ${`Big ${ref}`}, ${user.id})`);
    const story = sql`(SELECT id FROM user_stories WHERE workspace_id = ${wsId} AND reference_id = ${ref})`;
    await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BIG})
      INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id, creator_id)
      SELECT ${wsId}, 'REQ-' || CAST(${prefix} * 10000 + i AS INTEGER), ${story}, 'Big ' || i,
        'The system shall handle big case ' || i || ' within the agreed time.', 1, ${user.id} FROM n`);
    await tx.run(sql`INSERT INTO relationships (workspace_id, source_requirement_id, target_requirement_id, type_id, creator_id, source_revision, target_revision)
      SELECT ${wsId}, q.id, q.id - 1, (SELECT id FROM relationship_types WHERE workspace_id = ${wsId} AND name = 'depends_on'), ${user.id}, 1, 1
      FROM requirements q WHERE q.user_story_id = ${story}
        AND q.id > (SELECT min(id) FROM requirements WHERE user_story_id = ${story})`);
    await tx.run(sql`INSERT INTO relationships (workspace_id, source_requirement_id, target_requirement_id, type_id, creator_id, source_revision, target_revision)
      SELECT ${wsId}, q.id, (SELECT id FROM requirements WHERE workspace_id = ${wsId} AND reference_id = 'REQ-001'),
        (SELECT id FROM relationship_types WHERE workspace_id = ${wsId} AND name = 'depends_on'), ${user.id}, 1, 1
      FROM requirements q WHERE q.reference_id = ${`REQ-${prefix * 10000 + 1}`}`);
    await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
      INSERT INTO acceptance_criteria (workspace_id, reference_id, user_story_id, title, description, creator_id)
      SELECT ${wsId}, 'AC-' || CAST(${prefix} * 10000 + i AS INTEGER), ${story}, 'Given ' || i, 'Given ' || i || ', then it holds.', ${user.id} FROM n`);
  });
}
const deleteRuns: { history: boolean; ms: number; items: number }[] = [];
for (const [k, history] of [true, false, true, false].entries()) {
  const ref = `US-${9000 + k}`;
  await seedBigStory(ref, 90 + k);
  setHistoryRecording(history);
  const d0 = performance.now();
  const out = await call<{ deleted: Record<string, unknown[]> }>(deleteUserStoryTool, {
    user_story_id: ref,
    cascade: true,
    change_note: "bench",
  });
  deleteRuns.push({
    history,
    ms: performance.now() - d0,
    items: Object.values(out.deleted).reduce((n, list) => n + list.length, 0),
  });
}
setHistoryRecording(true);
const deleteOn = Math.min(...deleteRuns.filter((r) => r.history).map((r) => r.ms));
const deleteOff = Math.min(...deleteRuns.filter((r) => !r.history).map((r) => r.ms));
const deletedItems = deleteRuns[0]?.items ?? 0;

await database.close();
rmSync(dir, { recursive: true, force: true });

const rows = [
  {
    case: "(a) update_requirement with history ÷ without",
    measured: `${perOn.toFixed(3)} ms ÷ ${perOff.toFixed(3)} ms = ${(perOn / perOff).toFixed(2)}×`,
    target: "≤ 1.3×",
    met: perOn / perOff <= 1.3,
  },
  {
    case: "(b) get_history p50, 1,000 revisions",
    measured: `${percentile(historyMs, 50).toFixed(2)} ms (p99 ${percentile(historyMs, 99).toFixed(2)} ms)`,
    target: "≤ 5 ms",
    met: percentile(historyMs, 50) <= 5,
  },
  {
    case: `(c) create_baseline, ${made.entry_count.toLocaleString("en")} entries`,
    measured: `${createMs.toFixed(0)} ms`,
    target: "≤ 2,000 ms",
    met: createMs <= 2000,
  },
  {
    case: `(d) diff_baseline, ${counts.changed ?? 0} of ${ROWS.toLocaleString("en")} changed (median of 5)`,
    measured: `${percentile(diffRuns, 50).toFixed(0)} ms`,
    target: "≤ 1,000 ms",
    met: percentile(diffRuns, 50) <= 1000,
  },
  {
    case: `(e) delete_user_story cascade, ${deletedItems.toLocaleString("en")} items (best of 2)`,
    measured: `${deleteOn.toFixed(0)} ms with history (${deleteOff.toFixed(0)} ms without)`,
    target: "≤ 1,000 ms",
    met: deleteOn <= 1000,
  },
];
console.table(rows);
const load = loadavg()[0]?.toFixed(2);
const stamp = new Date().toISOString();
mkdirSync("bench/results", { recursive: true });
writeFileSync(
  "bench/results/change-control.json",
  `${JSON.stringify({ run: stamp, node: process.version, load, writes: WRITES, rows: ROWS, results: rows }, null, 2)}\n`,
);
writeFileSync(
  "bench/results/change-control.md",
  `# Change control costs

Run ${stamp} on Node ${process.version} (1-minute load average ${load}), embedded libSQL file, tool handlers called as a
face calls them (argument parsing included). (a) alternates blocks of 25 updates with history on and off
(off only in this process, through setHistoryRecording), ${WRITES} writes each; the ratio compares
the median block.

| case | measured | target | met |
|---|---|---|---|
${rows.map((r) => `| ${r.case} | ${r.measured} | ${r.target} | ${r.met ? "yes" : "no"} |`).join("\n")}
`,
);
