import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  editFrontmatter,
  FrontmatterError,
  parseFrontmatter,
  splitFrontmatter,
} from "../../../src/local/ixchel/frontmatter.js";

function parse(raw: string) {
  const split = splitFrontmatter(raw);
  if (!split) throw new Error("no frontmatter");
  return parseFrontmatter(split).data;
}

function errorOf(fn: () => unknown): FrontmatterError {
  try {
    fn();
  } catch (error) {
    if (error instanceof FrontmatterError) return error;
    throw error;
  }
  throw new Error("expected a FrontmatterError");
}

describe("splitFrontmatter", () => {
  it("returns undefined for a file without a leading --- line", () => {
    expect(splitFrontmatter("# Title\n\ntext\n")).toBeUndefined();
    expect(splitFrontmatter("text\n---\nid: x\n---\n")).toBeUndefined();
  });

  it("splits YAML from the body and keeps the body byte for byte", () => {
    const raw = "---\nid: dec-123456\ntitle: A\n---\n\n# Body\n---\nnot frontmatter\n";
    const split = splitFrontmatter(raw);
    expect(split?.yaml).toBe("id: dec-123456\ntitle: A\n");
    expect(split?.body).toBe("\n# Body\n---\nnot frontmatter\n");
    expect(split?.head + (split?.yaml ?? "") + split?.tail).toBe(raw);
  });

  it("accepts a BOM, CRLF line breaks, a ... terminator and a file that ends at the delimiter", () => {
    expect(splitFrontmatter("\uFEFF---\r\nid: a\r\n---\r\nbody\r\n")?.body).toBe("body\r\n");
    expect(splitFrontmatter("---\nid: a\n...\nbody")?.body).toBe("body");
    expect(splitFrontmatter("---\nid: a\n---")?.body).toBe("");
  });

  it("splits as the delimiters' regular expressions say, on generated files", () => {
    // The rules splitFrontmatter implements by character codes, as regular expressions.
    const reference = (raw: string) => {
      const open = /^(\uFEFF?)---[ \t]*(\r?\n)/.exec(raw);
      if (!open) return undefined;
      let pos = open[0].length;
      let line = 2;
      for (;;) {
        const nl = raw.indexOf("\n", pos);
        const end = nl === -1 ? raw.length : nl;
        if (/^(?:---|\.\.\.)[ \t]*$/.test(raw.slice(pos, end).replace(/\r$/, ""))) {
          return {
            head: raw.slice(0, open[0].length),
            yaml: raw.slice(open[0].length, pos),
            yamlLine: 2,
            tail: raw.slice(pos),
            body: raw.slice(nl === -1 ? raw.length : nl + 1),
            eol: open[2] === "\r\n" ? "\r\n" : "\n",
          };
        }
        if (nl === -1) return `never closed (scanned to line ${line})`;
        pos = nl + 1;
        line++;
      }
    };
    const part = fc.constantFrom(
      ...["---", "...", "--- ", "---\t", "-- ", ". ..", "----", "\uFEFF", "\n", "\r\n", "\r", " ", "\t"],
      ...["id: a", "title: b", "é", "\u2028", "#", "- x"],
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 16 }), (parts) => {
        const raw = parts.join("");
        let actual: unknown;
        try {
          actual = splitFrontmatter(raw);
        } catch (error) {
          actual = (error as Error).message.replace(/.*\((scanned to line \d+)\)$/, "never closed ($1)");
        }
        expect(actual, JSON.stringify(raw)).toEqual(reference(raw));
      }),
      { numRuns: 3000 },
    );
  });

  it("reports an unclosed frontmatter at line 1", () => {
    const error = errorOf(() => splitFrontmatter("---\nid: a\ntitle: b\n"));
    expect(error.line).toBe(1);
    expect(error.message).toContain("never closed");
  });
});

describe("parseFrontmatter", () => {
  it("parses a mapping into plain data, keeping dates as text", () => {
    expect(parse("---\nid: dec-123456\ntags: [a, b]\ncreated_at: 2026-01-01T00:00:00Z\n---\n")).toEqual({
      id: "dec-123456",
      tags: ["a", "b"],
      created_at: "2026-01-01T00:00:00Z",
    });
  });

  it("treats empty frontmatter as an empty mapping", () => {
    expect(parse("---\n---\nbody")).toEqual({});
  });

  it("reports a YAML error with the line of the file", () => {
    const raw = "---\nid: dec-123456\ntitle: fine\ntags: [a, b\nstatus: open\n---\nbody\n";
    const error = errorOf(() => parse(raw));
    expect(error.line).toBeGreaterThanOrEqual(4);
    expect(error.line).toBeLessThanOrEqual(6);
    expect(error.message).toMatch(/^invalid YAML in frontmatter: /);
  });

  it("reports a value that cannot be parsed on its own line", () => {
    const raw = "---\nid: dec-123456\ntitle: x\nstatus: open: now\n---\n";
    expect(errorOf(() => parse(raw)).line).toBe(4);
  });

  it("refuses duplicate keys, naming the line of the second one", () => {
    const error = errorOf(() => parse("---\nid: a\ntitle: x\nid: b\n---\n"));
    expect(error.line).toBe(4);
  });

  it("refuses frontmatter that is not a mapping", () => {
    const error = errorOf(() => parse("---\n- a\n- b\n---\n"));
    expect(error.line).toBe(2);
    expect(error.message).toContain("mapping");
  });
});

describe("editFrontmatter", () => {
  it("keeps comments, key order and the body", () => {
    const raw =
      "---\n# the decision\nid: dec-123456\ntitle: T # short\nrelates_to: [iss-123456]\n---\nBody  \n\n---\n";
    const out = editFrontmatter(raw, (doc) => {
      doc.set("status", "accepted");
    });
    expect(out).toBe(
      "---\n# the decision\nid: dec-123456\ntitle: T # short\nrelates_to: [iss-123456]\nstatus: accepted\n---\nBody  \n\n---\n",
    );
  });

  it("keeps CRLF line breaks in the frontmatter it rewrites", () => {
    const out = editFrontmatter("---\r\nid: a\r\n---\r\nbody\r\n", (doc) => {
      doc.set("x", 1);
    });
    expect(out).toBe("---\r\nid: a\r\nx: 1\r\n---\r\nbody\r\n");
  });

  it("never changes a byte of any body", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (body) => {
        const raw = `---\nid: dec-123456\ntitle: t\n---\n${body}`;
        const out = editFrontmatter(raw, (doc) => {
          doc.set("depends_on", ["iss-abcdef"]);
        });
        expect(out.endsWith(`\n---\n${body}`)).toBe(true);
        expect(splitFrontmatter(out)?.body).toBe(body);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a file without frontmatter", () => {
    expect(() => editFrontmatter("# no frontmatter\n", () => {})).toThrow(FrontmatterError);
  });
});
