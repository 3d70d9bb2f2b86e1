import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CitationMatcher } from "../../../src/local/trace/citations.js";

/**
 * The matcher searches without the pattern's leading \b and refuses a match preceded by a word character
 * itself (faster); these compare it with the plain pattern (`matcher.source`, as git grep gets it) run by
 * the regex engine on the same text.
 */
const matcher = new CitationMatcher(["EP", "US", "REQ", "AC"], ["G", "T", "SEC"]);

function reference(text: string): { id: string; revision: number | null; line: number; column: number }[] {
  const re = new RegExp(matcher.source, "g");
  const out: { id: string; revision: number | null; line: number; column: number }[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = text.slice(0, m.index);
    const lineStart = before.lastIndexOf("\n") + 1;
    const { id, revision } = CitationMatcher.toFound(m);
    out.push({ id, revision, line: before.split("\n").length, column: m.index - lineStart + 1 });
  }
  return out;
}

// Pieces that sit on every side of a boundary: prefixes, word and non-word neighbours, pins, non-ASCII.
const PIECES = [
  "REQ-",
  "REQ-1",
  "REQ-012@3",
  "US-7",
  "AC-",
  "EP-99",
  "XREQ-1",
  "_",
  "a",
  "9",
  "-",
  ".",
  "@",
  "@0",
  "@2",
  "G.",
  "G.GI.3",
  "SEC.A.1",
  "T.B",
  "T.B.",
  "7",
  " ",
  "\n",
  "\r\n",
  "é",
  "漢",
  "😀",
  "(",
  'it("',
  '")',
];

describe("citation matcher", () => {
  it("finds exactly the matches of its pattern, with lines and columns, whatever precedes an id", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }), (pieces) => {
        const text = pieces.join("");
        const found = matcher
          .scan(Buffer.from(text, "utf8"), "f.ts", "impl")
          .map(({ id, revision, line, column }) => ({ id, revision, line, column }));
        expect(found).toEqual(reference(text));
        expect(matcher.idsIn(text).map((f) => f.id)).toEqual([...new Set(reference(text).map((r) => r.id))]);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses ids glued to a word character before them, and finds the next one on the line", () => {
    const text = "XREQ-1 _US-2 9AC-3 REQ-4 aG.GI.3 (G.GI.4) é REQ-5\n";
    expect(matcher.scan(Buffer.from(text), "f.ts", "impl").map((c) => [c.id, c.column])).toEqual([
      ["REQ-004", 20],
      ["G.GI.4", 35],
      ["REQ-005", 45],
    ]);
  });
});
