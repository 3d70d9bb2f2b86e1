/**
 * A page of list_suspect_links or list_my_tokens costs what it returns: the statements the repositories
 * really send (recorded from the libSQL client) are planned by SQLite as index searches in the page's order,
 * never a scan of a table or a sort of the workspace's rows. Checked with EXPLAIN QUERY PLAN on a migrated
 * database holding rows of two workspaces.
 */
import { type Client, createClient, type InStatement } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMemberOp, createTokenOp, createWorkspaceOp } from "../../src/db/admin-ops.js";
import { databaseFromClient } from "../../src/db/client.js";
import type { Database, Executor } from "../../src/db/database.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { listOwnTokens } from "../../src/db/own-tokens.repo.js";
import { suspectLinksPage } from "../../src/db/suspect-links.repo.js";

let client: Client;
let database: Database;
let recorded: InStatement[];
let ex: Executor;
let workspaceId: number;
let userId: number;
let tokenId: number;

beforeAll(async () => {
  client = createClient({ url: ":memory:" });
  database = databaseFromClient(client);
  await migrateDatabase(database);
  const cli = { actor: { kind: "cli" as const }, now: new Date() };
  for (const slug of ["one", "two"]) {
    await createWorkspaceOp(database, cli, { slug, name: slug });
    await addMemberOp(database, cli, { username: "ann", role: "editor", workspace: slug });
    for (let i = 0; i < 3; i++)
      await createTokenOp(database, cli, { username: "ann", name: `t${i}`, workspace: slug });
  }
  const ws = await client.execute("SELECT id FROM workspaces WHERE slug = 'one'");
  workspaceId = Number(ws.rows[0]?.id);
  const user = await client.execute("SELECT id FROM users WHERE username = 'ann'");
  userId = Number(user.rows[0]?.id);
  const token = await client.execute({
    sql: "SELECT max(id) AS id FROM tokens WHERE workspace_id = ?",
    args: [workspaceId],
  });
  tokenId = Number(token.rows[0]?.id);
  for (const [repository, commit] of [
    ["acme/a", "a".repeat(40)],
    ["acme/b", "b".repeat(40)],
  ] as const) {
    await client.execute({
      sql: `INSERT INTO trace_snapshots (workspace_id, repository, commit_sha, scanned_at, content_hash,
              citation_count, orphan_count, created_at, updated_at)
            VALUES (?, ?, ?, '2026-01-01T00:00:00.000Z', 'x', 0, 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      args: [workspaceId, repository, commit],
    });
  }
  recorded = [];
  // The statements drizzle sends, recorded on their way to the real client.
  const recording = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "execute") {
        return (stmt: InStatement) => {
          recorded.push(stmt);
          return target.execute(stmt);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  ex = drizzle(recording) as unknown as Executor;
});
afterAll(async () => database?.close());

/** EXPLAIN QUERY PLAN of every recorded statement touching `table`. */
async function plans(table: string): Promise<string[][]> {
  const out: string[][] = [];
  for (const stmt of recorded) {
    const sql = typeof stmt === "string" ? stmt : stmt.sql;
    if (!new RegExp(`\\bFROM "?${table}"?`, "i").test(sql)) continue;
    const args = typeof stmt === "string" ? [] : stmt.args;
    const rs = await client.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: args as never });
    out.push(rs.rows.map((r) => String(r.detail)));
  }
  return out;
}

function expectIndexed(plan: string[], table: string, index: string) {
  const joined = plan.join("\n");
  expect(joined, joined).toMatch(new RegExp(`SEARCH "?${table}"? USING (COVERING )?INDEX ${index} \\(`));
  expect(joined, joined).not.toMatch(/TEMP B-TREE/);
  expect(joined, joined).not.toMatch(/^SCAN /m);
}

describe("paged lists are planned on their indexes", () => {
  it("list_suspect_links: relationships by (workspace, id), citations by the pinned-citations index", async () => {
    const pages = [
      { limit: 5 },
      { limit: 5, epicRowId: 3 },
      { limit: 5, from: ["r", 7] as ["r", number] },
      {
        limit: 5,
        from: ["c", "acme/a", "src/x.ts", 12, "REQ-001", 40] as ["c", string, string, number, string, number],
      },
      { limit: 5, epicRowId: 3, from: ["c"] as ["c"] },
    ];
    for (const page of pages) {
      recorded = [];
      await suspectLinksPage(ex, workspaceId, page);
      const relationshipPlans = await plans("relationships");
      const citationPlans = await plans("trace_citations");
      if (page.from === undefined || page.from[0] === "r") expect(relationshipPlans).toHaveLength(1);
      else expect(relationshipPlans).toHaveLength(0);
      for (const plan of relationshipPlans)
        expectIndexed(plan, "relationships", "relationships_workspace_id");
      expect(citationPlans.length).toBeGreaterThan(0);
      for (const plan of citationPlans) expectIndexed(plan, "trace_citations", "trace_citations_pinned");
    }
    // The keyset reaches the index: a range on (workspace, id), and on the citation key after the snapshot.
    recorded = [];
    await suspectLinksPage(ex, workspaceId, { limit: 5, from: ["r", 7] });
    expect((await plans("relationships"))[0]?.join("\n")).toContain("workspace_id=? AND id>?");
    recorded = [];
    await suspectLinksPage(ex, workspaceId, { limit: 5, from: ["c", "acme/a", "f", 1, "REQ-001", 4] });
    expect((await plans("trace_citations"))[0]?.join("\n")).toContain(
      "snapshot_id=? AND (file,line,reference_id)>",
    );
  });

  it("list_my_tokens: the holder's tokens by (user, workspace, id), newest first", async () => {
    const holder = { userId, workspaceId, role: "editor" as const, tokenId, isOwner: false };
    for (const cursor of [undefined, (await listOwnTokens(ex, holder, { limit: 1 })).next_cursor]) {
      recorded = [];
      const page = await listOwnTokens(ex, holder, { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.tokens.length).toBeGreaterThan(0);
      const tokenPlans = await plans("tokens");
      expect(tokenPlans).toHaveLength(1);
      for (const plan of tokenPlans) expectIndexed(plan, "tokens", "tokens_user_workspace");
      if (cursor) expect(tokenPlans[0]?.join("\n")).toContain("user_id=? AND workspace_id=? AND id<?");
    }
  });
});
