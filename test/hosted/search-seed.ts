/**
 * Bulk rows for the search tests: `rows` requirements in one new epic and story of `auth`'s workspace,
 * written with plain INSERTs (the tools would take minutes at these sizes); `title`/`text` give their words.
 * And the reference ranking the search tests compare against, and every page of a search.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type SQL, sql } from "drizzle-orm";
import { expect } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import type { Database } from "../../src/db/database.js";
import { insertEpicAndStory } from "../helpers/seed-parents.js";
import { ok } from "./harness.js";

/**
 * `rows` requirements (REQ-00001 on) in one new epic and story, in one INSERT … SELECT (the triggers index
 * each row): `title` and `description` are SQL expressions of the row number `i`.
 */
export async function seedNumbered(
  database: Database,
  auth: AuthInfo,
  rows: number,
  title: SQL,
  description: SQL,
): Promise<void> {
  await database.write(async (tx) => {
    const ws = auth.workspaceId;
    await insertEpicAndStory(tx, ws);
    await tx.run(sql`
      INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id)
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
      SELECT ${ws}, 'REQ-' || printf('%05d', i), (SELECT id FROM user_stories WHERE workspace_id = ${ws}),
        ${title}, ${description}, (SELECT min(id) FROM requirement_types WHERE workspace_id = ${ws})
      FROM n`);
  });
}

export async function seedRequirements(
  database: Database,
  auth: AuthInfo,
  rows: number,
  title: (n: number) => string,
  text: (n: number) => string,
): Promise<void> {
  await database.write(async (tx) => {
    const ws = auth.workspaceId;
    await insertEpicAndStory(tx, ws);
    for (let n = 1; n <= rows; n++) {
      await tx.run(sql`INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id)
        VALUES (${ws}, ${`REQ-${String(n).padStart(3, "0")}`}, (SELECT id FROM user_stories WHERE workspace_id = ${ws}),
          ${title(n)}, ${text(n)}, (SELECT min(id) FROM requirement_types WHERE workspace_id = ${ws}))`);
    }
  });
}

/** bm25() over one workspace's requirement rows, straight from FTS5: the full ranking search must give. */
export async function bm25Order(database: Database, auth: AuthInfo, phrases: string): Promise<string[]> {
  const lo = auth.workspaceId * 4_294_967_296;
  const rows = await database.read((db) =>
    db.all<{ reference_id: string }>(sql`SELECT reference_id FROM search_fts
      WHERE search_fts MATCH ${`{reference_id title description}: (${phrases})`}
        AND rowid BETWEEN ${lo} AND ${lo + 4_294_967_295} AND rowid % 8 = 3
      ORDER BY bm25(search_fts, 10.0, 5.0, 1.0, 0.0), rowid`),
  );
  return rows.map((r) => r.reference_id);
}

/** search_requirements for `query`, `limit` a page, following next_cursor to the end: the items in order, each page's note. */
export async function searchAllPages<I>(
  client: Client,
  query: string,
  limit: number,
): Promise<{ items: I[]; notes: (string | undefined)[] }> {
  const items: I[] = [];
  const notes: (string | undefined)[] = [];
  let cursor: string | undefined;
  do {
    const r = await ok<{ items: I[]; next_cursor?: string; note?: string }>(client, "search_requirements", {
      query,
      limit,
      ...(cursor ? { cursor } : {}),
    });
    notes.push(r.note);
    items.push(...r.items);
    cursor = r.next_cursor;
  } while (cursor);
  return { items, notes };
}

/** Every page of a fully ranked search: none of them may carry the capped note. */
export async function rankedPages<I>(client: Client, query: string, limit: number): Promise<I[]> {
  const { items, notes } = await searchAllPages<I>(client, query, limit);
  expect(notes.every((n) => n === undefined)).toBe(true);
  return items;
}
