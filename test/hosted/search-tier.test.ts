/**
 * Several words, none of them common, in a large workspace (issue 16, item 1): when enough matches hold every
 * word in their reference id or title, search-tier.ts ranks those first, by bm25 computed from their stored
 * text (words the workspace's sample finds rare are counted as bm25() counts them, so the order within the
 * tier is bm25()'s), then the other matches in bm25()'s order. Pages neither skip nor repeat, across the
 * switch from the tier to the rest too; filters and the tenant guard hold in both.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { bm25Order, searchAllPages, seedNumbered, seedRequirements } from "./search-seed.js";

type Item = { reference_id: string; title: string; score: number };
type Results = { items: Item[]; next_cursor?: string; note?: string };

/** More than the 20,000 rows under which a workspace is searched through its workspace term. */
const ROWS = 21_000;
let h: Harness;
let large: AuthInfo;
let client: Client;
let otherClient: Client;

beforeAll(async () => {
  h = await createHarness();
  large = await h.member("tia", "viewer", "tiered");
  const other = await h.member("oto", "viewer", "elsewhere");
  client = await h.connect(large);
  otherClient = await h.connect(other);
  // "alpha beta" (about 1.5% of the rows each, so both are counted exactly): both words in the title of one
  // row in 200, in the text of one in 200 more, alpha in the title and beta in the text of one in 201; row
  // 777 has both only in its short text, ten times each (bm25() ranks it third). "gamma delta" (about 18%
  // and 12%: weighed from the sample; about 2,000 matches, so the probe guesses and the tier counts them):
  // both in the title of one row in 70, both in the text of one in 12 more.
  await seedNumbered(
    h.database,
    large,
    ROWS,
    sql`CASE WHEN i % 200 = 0 THEN 'Alpha beta ' || i WHEN i % 201 = 0 THEN 'Alpha rule ' || i
             WHEN i % 70 = 0 THEN 'Gamma delta ' || i ELSE 'Rule ' || i END`,
    sql`CASE WHEN i = 777 THEN 'alpha alpha alpha alpha alpha alpha alpha alpha alpha alpha beta beta beta beta beta beta beta beta beta beta'
             ELSE (CASE WHEN i % 100 = 0 AND i % 200 != 0 THEN 'alpha beta ' ELSE '' END)
               || (CASE WHEN i % 201 = 0 THEN 'beta ' ELSE '' END)
               || (CASE WHEN i % 6 = 0 THEN 'gamma ' ELSE '' END)
               || (CASE WHEN i % 12 = 6 OR i % 35 = 0 THEN 'delta ' ELSE '' END)
               || (CASE WHEN i % 200 = 0 AND i % 400 = 0 THEN 'alpha ' ELSE '' END)
               || substr('filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler ', 1, (i % 29) * 7) || 'item ' || i END`,
  );
  // Half the rows Active, so a filter applies inside the tier and outside it.
  await h.database.write((tx) =>
    tx.run(sql`UPDATE requirements SET status = 'Active'
      WHERE workspace_id = ${large.workspaceId} AND CAST(substr(reference_id, 5) AS INTEGER) % 2 = 0`),
  );
  // Another tenant whose every row has both words in its title: never shown to or counted for the large one.
  await seedRequirements(
    h.database,
    other,
    30,
    (n) => `Alpha beta gamma delta ${n}`,
    (n) => `alpha beta ${n}`,
  );
}, 180_000);

afterAll(async () => h?.close());

const refs = (items: Item[]) => items.map((i) => i.reference_id);
/** The ranking a cursor names (its bound: -3 is the title tier). */
const rankingOf = (cursor: string | undefined) =>
  cursor ? (JSON.parse(Buffer.from(cursor, "base64url").toString()) as { k: number[] }).k[3] : undefined;

/** The large workspace's matches with every word in the reference id or title. */
async function titleTier(phrases: string): Promise<Set<string>> {
  const lo = large.workspaceId * 4_294_967_296;
  const rows = await h.database.read((db) =>
    db.all<{ reference_id: string }>(sql`SELECT reference_id FROM search_fts
      WHERE search_fts MATCH ${`{reference_id title}: (${phrases})`}
        AND rowid BETWEEN ${lo} AND ${lo + 4_294_967_295} AND rowid % 8 = 3`),
  );
  return new Set(rows.map((r) => r.reference_id));
}

describe("several words with enough title hits, in a large workspace", () => {
  test("words counted exactly: the tier in bm25()'s order, then the rest in bm25()'s order; every row once", async () => {
    const bm25 = await bm25Order(h.database, large, '"alpha" "beta"');
    const tier = await titleTier('"alpha" "beta"');
    expect(tier.size).toBe(105);
    expect(bm25.length).toBeGreaterThan(300);
    const expected = [...bm25.filter((r) => tier.has(r)), ...bm25.filter((r) => !tier.has(r))];
    // The trade-off: a row with the words only in its text, many times over, ranks after the tier.
    expect(bm25.indexOf("REQ-00777")).toBe(2);
    expect(expected.indexOf("REQ-00777")).toBe(tier.size);

    const first = await ok<Results>(client, "search_requirements", { query: "alpha beta", limit: 10 });
    expect(first.note).toBeUndefined();
    expect(rankingOf(first.next_cursor)).toBe(-3);
    expect(refs(first.items)).toEqual(expected.slice(0, 10));
    const scores = first.items.map((i) => i.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Pages of 25 cross from the tier (105 rows) into the rest within one page.
    const all = await searchAllPages<Item>(client, "alpha beta", 25);
    expect(all.notes.every((n) => n === undefined)).toBe(true);
    expect(refs(all.items)).toEqual(expected);
  }, 120_000);

  test("words weighed from the sample: the tier first, best first, then the rest in bm25()'s order", async () => {
    const bm25 = await bm25Order(h.database, large, '"gamma" "delta"');
    const tier = await titleTier('"gamma" "delta"');
    expect(tier.size).toBeGreaterThan(200);
    expect(bm25.length).toBeGreaterThan(1000);
    const all = await searchAllPages<Item>(client, "gamma delta", 100);
    const got = refs(all.items);
    expect([...got].sort()).toEqual([...bm25].sort());
    expect(new Set(got.slice(0, tier.size))).toEqual(tier);
    const tierScores = all.items.slice(0, tier.size).map((i) => i.score);
    expect(tierScores).toEqual([...tierScores].sort((a, b) => b - a));
    expect(got.slice(tier.size)).toEqual(bm25.filter((r) => !tier.has(r)));
    const first = await ok<Results>(client, "search_requirements", { query: "gamma delta", limit: 20 });
    expect(rankingOf(first.next_cursor)).toBe(-3);
    expect(refs(first.items)).toEqual(got.slice(0, 20));
  }, 120_000);

  test("a filter applies in the tier and in the rest", async () => {
    const all = await searchAllPages<Item>(client, "alpha beta", 40);
    const active = all.items.filter((i) => Number(i.reference_id.slice(4)) % 2 === 0);
    expect(active.length).toBeGreaterThan(150);
    const pages: Item[] = [];
    let cursor: string | undefined;
    do {
      const r = await ok<Results>(client, "search_requirements", {
        query: "alpha beta",
        status: "Active",
        limit: 15,
        ...(cursor ? { cursor } : {}),
      });
      pages.push(...r.items);
      cursor = r.next_cursor;
    } while (cursor);
    expect(refs(pages)).toEqual(refs(active));
  }, 120_000);

  test("neither tenant sees or counts the other's rows", async () => {
    const mine = await searchAllPages<Item>(client, "alpha beta", 100);
    expect(mine.items.every((i) => !i.title.startsWith("Alpha beta gamma"))).toBe(true);
    const theirs = await searchAllPages<Item>(otherClient, "alpha beta", 100);
    expect(theirs.items).toHaveLength(30);
    expect(theirs.items.every((i) => i.title.startsWith("Alpha beta gamma"))).toBe(true);
  }, 120_000);
});
