import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bodyProblem,
  FenceTracker,
  headingOf,
  normalizeBody,
  parseIndex,
  parseRequirementHeading,
  sameIndex,
} from "../../../src/local/reqlix/markdown.js";

describe("headingOf", () => {
  it("reads `# ` as a chapter and `## ` as a requirement heading, trimmed", () => {
    expect(headingOf("# General Requirements")).toEqual({ level: 1, text: "General Requirements" });
    expect(headingOf("##   G.G.1: Title  ")).toEqual({ level: 2, text: "G.G.1: Title" });
  });

  it("ignores deeper headings, headings without a space, and indented ones", () => {
    expect(headingOf("### Sub")).toBeUndefined();
    expect(headingOf("#Hash")).toBeUndefined();
    expect(headingOf(" # Indented")).toBeUndefined();
    expect(headingOf("text # not")).toBeUndefined();
  });
});

describe("FenceTracker", () => {
  it("opens and closes backtick and tilde fences (CommonMark rules)", () => {
    const f = new FenceTracker();
    expect(f.feed("```json")).toBe(true);
    expect(f.inFence).toBe(true);
    expect(f.feed("# inside")).toBe(true);
    expect(f.feed("~~~")).toBe(true); // other character: does not close
    expect(f.feed("``")).toBe(true); // too short
    expect(f.feed("```")).toBe(true);
    expect(f.inFence).toBe(false);
    expect(f.feed("# outside")).toBe(false);
  });

  it("needs a closing run at least as long as the opening one", () => {
    const f = new FenceTracker();
    f.feed("````");
    f.feed("```");
    expect(f.inFence).toBe(true);
    f.feed("`````  ");
    expect(f.inFence).toBe(false);
  });

  it("treats a backtick run with backticks in its info string as inline code, not a fence", () => {
    const f = new FenceTracker();
    expect(f.feed("```not`a fence")).toBe(false);
    expect(f.inFence).toBe(false);
  });

  it("allows up to three spaces of indentation, not four", () => {
    const a = new FenceTracker();
    a.feed("   ~~~");
    expect(a.inFence).toBe(true);
    const b = new FenceTracker();
    b.feed("    ~~~");
    expect(b.inFence).toBe(false);
  });

  it("does not close a fence with a line that has text after the run", () => {
    const f = new FenceTracker();
    f.feed("```");
    f.feed("``` js");
    expect(f.inFence).toBe(true);
  });
});

/** The CommonMark fence rules as two regular expressions: the tracker must agree with them, line by line. */
class RegexFences {
  private open: { char: string; length: number } | undefined;
  feed(line: string): boolean {
    if (this.open) {
      const run = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
      if (run && run[0] === this.open.char && run.length >= this.open.length) this.open = undefined;
      return true;
    }
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    const run = m?.[1];
    if (!run || (run[0] === "`" && (m?.[2] ?? "").includes("`"))) return false;
    this.open = { char: run[0] as string, length: run.length };
    return true;
  }
}

describe("FenceTracker against the regular-expression statement of the rules", () => {
  it("agrees on random lines, as text and as bytes", () => {
    const piece = fc.constantFrom("`", "~", " ", "\t", "a", "#", "``", "~~~", "```", "````", "    ");
    const lineArb = fc.array(piece, { maxLength: 8 }).map((p) => p.join(""));
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 40 }), (lines) => {
        const text = new FenceTracker();
        const bytes = new FenceTracker();
        const regex = new RegexFences();
        for (const line of lines) {
          const expected = regex.feed(line);
          const buf = Buffer.from(`xx${line}yy`);
          expect(text.feed(line), JSON.stringify(line)).toBe(expected);
          expect(bytes.feedBytes(buf, 2, buf.length - 2), JSON.stringify(line)).toBe(expected);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("requirement headings and indices", () => {
  it("parses `{index}: {title}`", () => {
    expect(parseRequirementHeading("G.GI.1: Description")).toEqual({
      index: "G.GI.1",
      categoryPrefix: "G",
      chapterPrefix: "GI",
      number: 1,
      title: "Description",
    });
  });

  it("keeps colons inside the title", () => {
    expect(parseRequirementHeading("T.U.12: Format: `a: b`")?.title).toBe("Format: `a: b`");
  });

  it("refuses level-2 headings that are not requirements", () => {
    expect(parseRequirementHeading("Notes")).toBeUndefined();
    expect(parseRequirementHeading("G.G: missing number")).toBeUndefined();
    expect(parseRequirementHeading("G.G.x: not a number")).toBeUndefined();
    expect(parseRequirementHeading("G.G.1.2: four parts")).toBeUndefined();
  });

  it("compares indices by their parts, never by prefix", () => {
    const a = parseIndex("G.G.1");
    const b = parseIndex("G.G.10");
    const c = parseIndex("g.g.1");
    expect(a && b && sameIndex(a, b)).toBe(false);
    expect(a && c && sameIndex(a, c)).toBe(true);
    expect(parseIndex("GG1")).toBeUndefined();
  });
});

describe("bodies", () => {
  it("normalizes line endings and drops surrounding blank lines only", () => {
    expect(normalizeBody("\r\n\n  first\r\nsecond  \r\n\n \n")).toBe("  first\nsecond  ");
  });

  it("refuses body lines that would read as chapter or requirement headings", () => {
    expect(bodyProblem("intro\n# Chapter")).toContain("line 2");
    expect(bodyProblem("## G.G.9: sneaky")).toContain("requirement heading");
    expect(bodyProblem("### Sub heading\ntext")).toBeUndefined();
  });

  it("allows headings inside a closed fence and refuses an unclosed fence", () => {
    expect(bodyProblem("```\n# in code\n```")).toBeUndefined();
    expect(bodyProblem("```\n# in code")).toContain("never closed");
  });
});
