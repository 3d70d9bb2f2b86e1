/**
 * Search past RANKED_CANDIDATES matches and across workspaces (issue 16, item 1): a small match set keeps full
 * bm25 order; a large one returns its newest RANKED_CANDIDATES, title hits first, says so, and pages through
 * them without gaps or repeats; a workspace never sees another's rows, whichever way it is searched.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { CAPPED_NOTE } from "../../src/db/search.repo.js";
import { RANKED_CANDIDATES } from "../../src/db/search-ranking.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { seedRequirements } from "./search-seed.js";

type Results = {
  items: { reference_id: string; score: number; exact_match: boolean }[];
  next_cursor?: string;
  note?: string;
};

const ROWS = RANKED_CANDIDATES + 200;
let h: Harness;
let big: AuthInfo;
let client: Client;
let tiny: Client;

beforeAll(async () => {
  h = await createHarness();
  big = await h.member("sam", "viewer");
  client = await h.connect(big);
  // Every requirement mentions "widget"; every tenth has it in its title; every 250th is about "sprocket",
  // some of those twice, so bm25 has something to order.
  await seedRequirements(
    h.database,
    big,
    ROWS,
    (n) => (n % 10 === 0 ? `Widget rule ${n}` : `Rule ${n}`),
    (n) =>
      `The widget must hold ${n}.${n % 250 === 0 ? " Sprocket.".repeat(1 + (n % 3)) : ""}${n % 500 === 0 ? " Sprocket in title too." : ""}`,
  );
  const small = await h.member("tia", "viewer", "tiny");
  tiny = await h.connect(small);
  await seedRequirements(
    h.database,
    small,
    3,
    (n) => `Tiny widget ${n}`,
    (n) => `Only the tiny team's widget ${n}.`,
  );
}, 120_000);

afterAll(async () => h?.close());

const refs = (r: Results) => r.items.map((i) => i.reference_id);
const num = (ref: string) => Number(ref.slice(4));

describe("more matches than are ranked", () => {
  test("the newest ones come, title hits first, each group newest first; the answer says so; pages neither skip nor repeat", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await ok<Results>(client, "search_requirements", {
        query: "widget",
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      expect(r.note).toBe(CAPPED_NOTE);
      seen.push(...refs(r));
      cursor = r.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toHaveLength(RANKED_CANDIDATES);
    expect(new Set(seen).size).toBe(RANKED_CANDIDATES);
    // The newest RANKED_CANDIDATES of the ROWS matches: the oldest 200 are left out.
    expect(Math.min(...seen.map(num))).toBe(ROWS - RANKED_CANDIDATES + 1);
    const titled = seen.filter((r) => num(r) % 10 === 0);
    expect(seen.slice(0, titled.length)).toEqual(titled);
    expect(titled.map(num)).toEqual([...titled.map(num)].sort((a, b) => b - a));
    const rest = seen.slice(titled.length).map(num);
    expect(rest).toEqual([...rest].sort((a, b) => b - a));
  }, 60_000);

  test("another workspace's rows never appear, and its own search is ranked by bm25 without a note", async () => {
    const r = await ok<Results>(tiny, "search_requirements", { query: "widget" });
    expect(refs(r).sort()).toEqual(["REQ-001", "REQ-002", "REQ-003"]);
    expect(r.note).toBeUndefined();
    const mine = await ok<Results>(client, "search_requirements", { query: "tiny team" });
    expect(mine.items).toEqual([]);
  });
});

describe("fewer matches than are ranked", () => {
  test("keep full bm25 order, the same on one page as over many", async () => {
    const whole = await ok<Results>(client, "search_requirements", { query: "sprocket", limit: 100 });
    expect(whole.note).toBeUndefined();
    // Full bm25 over the workspace, straight from FTS5, as the reference order.
    const lo = big.workspaceId * 4_294_967_296;
    const expected = await h.database.read((db) =>
      db.all<{ reference_id: string }>(sql`SELECT reference_id FROM search_fts
        WHERE search_fts MATCH ${'{reference_id title description}: ("sprocket")'}
          AND rowid BETWEEN ${lo} AND ${lo + 4_294_967_295}
        ORDER BY bm25(search_fts, 10.0, 5.0, 1.0, 0.0), rowid`),
    );
    expect(refs(whole)).toEqual(expected.map((e) => e.reference_id));
    expect(whole.items.length).toBe(Math.floor(ROWS / 250));
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await ok<Results>(client, "search_requirements", {
        query: "sprocket",
        limit: 3,
        ...(cursor ? { cursor } : {}),
      });
      paged.push(...refs(r));
      cursor = r.next_cursor;
    } while (cursor);
    expect(paged).toEqual(refs(whole));
  });
});
