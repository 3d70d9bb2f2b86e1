import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  contentEnd,
  type HeadingLine,
  scanHeadings,
  scanLines,
  setChunkSizeForTests,
} from "../../../src/local/reqlix/line-scanner.js";
import { FenceTracker, headingOf } from "../../../src/local/reqlix/markdown.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "reqlix-scan-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => setChunkSizeForTests(1 << 20));

let n = 0;
async function withFile<T>(
  content: string | Buffer,
  fn: (fh: Awaited<ReturnType<typeof open>>) => Promise<T>,
): Promise<T> {
  const path = join(dir, `f${n++}.md`);
  await writeFile(path, content);
  const fh = await open(path, "r");
  try {
    return await fn(fh);
  } finally {
    await fh.close();
  }
}

/** The obvious line-by-line reading of the rules, over the whole string: the scanner must agree with it. */
function reference(content: string): HeadingLine[] {
  const out: HeadingLine[] = [];
  const fences = new FenceTracker();
  const bytes = Buffer.from(content, "utf8");
  let pos = 0;
  while (pos < bytes.length) {
    const nl = bytes.indexOf(0x0a, pos);
    const end = nl < 0 ? bytes.length : nl + 1;
    let text = bytes.toString("utf8", pos, nl < 0 ? end : nl).replace(/\r$/, "");
    if (pos === 0) text = text.replace(/^\uFEFF/, "");
    if (!fences.feed(text)) {
      const h = headingOf(text);
      if (h) out.push({ level: h.level, text: h.text, start: pos, end });
    }
    pos = end;
  }
  return out;
}

async function scanned(content: string): Promise<HeadingLine[]> {
  return withFile(content, async (fh) => {
    const out: HeadingLine[] = [];
    await scanHeadings(fh, (h) => {
      out.push(h);
    });
    return out;
  });
}

const line = fc.oneof(
  fc.constantFrom(
    "# Chapter",
    "## G.G.1: Title",
    "### Deep",
    "```",
    "~~~",
    "````",
    "  ```js",
    "    ```",
    "```a`b",
    "",
    "text",
    "# ",
    "#x",
  ),
  fc.string({ maxLength: 12 }),
  fc.stringMatching(/^(#{1,3} |`{3,4}|~{3})[a-zé ]{0,8}$/),
);

describe("scanHeadings", () => {
  it("finds chapter and requirement headings with their byte offsets", async () => {
    const content = "# A\n\n## G.A.1: t\n\nbody é\n\n# B\r\n## G.B.1: u";
    expect(await scanned(content)).toEqual(reference(content));
    expect((await scanned(content)).map((h) => h.text)).toEqual(["A", "G.A.1: t", "B", "G.B.1: u"]);
  });

  it("skips headings inside fenced code blocks, as in the spec file", async () => {
    const content =
      "# Real\n\n```\n# Categories\n\n- general\n```\n\n~~~~\n## X.Y.1: no\n~~~\n## G.R.1: yes\n~~~~\n## G.R.2: yes\n";
    expect((await scanned(content)).map((h) => h.text)).toEqual(["Real", "G.R.2: yes"]);
  });

  it("reads a heading at the very start after a byte-order mark", async () => {
    const hits = await scanned("\uFEFF# First\n## G.F.1: x\n");
    expect(hits.map((h) => [h.text, h.start])).toEqual([
      ["First", 0],
      ["G.F.1: x", 11],
    ]);
  });

  it("reports a fence left open at the end of the file", async () => {
    const summary = await withFile("# A\n```\n# hidden\n", (fh) => scanHeadings(fh, () => {}));
    expect(summary.openFence).toBe("```");
  });

  it("detects the file's line ending", async () => {
    expect((await withFile("# A\r\nx\n", (fh) => scanHeadings(fh, () => {}))).eol).toBe("\r\n");
    expect((await withFile("# A\nx\r\n", (fh) => scanHeadings(fh, () => {}))).eol).toBe("\n");
  });

  it("stops when the visitor says so", async () => {
    const seen: string[] = [];
    const summary = await withFile("# A\n# B\n# C\n", (fh) =>
      scanHeadings(fh, (h) => {
        seen.push(h.text);
        return h.text === "B";
      }),
    );
    expect(seen).toEqual(["A", "B"]);
    expect(summary.stopped).toBe(true);
  });

  it("agrees with the line-by-line reference on random documents, whatever the chunk size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        async (lines, eol, trailing, chunk) => {
          const content = lines.join(eol) + (trailing ? eol : "");
          setChunkSizeForTests(chunk);
          expect(await scanned(content)).toEqual(reference(content));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("in fast mode sees chapter headings and only the requirement headings it looks for", async () => {
    const needle = "## G.G.1:";
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(line, fc.constantFrom("## G.G.1: wanted", "## G.G.10: not", "## g.g.1: other case")),
          { maxLength: 60 },
        ),
        fc.integer({ min: 1, max: 64 }),
        async (lines, chunk) => {
          const content = lines.join("\n");
          setChunkSizeForTests(chunk);
          const got = await withFile(content, async (fh) => {
            const out: HeadingLine[] = [];
            await scanHeadings(fh, (h) => void out.push(h), {
              fastH2: { needles: [needle], active: () => true },
              wantH2: (buf, start, end) => buf.toString("utf8", start - 3, end).startsWith(needle),
            });
            return out;
          });
          const want = reference(content).filter((h) => h.level === 1 || `## ${h.text}`.startsWith(needle));
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("starts at a given chapter heading", async () => {
    const content = "# A\n\n## G.A.1: x\n\n# B\n\n```\n# no\n```\n## G.B.1: y\n";
    const from = content.indexOf("# B");
    const got = await withFile(content, async (fh) => {
      const out: HeadingLine[] = [];
      const summary = await scanHeadings(fh, (h) => void out.push(h), { startAt: from });
      expect(summary.size).toBe(Buffer.byteLength(content));
      return out;
    });
    expect(got).toEqual(reference(content).filter((h) => h.start >= from));
  });

  it("reports the file's size even when stopped early", async () => {
    setChunkSizeForTests(8);
    const content = "# A\n# B\n# C\n".repeat(20);
    const summary = await withFile(content, (fh) => scanHeadings(fh, () => true));
    expect(summary.stopped).toBe(true);
    expect(summary.size).toBe(content.length);
  });

  it("handles a line longer than the read buffer", async () => {
    setChunkSizeForTests(8);
    const content = `# A\n${"x".repeat(100)}\n## G.A.1: t\n`;
    expect(await scanned(content)).toEqual(reference(content));
  });
});

describe("scanLines", () => {
  it("hands every line with its offsets and fence state", async () => {
    const lines: [string, number, boolean][] = [];
    await withFile("a\r\n```\n# b\n```\nc", (fh) =>
      scanLines(fh, (l) => {
        lines.push([l.text, l.start, l.structural]);
      }),
    );
    expect(lines).toEqual([
      ["a", 0, true],
      ["```", 3, false],
      ["# b", 7, false],
      ["```", 11, false],
      ["c", 15, true],
    ]);
  });
});

describe("contentEnd", () => {
  it("finds the end of the last non-blank line", async () => {
    await withFile("a\n\n  \nb  \n\n\n", async (fh) => {
      expect(await contentEnd(fh, 0, 12)).toBe(10);
      expect(await contentEnd(fh, 0, 5)).toBe(2);
      expect(await contentEnd(fh, 2, 5)).toBe(2);
    });
    await withFile("a\nb", async (fh) => {
      expect(await contentEnd(fh, 0, 3)).toBe(3);
    });
  });
});
