/**
 * Search in a small workspace beside a large one (issue 16, item 1): ranked by our own bm25 over the caller's
 * rows (src/db/search-scoring.ts), which for one word is bm25()'s order exactly; several words weigh by the
 * workspace's own statistics; pages keep the ranking; snippets come from the stored text.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { hexLength, varints } from "../../src/db/search-scoring.js";
import { foldedTokens, phraseCounts, snippetOf, snippetPhrases } from "../../src/db/search-snippet.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { bm25Order, rankedPages, seedRequirements } from "./search-seed.js";

type Results = {
  items: { reference_id: string; score: number; snippet: string }[];
  next_cursor?: string;
  note?: string;
};

let h: Harness;
let small: AuthInfo;
let client: Client;
let plain: AuthInfo;
let plainClient: Client;

beforeAll(async () => {
  h = await createHarness();
  // The large workspace makes "alpha" common in the index as a whole.
  await seedRequirements(
    h.database,
    await h.member("bea", "viewer", "large"),
    3000,
    (n) => `Alpha rule ${n}`,
    (n) => `alpha alpha text ${n}`,
  );
  small = await h.member("sam", "viewer", "small");
  client = await h.connect(small);
  // Frequencies and lengths vary, so the order has something to show: "alpha" 0–3 times in the text,
  // in every 7th title, texts of different lengths (every 5th over 128 words: a two-byte length in FTS5's
  // docsize record); "beta" in every 3rd row; every 13th text not ASCII, with "alpha" accented and hyphenated
  // (counted as FTS5's unicode61 folds and splits it).
  await seedRequirements(
    h.database,
    small,
    240,
    (n) => (n % 7 === 0 ? `Alpha title ${n}` : `Rule ${n}`),
    (n) =>
      `${"alpha ".repeat(n % 4)}${n % 3 === 0 ? "beta " : ""}${n % 13 === 0 ? "ÁLPHA café-alpha " : ""}${"filler ".repeat(n % 11)}${n % 5 === 0 ? "long ".repeat(120 + n) : ""}item ${n}`,
  );
  // ASCII text alone (counted through the lower-cased JSON value): mixed case, punctuation, "alpha" inside
  // longer words that are not it.
  plain = await h.member("pia", "viewer", "plain");
  plainClient = await h.connect(plain);
  await seedRequirements(
    h.database,
    plain,
    120,
    (n) => (n % 6 === 0 ? `ALPHA Title ${n}` : `Rule ${n}`),
    (n) =>
      `${"Alpha, ".repeat(n % 5)}alphabet alpha_x ${"pad ".repeat(n % 9)}${n % 2 === 0 ? "alpha-alpha " : ""}end ${n}`,
  );
}, 120_000);

afterAll(async () => h?.close());

const refs = (r: Results) => r.items.map((i) => i.reference_id);

const allPages = (query: string, limit: number) =>
  rankedPages<Results["items"][number]>(client, query, limit);

describe("our own bm25 in a small workspace", () => {
  test("one word: exactly bm25()'s order, on one page and over many", async () => {
    const expected = await bm25Order(h.database, small, '"alpha"');
    expect(expected.length).toBeGreaterThan(150);
    const whole = await ok<Results>(client, "search_requirements", { query: "alpha", limit: 100 });
    expect(refs(whole)).toEqual(expected.slice(0, 100));
    expect((await allPages("alpha", 7)).map((i) => i.reference_id)).toEqual(expected);
  });

  test("one word in ASCII text alone: exactly bm25()'s order", async () => {
    const expected = await bm25Order(h.database, plain, '"alpha"');
    expect(expected.length).toBeGreaterThan(90);
    const whole = await ok<Results>(plainClient, "search_requirements", { query: "alpha", limit: 100 });
    expect(refs(whole)).toEqual(expected.slice(0, 100));
  });

  test("several words: every row with all of them, best first by score; pages neither skip nor repeat", async () => {
    const items = await allPages("alpha beta", 9);
    const expected = await bm25Order(h.database, small, '"alpha" "beta"');
    expect(items.map((i) => i.reference_id).sort()).toEqual([...expected].sort());
    expect(new Set(items.map((i) => i.reference_id)).size).toBe(items.length);
    const scores = items.map((i) => i.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // "alpha" is in most rows of both the workspace and the index, so both weigh it at bm25's floor (1e-6):
    // "beta" alone orders them, and the workspace's statistics give bm25()'s order.
    expect(items.map((i) => i.reference_id)).toEqual(expected);
  });

  test("snippets mark the matches from the stored text", async () => {
    const r = await ok<Results>(client, "search_requirements", { query: "beta", limit: 3 });
    for (const item of r.items) expect(item.snippet).toContain("**beta**");
  });
});

describe("snippetOf", () => {
  test("marks phrases without case or accents, picks the column with most phrases, cuts to 16 words", () => {
    const phrases = snippetPhrases('"cafe" "e-mail"');
    expect(phrases).toEqual([["cafe"], ["e", "mail"]]);
    expect(snippetOf(["REQ-001", "Café rules", "Send an E-Mail from the café."], phrases)).toBe(
      "Send an **E-Mail** from the **café**.",
    );
    const long = `${"word ".repeat(30)}target ${"more ".repeat(30)}end`;
    const cut = snippetOf(["REQ-002", "Title", long], snippetPhrases('"target"'));
    expect(cut.startsWith("…")).toBe(true);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut).toContain("**target**");
    expect(
      cut
        .replace(/…|\*\*/g, "")
        .trim()
        .split(/\s+/),
    ).toHaveLength(16);
    expect(snippetOf(["REQ-003", "Plain", "nothing here"], snippetPhrases('"req 003"'))).toBe("**REQ-003**");
    expect(
      snippetOf(["REQ-004", "Users", "A user_list for USER-user checks."], snippetPhrases('"user"')),
    ).toBe("A **user**_list for **USER**-**user** checks.");
  });
});

describe("phraseCounts", () => {
  test("counts whole tokens as FTS5's unicode61 splits them, in ASCII and other text alike", () => {
    const words = [["user"], ["9"], ["list"]];
    const texts = [
      "users user USER_x user9 user-user 9 list9 list",
      "User, user; (user) usernames xuser user",
      "Café user café-user user2 9.9",
    ];
    // The reference: count each word among the folded tokens.
    const reference = (text: string) => words.map(([w]) => foldedTokens(text).filter((t) => t === w).length);
    for (const text of texts) expect(phraseCounts(text, words)).toEqual(reference(text));
    expect(phraseCounts(texts[0] as string, words)).toEqual([4, 1, 1]);
    expect(phraseCounts("send an e-mail, an E mail", [["e", "mail"], ["an"]])).toEqual([2, 2]);
  });
});

describe("hexLength", () => {
  test("sums a docsize record's varints from SQLite's hex(), as varints() reads the bytes", () => {
    const records = [
      [0x01, 0x02, 0x1e, 0x01, 0x00, 0x00, 0x00],
      [0x02, 0x07, 0x81, 0x05, 0x01, 0x00, 0x00, 0x00],
      [0xff, 0x7f, 0x83, 0xff, 0x7f],
      [0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0xff, 0x03],
      [0x85],
      [],
    ];
    for (const bytes of records) {
      const hex = Buffer.from(bytes).toString("hex").toUpperCase();
      expect(hexLength(hex)).toBe(varints(new Uint8Array(bytes)).reduce((a, b) => a + b, 0));
    }
    expect(hexLength("0102810501000000")).toBe(1 + 2 + 133 + 1);
  });
});
