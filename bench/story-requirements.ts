/**
 * get_user_story_requirements of a story with 1,000 requirements (issue 16, item 5): the tool as the faces
 * run it (argument parsing, handler, rendering, the JSON answer) against one SELECT of the same rows with
 * the raw libSQL client, interleaved in the same run; target ≤ 2×. Also what the answer carries: the text
 * (specs/user-story-requirements.md criterion 1.8) and the structured content, in bytes.
 *
 *   npx tsx bench/story-requirements.ts [--rows 1000] [--runs 40]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { addMemberOp, createWorkspaceOp, type OpContext } from "../src/db/admin-ops.js";
import { openDatabase } from "../src/db/client.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { getUserByUsername } from "../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../src/db/workspaces.repo.js";
import { contentOf, parseToolInput, renderSuccess } from "../src/protocol/compile.js";
import { insertEpicAndStory } from "../test/helpers/seed-parents.js";
import { benchContext, hostedTool } from "./hosted-tool.js";
import { machineFacts, median, numberArg, rng, zipfWords } from "./lib.js";
import { VOCAB } from "./search-data.js";

const ROWS = numberArg("rows", 1000);
const RUNS = numberArg("runs", 40);
const TARGET = 2;

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-story-"));
const database = await openDatabase({ url: `file:${join(dir, "bench.db")}` });
await migrateDatabase(database);
const cli: OpContext = { actor: { kind: "cli" }, now: new Date() };
await createWorkspaceOp(database, cli, { slug: "bench", name: "bench" });
await addMemberOp(database, cli, { username: "bencher", role: "viewer", workspace: "bench" });
const found = await database.read((db) => findWorkspaceBySlug(db, "bench"));
if (!found) throw new Error("no workspace");
const ws = found;
const user = await database.read((db) => getUserByUsername(db, "bencher"));
const { phrase } = zipfWords(VOCAB, rng(5));

// One story with ROWS requirements of ordinary length (a 6-word title, a 30-word description).
await database.write(async (tx) => {
  await insertEpicAndStory(tx, ws.id, "Big story");
  const type = await tx.all<{ id: number }>(
    sql`SELECT id FROM requirement_types WHERE workspace_id = ${ws.id} ORDER BY id LIMIT 1`,
  );
  for (let n = 1; n <= ROWS; n++) {
    await tx.run(sql`INSERT INTO requirements
      (workspace_id, reference_id, user_story_id, title, description, status, priority, type_id, creator_id, created_at, updated_at)
      VALUES (${ws.id}, ${`REQ-${String(n).padStart(3, "0")}`}, (SELECT id FROM user_stories WHERE workspace_id = ${ws.id}),
        ${phrase(6)}, ${phrase(30)}, 'Draft', ${1 + (n % 4)}, ${type[0]?.id}, ${user.id},
        ${new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString()}, ${new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString()})`);
  }
});

const tool = hostedTool("get_user_story_requirements");
const ctx = benchContext(database, {
  userId: user.id,
  username: user.username,
  workspaceId: ws.id,
  workspaceSlug: "bench",
});

/** The tool as a face runs it, up to the JSON answer on the wire. */
async function viaTool(): Promise<{
  ms: number;
  text: number;
  structured: number;
  total: number;
  items: number;
}> {
  const t0 = performance.now();
  const input = parseToolInput(tool as NonNullable<typeof tool>, { user_story: "US-001", limit: ROWS });
  const output = await tool?.def.handler(input, ctx);
  const rendered = renderSuccess(tool as NonNullable<typeof tool>, output);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: { content: contentOf(rendered), structuredContent: rendered.structured },
  });
  const ms = performance.now() - t0;
  const enc = new TextEncoder();
  return {
    ms,
    text: enc.encode(JSON.stringify(rendered.text)).length,
    structured: enc.encode(JSON.stringify(rendered.structured)).length,
    total: enc.encode(body).length,
    items: (output as { requirements: unknown[] }).requirements.length,
  };
}

/** The floor: one SELECT of the same rows (with the names the answer shows), raw libSQL client. */
const SELECT = `SELECT r.reference_id, s.reference_id AS user_story_id, r.title, r.description, r.status, r.priority,
    t.name AS type_name, c.username AS creator_username, a.username AS assignee_username, r.revision,
    r.created_at, r.updated_at
  FROM requirements r JOIN user_stories s ON s.id = r.user_story_id JOIN requirement_types t ON t.id = r.type_id
  LEFT JOIN users c ON c.id = r.creator_id LEFT JOIN users a ON a.id = r.assignee_id
  WHERE r.workspace_id = ? AND r.user_story_id = (SELECT id FROM user_stories WHERE workspace_id = ? AND reference_id = 'US-001')
  ORDER BY r.priority, r.created_at DESC, r.id DESC LIMIT ?`;
async function viaSelect(): Promise<number> {
  const t0 = performance.now();
  await database.client.execute({ sql: SELECT, args: [ws.id, ws.id, ROWS] });
  return performance.now() - t0;
}

for (let i = 0; i < 10; i++) {
  await viaTool();
  await viaSelect();
}
const toolMs: number[] = [];
const selectMs: number[] = [];
let sizes = await viaTool();
for (let i = 0; i < RUNS; i++) {
  sizes = await viaTool();
  toolMs.push(sizes.ms);
  selectMs.push(await viaSelect());
}
const summary = {
  requirements: ROWS,
  items_on_page: sizes.items,
  runs: RUNS,
  tool_p50_ms: +median(toolMs).toFixed(2),
  select_p50_ms: +median(selectMs).toFixed(2),
  ratio: +(median(toolMs) / median(selectMs)).toFixed(2),
  target: `≤ ${TARGET}× one SELECT`,
  pass: median(toolMs) / median(selectMs) <= TARGET,
  answer_bytes: sizes.total,
  text_bytes: sizes.text,
  structured_bytes: sizes.structured,
  structured_over_text: +(sizes.structured / sizes.text).toFixed(2),
  ...machineFacts(),
};
console.table([summary]);
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/story-requirements.json", `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(
  "bench/results/story-requirements.md",
  [
    `# get_user_story_requirements of ${ROWS.toLocaleString("en")} requirements`,
    "",
    `Run ${summary.date} on Node ${summary.node}, ${summary.cpus} cores, load average ${summary.load_average_1m}; ${RUNS} interleaved runs, medians.`,
    "",
    "| measure | result |",
    "|---|---|",
    `| the tool (parse, handler, render, JSON answer), p50 | ${summary.tool_p50_ms} ms (${summary.items_on_page} items on the page) |`,
    `| one SELECT of the same rows (raw libSQL client), p50 | ${summary.select_p50_ms} ms |`,
    `| ratio | **${summary.ratio}×** (target ${summary.target}: ${summary.pass ? "met" : "NOT met"}) |`,
    `| answer on the wire | ${summary.answer_bytes.toLocaleString("en")} bytes |`,
    `| text (criterion 1.8) / structured content | ${summary.text_bytes.toLocaleString("en")} / ${summary.structured_bytes.toLocaleString("en")} bytes (${summary.structured_over_text}×) |`,
    "",
  ].join("\n"),
);
await database.close();
rmSync(dir, { recursive: true, force: true });
if (!summary.pass) process.exitCode = 1;
