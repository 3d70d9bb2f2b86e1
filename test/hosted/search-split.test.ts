/**
 * Several words in a large workspace (issue 16, item 1): when a word is common, search-split.ts ranks the
 * rare words by bm25() and counts the common ones in the rows that can still reach the page, instead of
 * letting bm25() walk the common word's whole doclist. Below the candidate bound its results are bm25()'s:
 * the same rows, in the same order (a small index weighs common words by their exact counts, as bm25() does).
 * A workspace never sees or counts another's rows. A large workspace's first page counts and ranks in one
 * query: bm25()'s order below the bound, the newest title hits with the note above it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { CAPPED_NOTE } from "../../src/db/search.repo.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { bm25Order, rankedPages, seedNumbered, seedRequirements } from "./search-seed.js";

type Results = {
  items: { reference_id: string; title: string; score: number }[];
  next_cursor?: string;
  note?: string;
};

/** More than the 20,000 rows under which a workspace is searched through its workspace term. */
const ROWS = 21_000;
let h: Harness;
let large: AuthInfo;
let other: AuthInfo;
let client: Client;
let otherClient: Client;

beforeAll(async () => {
  h = await createHarness();
  large = await h.member("lea", "viewer", "large");
  other = await h.member("oli", "viewer", "other");
  client = await h.connect(large);
  otherClient = await h.connect(other);
  // One INSERT … SELECT (the triggers index each row): "widget" in 60% of the rows (bm25 weighs it at its
  // floor), "gadget" in 35%, "sprocket" in about one row in eleven; frequencies, titles and lengths vary.
  await seedNumbered(
    h.database,
    large,
    ROWS,
    sql`CASE WHEN i % 9 = 0 THEN 'Widget gear ' || i WHEN i % 13 = 0 THEN 'Sprocket part ' || i
             WHEN i % 17 = 0 THEN 'Gadget tool ' || i ELSE 'Rule ' || i END`,
    sql`(CASE WHEN i % 10 < 6 THEN 'widget ' ELSE '' END) || (CASE WHEN i % 4 = 0 THEN 'widget ' ELSE '' END)
          || (CASE WHEN i % 10 >= 7 THEN 'gadget ' ELSE '' END) || (CASE WHEN i % 20 = 1 THEN 'gadget gadget ' ELSE '' END)
          || (CASE WHEN i % 37 = 0 THEN 'sprocket ' WHEN i % 41 = 0 THEN 'sprocket sprocket ' ELSE '' END)
          || substr('filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler ', 1, (i % 29) * 7) || 'item ' || i`,
  );
  // Another tenant with the same words: never shown to or counted for the large workspace.
  await seedRequirements(
    h.database,
    other,
    40,
    (n) => `Other tenant sprocket widget ${n}`,
    (n) => `sprocket widget gadget sprocket ${n}`,
  );
}, 180_000);

afterAll(async () => h?.close());

const refs = (r: Results["items"]) => r.map((i) => i.reference_id);

const allPages = (c: Client, query: string, limit: number) =>
  rankedPages<Results["items"][number]>(c, query, limit);

/** The ranking a cursor names (its bound: -2 is the split ranking). */
const rankingOf = (cursor: string | undefined) =>
  cursor ? (JSON.parse(Buffer.from(cursor, "base64url").toString()) as { k: number[] }).k[3] : undefined;

describe("several words, one of them common, in a large workspace", () => {
  test("a common word at bm25's floor: bm25()'s order on one page and over many; every row once", async () => {
    const expected = await bm25Order(h.database, large, '"sprocket" "widget"');
    expect(expected.length).toBeGreaterThan(500);
    expect(expected.length).toBeLessThan(5000);
    const first = await ok<Results>(client, "search_requirements", { query: "sprocket widget", limit: 50 });
    expect(rankingOf(first.next_cursor)).toBe(-2);
    expect(refs(first.items)).toEqual(expected.slice(0, 50));
    // Past the first 1,500 rows in the rare word's order (MAX_REFINED) rows keep that word's score: every
    // row still comes once, in an order that holds from page to page.
    const all = refs(await allPages(client, "sprocket widget", 100));
    expect(all.slice(0, 1000)).toEqual(expected.slice(0, 1000));
    expect([...all].sort()).toEqual([...expected].sort());
    expect(new Set(all).size).toBe(all.length);
  });

  test("a common word above the floor: bm25()'s order, scores best first; pages neither skip nor repeat", async () => {
    const expected = await bm25Order(h.database, large, '"sprocket" "gadget"');
    expect(expected.length).toBeGreaterThan(100);
    const first = await ok<Results>(client, "search_requirements", { query: "sprocket gadget", limit: 60 });
    expect(rankingOf(first.next_cursor)).toBe(-2);
    const items = await allPages(client, "sprocket gadget", 60);
    expect([...refs(items)].sort()).toEqual([...expected].sort());
    expect(new Set(refs(items)).size).toBe(items.length);
    const scores = items.map((i) => i.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // A small index weighs its common words by their exact counts, as bm25() does: the same order.
    expect(refs(items)).toEqual(expected);
  });

  test("neither tenant sees or counts the other's rows", async () => {
    const mine = await allPages(client, "sprocket widget", 100);
    expect(mine.some((i) => i.title.startsWith("Other tenant"))).toBe(false);
    const theirs = await allPages(otherClient, "sprocket widget", 7);
    expect(theirs).toHaveLength(40);
    expect(theirs.every((i) => i.title.startsWith("Other tenant"))).toBe(true);
  });
});

describe("a large workspace's first page counts and ranks in one query", () => {
  test("one word with fewer matches than are ranked: bm25()'s order", async () => {
    const expected = await bm25Order(h.database, large, '"sprocket"');
    expect(expected.length).toBeGreaterThan(1000);
    expect(refs(await allPages(client, "sprocket", 100))).toEqual(expected);
  });

  test("a word with more: the newest title hits first, newest first, and the note", async () => {
    const r = await ok<Results>(client, "search_requirements", { query: "gadget", limit: 20 });
    expect(r.note).toBe(CAPPED_NOTE);
    expect(r.items.every((i) => i.title.startsWith("Gadget tool"))).toBe(true);
    const numbers = r.items.map((i) => Number(i.reference_id.slice(4)));
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    expect(numbers[0]).toBeGreaterThan(ROWS - 40);
  });
});
