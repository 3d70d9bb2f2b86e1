import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Bm25Index, STOPWORDS, tokenize } from "../../../src/local/ixchel/bm25.js";

describe("tokenize", () => {
  it("lowercases, folds accents, splits on anything but letters and digits, drops stopwords and single letters", () => {
    expect(tokenize("The Café-Bar of São Paulo, v2 & a 7!")).toEqual([
      "cafe",
      "bar",
      "sao",
      "paulo",
      "v2",
      "7",
    ]);
    expect(tokenize("dec-1a2b3c")).toEqual(["dec", "1a2b3c"]);
  });

  it("splits plain ASCII exactly like the Unicode rule does", () => {
    const reference = (text: string) =>
      (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
        (w) => (w.length >= 2 || /^\d$/.test(w)) && !STOPWORDS.has(w),
      );
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(..."aZ9_- .,:#\t\nthe and of to is A".split("")), maxLength: 60 }),
        (text) => {
          expect(tokenize(text)).toEqual(reference(text));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

function build(docs: Record<string, { title?: string; tags?: string[]; body?: string; kind?: string }>) {
  const index = new Bm25Index<{ kind: string }>();
  for (const [key, d] of Object.entries(docs)) {
    index.add(
      key,
      { title: d.title ?? "", tags: d.tags ?? [], body: d.body ?? "" },
      { kind: d.kind ?? "issue" },
    );
  }
  return index;
}

describe("Bm25Index", () => {
  it("ranks a title match above a body match of the same word", () => {
    const index = build({
      a: { title: "notes", body: "something about caching here" },
      b: { title: "caching strategy", body: "notes" },
      c: { title: "unrelated", body: "nothing" },
    });
    expect(index.search("caching", 10).map((h) => h.key)).toEqual(["b", "a"]);
  });

  it("weighs a rare word above a common one", () => {
    const index = build({
      a: { body: "database database" },
      b: { body: "database replication" },
      c: { body: "database" },
      d: { body: "database" },
    });
    expect(index.search("database replication", 10)[0]?.key).toBe("b");
  });

  it("matches tags, filters by meta and honours the limit", () => {
    const index = build({
      a: { tags: ["storage"], kind: "decision" },
      b: { tags: ["storage"], kind: "issue" },
      c: { body: "storage", kind: "issue" },
    });
    expect(index.search("storage", 10, (m) => m.kind === "issue").map((h) => h.key)).toEqual(["b", "c"]);
    expect(index.search("storage", 1)).toHaveLength(1);
    expect(index.search("absent", 10)).toEqual([]);
  });

  it("gives the same answers after removals and re-adds as a fresh index of the remaining documents", () => {
    const word = fc.constantFrom("cache", "graph", "token", "limit", "queue", "trace", "merge");
    const doc = fc.record({
      title: fc.array(word, { maxLength: 3 }),
      body: fc.array(word, { maxLength: 12 }),
    });
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(11)),
        word,
        (docs, removals, query) => {
          const incremental = new Bm25Index<null>();
          docs.forEach((d, i) => {
            incremental.add(`k${i}`, { title: d.title.join(" "), tags: [], body: d.body.join(" ") }, null);
          });
          const removed = new Set(removals.filter((r) => r < docs.length).map((r) => `k${r}`));
          for (const key of removed) incremental.remove(key);
          // Re-adding the same document must not double count it.
          if (docs[0] && !removed.has("k0"))
            incremental.add(
              "k0",
              { title: docs[0].title.join(" "), tags: [], body: docs[0].body.join(" ") },
              null,
            );
          const fresh = new Bm25Index<null>();
          docs.forEach((d, i) => {
            if (!removed.has(`k${i}`))
              fresh.add(`k${i}`, { title: d.title.join(" "), tags: [], body: d.body.join(" ") }, null);
          });
          const a = incremental.search(query, 20).map((h) => [h.key, h.score.toFixed(9)]);
          const b = fresh.search(query, 20).map((h) => [h.key, h.score.toFixed(9)]);
          expect(a).toEqual(b);
          expect(incremental.size).toBe(fresh.size);
        },
      ),
      { numRuns: 300 },
    );
  });
});
