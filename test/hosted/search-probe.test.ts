/**
 * A large workspace's first page guesses from a probe (its oldest 250 matches, scaled by the rowids they
 * span) whether a query has more matches than are ranked, and takes the cheaper path at once (issue 16,
 * item 1). A guess is only a cost: below the bound the answer is bm25()'s full ranking, above it the newest
 * matches with the note, whichever way the probe guessed; paging keeps every row once across the switch.
 * Words are placed so that the probe guesses right (uniform rows), too many (matches crowd the oldest rows)
 * and too few (they crowd the newest).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { CAPPED_NOTE } from "../../src/db/search.repo.js";
import { RANKED_CANDIDATES } from "../../src/db/search-ranking.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { bm25Order, searchAllPages, seedNumbered } from "./search-seed.js";

type Item = { reference_id: string; title: string; score: number };
type Results = { items: Item[]; next_cursor?: string; note?: string };

/** More than the 20,000 rows under which a workspace is searched through its workspace term. */
const ROWS = 27_000;
let h: Harness;
let large: AuthInfo;
let client: Client;

beforeAll(async () => {
  h = await createHarness();
  large = await h.member("pia", "viewer", "probed");
  client = await h.connect(large);
  // "alpha beta": 2,250 rows spread evenly (each word in under a fifth of the rows, so bm25() ranks them);
  // "kappa lambda": every one of the oldest 1,200 rows, then one in fifty (1,716); "mango nectar": one in
  // sixty of the oldest 20,000, then every one of the newest 4,800 (5,133); "omega sigma": one in six of the
  // oldest 5,400, then one in five (5,220; the probe scales its first 250 to about 4,500); "psi chi": one in
  // five of the oldest 5,000, then one in six (4,666; scaled to about 5,400); "widget gadget": about a third.
  await seedNumbered(
    h.database,
    large,
    ROWS,
    sql`CASE WHEN i > 22200 AND i % 45 = 0 THEN 'Mango nectar ' || i WHEN i > 5400 AND i % 85 = 0 THEN 'Omega sigma ' || i
             WHEN i <= 1200 AND i % 40 = 0 THEN 'Kappa ' || i
             WHEN i % 30 = 0 THEN 'Alpha rule ' || i WHEN i % 9 = 0 THEN 'Widget gadget ' || i ELSE 'Rule ' || i END`,
    sql`(CASE WHEN i % 6 = 0 THEN 'alpha ' ELSE '' END) || (CASE WHEN i % 18 = 0 THEN 'alpha ' ELSE '' END)
          || (CASE WHEN (i % 6 = 0 AND i % 4 != 0) OR (i % 13 = 0 AND i % 6 != 0) THEN 'beta ' ELSE '' END)
          || (CASE WHEN i % 10 < 6 THEN 'widget ' ELSE '' END) || (CASE WHEN i % 10 >= 3 THEN 'gadget ' ELSE '' END)
          || (CASE WHEN i <= 1200 OR i % 50 = 0 THEN 'kappa lambda ' ELSE '' END)
          || (CASE WHEN i % 11 = 0 AND i <= 1200 THEN 'lambda ' ELSE '' END)
          || (CASE WHEN (i <= 20000 AND i % 60 = 0) OR i > 22200 THEN 'mango nectar ' ELSE '' END)
          || (CASE WHEN (i <= 5400 AND i % 6 = 0) OR (i > 5400 AND i % 5 = 0) THEN 'omega sigma ' ELSE '' END)
          || (CASE WHEN (i <= 5000 AND i % 5 = 0) OR (i > 5000 AND i % 6 = 0) THEN 'psi chi ' ELSE '' END)
          || substr('filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler filler ', 1, (i % 29) * 7) || 'item ' || i`,
  );
}, 180_000);

afterAll(async () => h?.close());

const phrasesOf = (query: string) =>
  query
    .split(" ")
    .map((w) => `"${w}"`)
    .join(" ");
const refs = (items: Item[]) => items.map((i) => i.reference_id);
const num = (ref: string) => Number(ref.slice(4));

const allPages = (query: string, limit: number) => searchAllPages<Item>(client, query, limit);

/** Every match of the workspace, newest first: the newest RANKED_CANDIDATES are what a capped search lists. */
async function newestMatches(phrases: string): Promise<string[]> {
  const lo = large.workspaceId * 4_294_967_296;
  const rows = await h.database.read((db) =>
    db.all<{ reference_id: string }>(sql`SELECT reference_id FROM search_fts
      WHERE search_fts MATCH ${`{reference_id title description}: (${phrases})`}
        AND rowid BETWEEN ${lo} AND ${lo + 4_294_967_295} AND rowid % 8 = 3
      ORDER BY rowid DESC`),
  );
  return rows.map((r) => r.reference_id);
}

describe("fewer matches than are ranked: bm25()'s full ranking, whatever the probe guessed", () => {
  for (const [query, why] of [
    ["alpha beta", "spread evenly (the probe guesses few)"],
    ["kappa lambda", "crowding the oldest rows (the probe guesses too many)"],
    ["psi chi", "a little under the bound (the probe guesses just over it: they are counted)"],
  ] as const) {
    test(`${why}: bm25()'s order on the first page and over every page, every row once`, async () => {
      const expected = await bm25Order(h.database, large, phrasesOf(query));
      expect(expected.length).toBeGreaterThan(1000);
      expect(expected.length).toBeLessThan(RANKED_CANDIDATES);
      const first = await ok<Results>(client, "search_requirements", { query, limit: 25 });
      expect(first.note).toBeUndefined();
      expect(refs(first.items)).toEqual(expected.slice(0, 25));
      const all = await allPages(query, 100);
      expect(all.notes.every((n) => n === undefined)).toBe(true);
      expect(refs(all.items)).toEqual(expected);
    }, 120_000);
  }
});

describe("more matches than are ranked: the newest, title hits first, with the note", () => {
  for (const [query, why] of [
    ["widget gadget", "spread evenly (the probe guesses many)"],
    ["mango nectar", "crowding the newest rows (the probe guesses too few)"],
    ["omega sigma", "a little over the bound (the probe guesses just under it)"],
  ] as const) {
    test(`${why}: the newest ${RANKED_CANDIDATES} once each across pages, title hits first`, async () => {
      const newest = await newestMatches(phrasesOf(query));
      expect(newest.length).toBeGreaterThan(RANKED_CANDIDATES);
      const first = await ok<Results>(client, "search_requirements", { query, limit: 20 });
      expect(first.note).toBe(CAPPED_NOTE);
      const [a, b] = query.split(" ") as [string, string];
      const titled = (i: Item) => i.title.toLowerCase().includes(a) && i.title.toLowerCase().includes(b);
      expect(first.items.every(titled)).toBe(true);
      const numbers = first.items.map((i) => num(i.reference_id));
      expect(numbers).toEqual([...numbers].sort((x, y) => y - x));
      const all = await allPages(query, 100);
      expect(all.notes.every((n) => n === CAPPED_NOTE)).toBe(true);
      const got = refs(all.items);
      expect(new Set(got).size).toBe(got.length);
      expect([...got].sort()).toEqual(newest.slice(0, RANKED_CANDIDATES).sort());
      // Title hits first, each group newest first.
      const split = all.items.findIndex((i) => !titled(i));
      expect(split).toBeGreaterThan(0);
      expect(all.items.slice(split).some(titled)).toBe(false);
      for (const group of [all.items.slice(0, split), all.items.slice(split)]) {
        const ns = group.map((i) => num(i.reference_id));
        expect(ns).toEqual([...ns].sort((x, y) => y - x));
      }
    }, 120_000);
  }
});
