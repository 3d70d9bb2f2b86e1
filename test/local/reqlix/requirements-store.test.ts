/**
 * The store over real files in temp projects: insert/update/delete layout, byte preservation, prefixes
 * read back from the file, and errors. (The tools over stdio are tested in tools.e2e.test.ts.)
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setChunkSizeForTests } from "../../../src/local/reqlix/line-scanner.js";
import { bodyProblem, normalizeBody } from "../../../src/local/reqlix/markdown.js";
import {
  deleteRequirement,
  getChapters,
  getRequirements,
  getRequirementsByIndex,
  insertRequirement,
  updateRequirement,
} from "../../../src/local/reqlix/requirements-store.js";
import { tempDir } from "../../helpers/companion.js";

const env = {};
let project: { path: string; cleanup(): Promise<void> };
let reqDir: string;

beforeEach(async () => {
  project = await tempDir("reqlix-store-");
  reqDir = join(project.path, "docs/development/requirements");
});
afterEach(async () => {
  await project.cleanup();
});

const file = (category: string) => join(reqDir, `${category}.md`);
const read = (category: string) => readFile(file(category), "utf8");
async function seed(category: string, content: string): Promise<void> {
  await mkdir(reqDir, { recursive: true });
  await writeFile(file(category), content);
}
const insert = (category: string, chapter: string, title: string, text: string) =>
  insertRequirement(project.path, env, { category, chapter, title, text });
async function one(index: string) {
  const r = await getRequirementsByIndex(project.path, env, [index]);
  if (!r.requirements[0]) throw new Error(r.errors[0]?.error);
  return r.requirements[0];
}

describe("insert (G.IR.3/4)", () => {
  it("creates the category and chapter with blank lines around headings", async () => {
    const r = await insert(
      "general",
      "General Requirements",
      "Language requirement",
      "All requirements must be written in English.",
    );
    expect(r).toEqual({
      index: "G.G.1",
      title: "Language requirement",
      text: "All requirements must be written in English.",
      category: "general",
      chapter: "General Requirements",
    });
    await insert("general", "General Requirements", "Line length requirement", "Lines ≤ 120 characters.");
    await insert("general", "reqlix_get_instructions", "Description", "Text.");
    expect(await read("general")).toBe(
      "# General Requirements\n\n## G.G.1: Language requirement\n\nAll requirements must be written in English.\n\n" +
        "## G.G.2: Line length requirement\n\nLines ≤ 120 characters.\n\n# reqlix_get_instructions\n\n## G.GI.1: Description\n\nText.\n",
    );
  });

  it("appends to an earlier chapter before the next chapter heading, keeping every other byte", async () => {
    const original = "# A\n\n## G.A.1: one\n\nbody one\n\n\n# B\n\n## G.B.1: two\n\nbody two\n";
    await seed("general", original);
    const r = await insert("general", "A", "three", "body three");
    expect(r.index).toBe("G.A.2");
    expect(await read("general")).toBe(
      "# A\n\n## G.A.1: one\n\nbody one\n\n## G.A.2: three\n\nbody three\n\n\n# B\n\n## G.B.1: two\n\nbody two\n",
    );
  });

  it("keeps CRLF line endings and writes new lines with CRLF", async () => {
    await seed("general", "# A\r\n\r\n## G.A.1: one\r\n\r\nbody\r\n");
    await insert("general", "A", "two", "line 1\nline 2");
    expect(await read("general")).toBe(
      "# A\r\n\r\n## G.A.1: one\r\n\r\nbody\r\n\r\n## G.A.2: two\r\n\r\nline 1\r\nline 2\r\n",
    );
  });

  it("keeps a missing trailing newline missing", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\nbody");
    await insert("general", "A", "two", "text");
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\nbody\n\n## G.A.2: two\n\ntext");
  });

  it("adds the missing blank line before a following heading", async () => {
    await seed("general", "# A\n## G.A.1: one\nbody\n# B\n");
    await insert("general", "A", "two", "text");
    expect(await read("general")).toBe("# A\n## G.A.1: one\nbody\n\n## G.A.2: two\n\ntext\n\n# B\n");
  });

  it("treats an empty file as a valid category", async () => {
    await seed("empty", "");
    expect(await getChapters(project.path, env, "empty")).toEqual({ category: "empty", chapters: [] });
    expect((await insert("empty", "First", "t", "x")).index).toBe("E.F.1");
    expect(await read("empty")).toBe("# First\n\n## E.F.1: t\n\nx\n");
  });

  it("reads prefixes from existing headings and never recomputes them", async () => {
    await seed("general", "# Storage Format\n\n## G.F.4: Index format\n\nx\n");
    await seed("glossary", "");
    expect((await insert("general", "Storage Format", "next", "y")).index).toBe("G.F.5");
    expect((await insert("glossary", "Terms", "term", "z")).index).toBe("GL.T.1");
    expect((await insert("general", "Storage Format", "again", "w")).index).toBe("G.F.6");
    expect((await one("G.F.4")).title).toBe("Index format");
  });

  it("gives a new chapter a prefix not used by any chapter of the file", async () => {
    await seed(
      "general",
      "# General Requirements\n\n## G.G.1: a\n\nx\n\n# reqlix_get_categories\n\n## G.GC.1: b\n\ny\n",
    );
    expect((await insert("general", "Glossary", "t", "x")).index).toBe("G.GL.1");
    expect((await insert("general", "reqlix_get_chapters", "t", "x")).index).toBe("G.GCH.1");
  });

  it("numbers after the highest number in the chapter", async () => {
    await seed("t", "# A\n\n## T.A.7: a\n\nx\n\n## T.A.3: b\n\ny\n");
    expect((await insert("t", "A", "c", "z")).index).toBe("T.A.8");
  });

  it("refuses a duplicate title in the chapter and allows it in another chapter", async () => {
    await insert("general", "A", "Same", "x");
    await expect(insert("general", "A", "Same", "y")).rejects.toThrow(
      /^Title already exists in chapter: "Same" is already the title of G.A.1/,
    );
    expect((await insert("general", "B", "Same", "y")).index).toBe("G.B.1");
  });

  it("matches chapters exactly, never by prefix or case", async () => {
    await insert("general", "General", "a", "x");
    expect((await insert("general", "General Requirements", "b", "y")).index).toBe("G.GR.1");
    expect((await insert("general", "general", "c", "z")).index).toBe("G.GN.1");
    expect((await getChapters(project.path, env, "general")).chapters).toEqual([
      "General",
      "General Requirements",
      "general",
    ]);
  });

  it("does not treat headings inside code fences as chapters", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\n```\n# B\n## G.B.1: fake\n```\n");
    expect((await insert("general", "B", "real", "x")).index).toBe("G.B.1");
    expect((await getChapters(project.path, env, "general")).chapters).toEqual(["A", "B"]);
    expect((await one("G.A.1")).text).toBe("```\n# B\n## G.B.1: fake\n```");
  });

  it("refuses to append after an unclosed fence at the end of the file", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\n```\nopen\n");
    await expect(insert("general", "A", "two", "x")).rejects.toThrow(/ends inside a code fence/);
    await expect(insert("general", "Z", "two", "x")).rejects.toThrow(/ends inside a code fence/);
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\n```\nopen\n");
  });

  it("refuses bodies with chapter or requirement headings, or an unclosed fence", async () => {
    await expect(insert("general", "A", "t", "a\n## G.A.9: x")).rejects.toThrow(/line 2 starts with "## "/);
    await expect(insert("general", "A", "t", "```\ncode")).rejects.toThrow(/never closed/);
    await expect(insert("general", "A", "t", " \n\n")).rejects.toThrow(/text is empty/);
  });

  it("refuses an index longer than 10 characters", async () => {
    await seed("general", "# A\n\n## GLS.GCH.99: a\n\nx\n");
    await expect(insert("general", "A", "b", "y")).rejects.toThrow(/longer than the 10 characters/);
  });

  it("takes prefixes from first letters, skipping digits (hardening #17, G.F.4)", async () => {
    // The examples: they used to give 1.U.1 and R.2.1.
    expect((await insert("123test", "Unit Tests", "First", "Body.")).index).toBe("T.U.1");
    expect((await insert("roadmap", "2024 Roadmap", "Second", "Body.")).index).toBe("R.R.1");
    expect((await insert("roadmap", "2025 Review", "Third", "Body.")).index).toBe("R.RV.1");
  });

  it("refuses a category or chapter name with no letter, naming the rule, and writes nothing", async () => {
    await expect(insert("2024", "Plan", "t", "x")).rejects.toThrow(/category "2024" has no letter.*G\.F\.4/);
    await expect(insert("general", "2024", "t", "x")).rejects.toThrow(
      /chapter "2024" has no letter.*G\.F\.4/,
    );
    await expect(readFile(file("2024"), "utf8")).rejects.toThrow(/ENOENT/);
    await expect(readFile(file("general"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("keeps the prefixes a file already carries, even ones the old rule took from digits", async () => {
    await seed("123test", "# 2024 Roadmap\n\n## 1.2.1: Old\n\nOld body.\n");
    expect((await insert("123test", "2024 Roadmap", "New", "New body.")).index).toBe("1.2.2");
    expect((await one("1.2.1")).title).toBe("Old");
  });
});

describe("read (G.GR.3, G.GRQ.3/4)", () => {
  it("lists requirements of one chapter and stops at the next", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\nx\n\n## Notes\n\n# B\n\n## G.B.1: two\n");
    expect(await getRequirements(project.path, env, "general", "A")).toEqual({
      category: "general",
      chapter: "A",
      requirements: [{ index: "G.A.1", title: "one" }],
    });
    await expect(getRequirements(project.path, env, "general", "a")).rejects.toThrow(
      /Chapter not found.*"A", "B"/,
    );
  });

  it("reads a requirement's body up to the next level-2 heading, keeping ### headings", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\nline 1\n\n### Sub\n\nline 2\n\n## G.A.2: two\n\nz\n");
    expect((await one("G.A.1")).text).toBe("line 1\n\n### Sub\n\nline 2");
    expect((await one("g.a.2")).text).toBe("z");
  });

  it("never matches an index by prefix", async () => {
    await seed("general", "# A\n\n## G.A.10: ten\n\nx\n");
    const r = await getRequirementsByIndex(project.path, env, ["G.A.1"]);
    expect(r.requirements).toEqual([]);
    expect(r.errors[0]?.error).toMatch(
      /^Requirement not found: G.A.1\. Chapter "A" of category "general" uses the chapter prefix A/,
    );
  });

  it("reads many indices across categories in one call", async () => {
    await insert("general", "A", "a", "x");
    await insert("testing", "Unit Tests", "u", "y");
    const r = await getRequirementsByIndex(project.path, env, ["T.U.1", "G.A.1", "Q.Q.1", "bad"]);
    expect(r.requirements.map((x) => x.index)).toEqual(["T.U.1", "G.A.1"]);
    expect(r.errors.map((e) => e.index)).toEqual(["Q.Q.1", "bad"]);
    expect(r.errors[0]?.error).toMatch(/^Category not found/);
    expect(r.errors[1]?.error).toMatch(/not a requirement index/);
  });
});

describe("headings written by hand", () => {
  it("finds indices written in lower case, with leading zeros or extra spaces", async () => {
    await seed("general", "# A\n\n##   g.a.01:   one  \n\nx\n\n## G.A.2: two\n\ny\n");
    expect(await one("G.A.1")).toMatchObject({ index: "g.a.01", title: "one", text: "x" });
    expect((await updateRequirement(project.path, env, { index: "G.A.1", text: "z" })).index).toBe("g.a.01");
    expect(await read("general")).toBe(
      "# A\n\n## g.a.01: one\n\nz\n\n<!-- rev: 2 -->\n\n## G.A.2: two\n\ny\n",
    );
  });
});

describe("numbers and titles read from heading bytes (insert's fast path)", () => {
  it("counts only well-formed headings with the chapter's prefix, and finds duplicate titles exactly", async () => {
    await seed(
      "general",
      "# A\n\n## G.A.3: first\n\nx\n\n## g.a.7: Same thing\n\ny\n\n## G.A.9:no-space\n\nz\n\n" +
        "## G.B.20: other prefix\n\nw\n\n## G.A.x: not a number\n\nv\n\n# B\n\n## G.B.1: b\n",
    );
    await expect(insert("general", "A", "Same thing", "dup")).rejects.toThrow(
      /^Title already exists in chapter.*g\.a\.7/,
    );
    expect((await insert("general", "A", "Same", "not a duplicate of Same thing")).index).toBe("G.A.8");
    await expect(insert("general", "A", "first", "again?")).rejects.toThrow(
      /^Title already exists in chapter.*G\.A\.3/,
    );
    expect((await insert("general", "A", "third", "z")).index).toBe("G.A.9");
  });
});

describe("with tiny read chunks (every line and fence crosses a chunk boundary)", () => {
  beforeEach(() => setChunkSizeForTests(5));
  afterEach(() => setChunkSizeForTests(1 << 20));

  it("inserts, updates, reads and deletes exactly as with big chunks", async () => {
    const big = Array.from(
      { length: 30 },
      (_, i) => `## G.A.${i + 1}: r${i + 1}\n\n\`\`\`\n# not\n\`\`\`\nbody ${i + 1}\n`,
    ).join("\n");
    await seed("general", `# A\n\n${big}\n# B\n\n## G.B.1: b\n\nlast\n`);
    expect((await insert("general", "A", "new", "n")).index).toBe("G.A.31");
    expect((await one("G.A.17")).text).toBe("```\n# not\n```\nbody 17");
    await updateRequirement(project.path, env, { index: "G.A.30", text: "thirty" });
    expect((await one("G.A.30")).text).toBe("thirty");
    await deleteRequirement(project.path, env, "G.B.1");
    const content = await read("general");
    expect(content.endsWith("## G.A.31: new\n\nn\n")).toBe(true);
    expect(content).toContain("## G.A.30: r30\n\nthirty\n\n<!-- rev: 2 -->\n\n## G.A.31");
  });
});

describe("update (G.UR.3/4)", () => {
  it("replaces heading and body in place and preserves every other byte", async () => {
    const before =
      "\uFEFF# A\r\n\r\n## G.A.1: one\r\n\r\nold body\r\nsecond\r\n\r\n\r\n## G.A.2: two\r\n\r\nkeep  \r\n\r\n# B\r\nzz";
    await seed("general", before);
    const r = await updateRequirement(project.path, env, { index: "G.A.1", text: "new\nbody", title: "uno" });
    expect(r).toEqual({ index: "G.A.1", title: "uno", text: "new\nbody", category: "general", chapter: "A" });
    expect(await read("general")).toBe(
      before.replace(
        "## G.A.1: one\r\n\r\nold body\r\nsecond",
        "## G.A.1: uno\r\n\r\nnew\r\nbody\r\n\r\n<!-- rev: 2 -->",
      ),
    );
  });

  it("keeps the title when none is given, and the missing trailing newline", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\nold");
    await updateRequirement(project.path, env, { index: "G.A.1", text: "new" });
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\nnew\n\n<!-- rev: 2 -->");
  });

  it("refuses a title another requirement of the chapter has, but accepts its own", async () => {
    await insert("general", "A", "one", "x");
    await insert("general", "A", "two", "y");
    await expect(
      updateRequirement(project.path, env, { index: "G.A.2", text: "z", title: "one" }),
    ).rejects.toThrow(/^Title already exists in chapter/);
    expect(
      (await updateRequirement(project.path, env, { index: "G.A.2", text: "z", title: "two" })).title,
    ).toBe("two");
  });

  it("says when the requirement does not exist", async () => {
    await insert("general", "A", "one", "x");
    await expect(updateRequirement(project.path, env, { index: "G.A.5", text: "z" })).rejects.toThrow(
      /^Requirement not found: G.A.5/,
    );
    await expect(updateRequirement(project.path, env, { index: "G.Q.1", text: "z" })).rejects.toThrow(
      /No chapter of category "general"/,
    );
  });
});

describe("delete", () => {
  it("removes a middle requirement and keeps the rest byte for byte", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\nx\n\n## G.A.2: two\n\ny\n\n## G.A.3: three\n\nz\n");
    const r = await deleteRequirement(project.path, env, "G.A.2");
    expect(r.chapter_removed).toBe(false);
    expect(r.deleted.text).toBe("y");
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\nx\n\n## G.A.3: three\n\nz\n");
  });

  it("removes the last requirement and the blank lines before it, keeping the trailing newline style", async () => {
    await seed("general", "# A\n\n## G.A.1: one\n\nx\n\n## G.A.2: two\n\ny");
    await deleteRequirement(project.path, env, "G.A.2");
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\nx");
  });

  it("removes the heading of a chapter left empty, and only then", async () => {
    await seed(
      "general",
      "# A\n\n## G.A.1: one\n\nx\n\n# B\n\nIntro.\n\n## G.B.1: two\n\ny\n\n# C\n\n## G.C.1: three\n\nz\n",
    );
    expect((await deleteRequirement(project.path, env, "G.A.1")).chapter_removed).toBe(true);
    expect((await deleteRequirement(project.path, env, "G.B.1")).chapter_removed).toBe(false);
    expect((await deleteRequirement(project.path, env, "G.C.1")).chapter_removed).toBe(true);
    expect(await read("general")).toBe("# B\n\nIntro.\n");
  });
});

describe.each([
  ["1 MiB", 1 << 20],
  ["7-byte", 7],
])("round trips with %s read chunks", (_name, chunk) => {
  beforeEach(() => setChunkSizeForTests(chunk));
  afterEach(() => setChunkSizeForTests(1 << 20));
  it("reads back exactly what was inserted and updated, across random operations", async () => {
    const body = fc
      .array(
        fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("### h", "```", "- item", "  code", "")),
        { minLength: 1, maxLength: 6 },
      )
      .map((lines) => lines.join("\n"));
    const op = fc.record({
      kind: fc.constantFrom("insert", "insert", "update", "delete"),
      category: fc.constantFrom("general", "glossary", "testing"),
      chapter: fc.constantFrom("General Requirements", "Glossary", "reqlix_get_chapters", "Unit Tests"),
      pick: fc.nat(),
      body,
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const p = await tempDir("reqlix-prop-");
        const model = new Map<string, { title: string; text: string; chapter: string; category: string }>();
        let titles = 0;
        try {
          for (const o of ops) {
            const keys = [...model.keys()];
            const target = keys[o.pick % Math.max(1, keys.length)];
            const expectedBody = normalizeBody(o.body);
            const ok = expectedBody.length > 0 && bodyProblem(expectedBody) === undefined;
            if (o.kind === "insert" || !target) {
              if (!ok) continue;
              const r = await insertRequirement(p.path, env, {
                category: o.category,
                chapter: o.chapter,
                title: `t${titles++}`,
                text: o.body,
              });
              expect(model.has(r.index)).toBe(false);
              model.set(r.index, {
                title: r.title,
                text: expectedBody,
                chapter: o.chapter,
                category: o.category,
              });
            } else if (o.kind === "update") {
              if (!ok) continue;
              await updateRequirement(p.path, env, { index: target, text: o.body });
              const m = model.get(target);
              if (m) m.text = expectedBody;
            } else {
              await deleteRequirement(p.path, env, target);
              model.delete(target);
            }
          }
          const all = await getRequirementsByIndex(p.path, env, [...model.keys()].slice(0, 100));
          expect(all.errors).toEqual([]);
          for (const r of all.requirements) {
            const m = model.get(r.index);
            expect({ title: r.title, text: r.text, chapter: r.chapter, category: r.category }).toEqual(m);
          }
        } finally {
          await p.cleanup();
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("revision line (<!-- rev: N -->, counted by text changes)", () => {
  it("insert writes none (revision 1); each text change raises it; same text or a new title keeps it; reads hide it", async () => {
    await insert("general", "A", "one", "first");
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\nfirst\n");
    await updateRequirement(project.path, env, { index: "G.A.1", text: "second" });
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\nsecond\n\n<!-- rev: 2 -->\n");
    await updateRequirement(project.path, env, { index: "G.A.1", text: "second", title: "uno" });
    expect(await read("general")).toBe("# A\n\n## G.A.1: uno\n\nsecond\n\n<!-- rev: 2 -->\n");
    const third = await updateRequirement(project.path, env, {
      index: "G.A.1",
      text: "third\n\n<!-- rev: 9 -->",
    });
    expect(third.text).toBe("third");
    expect(await read("general")).toBe("# A\n\n## G.A.1: uno\n\nthird\n\n<!-- rev: 3 -->\n");
    expect((await one("G.A.1")).text).toBe("third");
    expect((await deleteRequirement(project.path, env, "G.A.1")).deleted.text).toBe("third");
  });

  it("keeps a trailing space of the text's last line beside the revision line (found by the round-trip property)", async () => {
    await insert("general", "A", "one", "!");
    await updateRequirement(project.path, env, { index: "G.A.1", text: "$ \n" });
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\n$ \n\n<!-- rev: 2 -->\n");
    expect((await one("G.A.1")).text).toBe("$ ");
    await updateRequirement(project.path, env, { index: "G.A.1", text: "$ " });
    expect(await read("general")).toBe("# A\n\n## G.A.1: one\n\n$ \n\n<!-- rev: 2 -->\n");
  });
});
