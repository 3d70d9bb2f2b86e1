/**
 * A page of list_suspect_links and of list_my_tokens costs what it returns, not what the workspace holds:
 * the tools as the faces run them (argument parsing, handler, rendering), a page of 20 at the start and in
 * the middle of each list, in a workspace of `--large` suspect relationships, suspect citations and tokens
 * against one of `--small`, interleaved in the same run and the same database file; target: large ≤ 1.5×
 * small for every page (an index search grows with log n; a scan or a sort would grow with n).
 *
 *   npx tsx bench/paged-lists.ts [--small 1000] [--large 100000] [--runs 200]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { addMemberOp, createTokenOp, createWorkspaceOp, type OpContext } from "../src/db/admin-ops.js";
import { openDatabase } from "../src/db/client.js";
import { encodeCursor } from "../src/db/entity-support.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { getUserByUsername } from "../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../src/db/workspaces.repo.js";
import { parseToolInput, renderSuccess } from "../src/protocol/compile.js";
import { insertEpicAndStory } from "../test/helpers/seed-parents.js";
import { benchContext, hostedTool } from "./hosted-tool.js";
import { machineFacts, median, numberArg } from "./lib.js";

const SMALL = numberArg("small", 1000);
const LARGE = numberArg("large", 100_000);
const RUNS = numberArg("runs", 200);
const LIMIT = 20;
const TARGET = 1.5;

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-paged-"));
const database = await openDatabase({ url: `file:${join(dir, "bench.db")}` });
await migrateDatabase(database);
const cli: OpContext = { actor: { kind: "cli" }, now: new Date() };

interface Workspace {
  id: number;
  slug: string;
  userId: number;
  username: string;
  tokenId: number;
  rows: number;
  /** A relationship id and a citation key halfway through each list, for the cursors of the middle pages. */
  midRelationship: number;
  midCitation: [string, string, number, string, number];
  midToken: number;
}

/** `n` suspect relationships (REQ-i depends_on REQ-1, REQ-1 changed since), `n` suspect citations, `n` tokens. */
async function seed(slug: string, n: number): Promise<Workspace> {
  await createWorkspaceOp(database, cli, { slug, name: slug });
  const username = `${slug}-member`;
  await addMemberOp(database, cli, { username, role: "viewer", workspace: slug });
  const token = await createTokenOp(database, cli, { username, name: "bench", workspace: slug });
  const ws = await database.read((db) => findWorkspaceBySlug(db, slug));
  if (!ws) throw new Error("no workspace");
  const user = await database.read((db) => getUserByUsername(db, username));
  await database.write(async (tx) => {
    await insertEpicAndStory(tx, ws.id);
    const type = await tx.all<{ id: number }>(
      sql`SELECT id FROM requirement_types WHERE workspace_id = ${ws.id} ORDER BY id LIMIT 1`,
    );
    const relType = await tx.all<{ id: number }>(
      sql`SELECT id FROM relationship_types WHERE workspace_id = ${ws.id} OR workspace_id IS NULL ORDER BY id LIMIT 1`,
    );
    await tx.run(sql`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n + 1})
      INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, status, priority, type_id, revision)
      SELECT ${ws.id}, printf('REQ-%03d', i), (SELECT id FROM user_stories WHERE workspace_id = ${ws.id}),
        'Requirement ' || i, '', 'Draft', 3, ${type[0]?.id}, CASE i WHEN 1 THEN 2 ELSE 1 END FROM k`);
    await tx.run(sql`INSERT INTO relationships (workspace_id, source_requirement_id, target_requirement_id, type_id, source_revision, target_revision)
      SELECT ${ws.id}, r.id, (SELECT id FROM requirements WHERE workspace_id = ${ws.id} AND reference_id = 'REQ-001'), ${relType[0]?.id}, 1, 1
      FROM requirements r WHERE r.workspace_id = ${ws.id} AND r.reference_id <> 'REQ-001' ORDER BY r.id`);
    await tx.run(sql`INSERT INTO trace_snapshots (workspace_id, repository, commit_sha, scanned_at, content_hash, citation_count, orphan_count)
      VALUES (${ws.id}, 'acme/app', ${"a".repeat(40)}, '2026-01-01T00:00:00.000Z', 'x', ${n}, 0)`);
    await tx.run(sql`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
      INSERT INTO trace_citations (snapshot_id, workspace_id, reference_id, entity_kind, entity_id, revision, file, line, "column", kind, snippet)
      SELECT (SELECT max(id) FROM trace_snapshots WHERE workspace_id = ${ws.id}), ${ws.id}, 'REQ-001', 'requirement',
        (SELECT id FROM requirements WHERE workspace_id = ${ws.id} AND reference_id = 'REQ-001'), 1,
        printf('src/f%03d.ts', i % 500), i, 1, 'impl', '// REQ-001@1' FROM k`);
    await tx.run(sql`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
      INSERT INTO tokens (token_hash, name, user_id, workspace_id) SELECT ${slug} || '-' || i, 'token ' || i, ${user.id}, ${ws.id} FROM k`);
  });
  const one = async (q: ReturnType<typeof sql>) =>
    (await database.read((db) => db.all<Record<string, unknown>>(q)))[0] ?? {};
  const rel = await one(
    sql`SELECT id FROM relationships WHERE workspace_id = ${ws.id} ORDER BY id LIMIT 1 OFFSET ${n >> 1}`,
  );
  const cit =
    await one(sql`SELECT id, file, line, reference_id FROM trace_citations WHERE workspace_id = ${ws.id}
    ORDER BY file, line, reference_id, id LIMIT 1 OFFSET ${n >> 1}`);
  const tok = await one(
    sql`SELECT id FROM tokens WHERE workspace_id = ${ws.id} ORDER BY id DESC LIMIT 1 OFFSET ${n >> 1}`,
  );
  return {
    id: ws.id,
    slug,
    userId: user.id,
    username,
    tokenId: token.id,
    rows: n,
    midRelationship: Number(rel.id),
    midCitation: ["acme/app", String(cit.file), Number(cit.line), String(cit.reference_id), Number(cit.id)],
    midToken: Number(tok.id),
  };
}

const t0 = performance.now();
const small = await seed("small", SMALL);
const large = await seed("large", LARGE);
const seedSeconds = (performance.now() - t0) / 1000;

/** The pages measured: a name, the tool, its arguments for a workspace (cursors as the tools encode them). */
const PAGES: { page: string; tool: string; args: (w: Workspace) => Record<string, unknown> }[] = [
  { page: "suspect links, first page", tool: "list_suspect_links", args: () => ({ limit: LIMIT }) },
  {
    page: "suspect links, mid relationships",
    tool: "list_suspect_links",
    args: (w) => ({ limit: LIMIT, cursor: encodeCursor(`suspect_links:${w.id}:`, ["r", w.midRelationship]) }),
  },
  {
    page: "suspect links, mid citations",
    tool: "list_suspect_links",
    args: (w) => ({ limit: LIMIT, cursor: encodeCursor(`suspect_links:${w.id}:`, ["c", ...w.midCitation]) }),
  },
  { page: "my tokens, first page", tool: "list_my_tokens", args: () => ({ limit: LIMIT }) },
  {
    page: "my tokens, mid list",
    tool: "list_my_tokens",
    args: (w) => ({ limit: LIMIT, cursor: encodeCursor(`my_tokens:${w.id}:${w.userId}`, w.midToken) }),
  },
];

async function run(
  w: Workspace,
  toolName: string,
  args: Record<string, unknown>,
): Promise<{ ms: number; items: number }> {
  const tool = hostedTool(toolName);
  const ctx = benchContext(database, {
    userId: w.userId,
    username: w.username,
    workspaceId: w.id,
    workspaceSlug: w.slug,
    tokenId: w.tokenId,
  });
  const start = performance.now();
  const output = (await tool.def.handler(parseToolInput(tool, args), ctx)) as Record<string, unknown[]>;
  renderSuccess(tool, output);
  const ms = performance.now() - start;
  const items =
    toolName === "list_my_tokens"
      ? (output.tokens?.length ?? 0)
      : (output.relationships?.length ?? 0) + (output.trace_citations?.length ?? 0);
  return { ms, items };
}

const rows = [];
for (const p of PAGES) {
  const times = { small: [] as number[], large: [] as number[] };
  let items = { small: 0, large: 0 };
  for (let i = 0; i < 20; i++) {
    await run(small, p.tool, p.args(small));
    await run(large, p.tool, p.args(large));
  }
  for (let i = 0; i < RUNS; i++) {
    const a = await run(small, p.tool, p.args(small));
    const b = await run(large, p.tool, p.args(large));
    times.small.push(a.ms);
    times.large.push(b.ms);
    items = { small: a.items, large: b.items };
  }
  const ratio = median(times.large) / median(times.small);
  rows.push({
    page: p.page,
    items: `${items.small}/${items.large}`,
    [`p50 ms at ${SMALL}`]: +median(times.small).toFixed(3),
    [`p50 ms at ${LARGE}`]: +median(times.large).toFixed(3),
    ratio: +ratio.toFixed(2),
    pass: ratio <= TARGET && items.small === LIMIT && items.large === LIMIT,
  });
}
const summary = {
  small: SMALL,
  large: LARGE,
  runs: RUNS,
  target: `large ≤ ${TARGET}× small, every page`,
  pass: rows.every((r) => r.pass),
  seed_seconds: +seedSeconds.toFixed(1),
  ...machineFacts(),
};
console.table(rows);
console.table([summary]);
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/paged-lists.json", `${JSON.stringify({ summary, rows }, null, 2)}\n`);
const header = Object.keys(rows[0] ?? {});
writeFileSync(
  "bench/results/paged-lists.md",
  `# Paged lists: a page of 20 at ${SMALL} and ${LARGE} rows (bench/paged-lists.ts)\n\n` +
    `${summary.date}, load ${summary.load_average_1m} on ${summary.cpus} CPUs, ${summary.runs} runs, target ${summary.target}: ${summary.pass ? "pass" : "FAIL"}.\n\n` +
    `| ${header.join(" | ")} |\n|${header.map(() => " --- ").join("|")}|\n` +
    rows
      .map((r) => `| ${header.map((h) => String((r as Record<string, unknown>)[h])).join(" | ")} |`)
      .join("\n") +
    "\n",
);
await database.close();
rmSync(dir, { recursive: true, force: true });
