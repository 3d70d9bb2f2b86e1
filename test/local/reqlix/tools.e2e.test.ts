/**
 * The reqlix tools end to end: the built bundle as a real process, the SDK Client over stdio, temp
 * projects on disk. Run `npm run build` first.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir } from "../../helpers/companion.js";
import { err, ok, parseSpec, reqlix } from "./reqlix-client.js";

const SHARED_SPEC = join(import.meta.dirname, "../../../../shared/specs/reqlix-file-tools.md");
const SPEC_PATH = existsSync(SHARED_SPEC)
  ? SHARED_SPEC
  : join(import.meta.dirname, "fixtures/reqlix-file-tools.md");

let companion: Companion;
let project: { path: string; cleanup(): Promise<void> };
let call: ReturnType<typeof reqlix>;
const reqDir = () => join(project.path, "docs/development/requirements");

beforeAll(async () => {
  companion = await startCompanion({ args: ["--toolsets", "reqlix"] });
});
afterAll(async () => {
  await companion.close();
});
beforeEach(async () => {
  project = await tempDir("reqlix-e2e-");
  call = reqlix(companion, project.path);
});
afterEach(async () => {
  await project.cleanup();
});

describe("tool list", () => {
  it("lists the seven spec tools and the four extras, with the spec's descriptions verbatim", async () => {
    const { tools } = await companion.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "reqlix_get_instructions",
      "reqlix_get_categories",
      "reqlix_get_chapters",
      "reqlix_get_requirements",
      "reqlix_get_requirement",
      "reqlix_insert_requirement",
      "reqlix_update_requirement",
      "reqlix_search_requirements",
      "reqlix_delete_requirement",
      "reqlix_push",
      "reqlix_pull",
    ]);
    const spec = parseSpec(await readFile(SPEC_PATH, "utf8"));
    const descriptionOf = (chapter: string) => {
      const r = spec.requirements.find((x) => x.chapter === chapter && x.title === "Description");
      const m = /```\n([\s\S]*?)\n```/.exec(r?.text ?? "");
      if (!m) throw new Error(`no description for ${chapter}`);
      return m[1];
    };
    for (const name of tools.map((t) => t.name).slice(0, 7)) {
      expect(tools.find((t) => t.name === name)?.description, name).toBe(descriptionOf(name));
    }
    expect(tools[0]?.description?.split("\n")[0]).toBe(
      "CALL THIS BEFORE ANY CODE OPERATION (reading or writing). ",
    );
  });

  it("advertises the G.P.1 limits and required parameters in the input schemas", async () => {
    const { tools } = await companion.client.listTools();
    const schema = (name: string) =>
      tools.find((t) => t.name === name)?.inputSchema as {
        properties: Record<string, { maxLength?: number; anyOf?: unknown[] }>;
        required?: string[];
      };
    const limits = {
      project_root: 1000,
      operation_description: 10000,
      category: 100,
      chapter: 100,
      index: 10,
      text: 10000,
      title: 100,
    };
    for (const t of tools) {
      const s = schema(t.name);
      expect(s.required, t.name).toEqual(expect.arrayContaining(["project_root", "operation_description"]));
      for (const [field, max] of Object.entries(limits)) {
        const p = s.properties[field];
        if (p && !p.anyOf) expect(p.maxLength, `${t.name}.${field}`).toBe(max);
      }
    }
    expect(schema("reqlix_insert_requirement").required?.sort()).toEqual(
      ["category", "chapter", "operation_description", "project_root", "text", "title"].sort(),
    );
    expect(schema("reqlix_update_requirement").required?.sort()).toEqual(
      ["index", "operation_description", "project_root", "text"].sort(),
    );
    const annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(annotations.reqlix_get_requirement?.readOnlyHint).toBe(true);
    expect(annotations.reqlix_insert_requirement?.readOnlyHint).toBe(false);
    expect(annotations.reqlix_delete_requirement?.destructiveHint).toBe(true);
  });
});

describe("reqlix_get_instructions (G.GI.3–8)", () => {
  it("creates AGENTS.md with the placeholder and returns it with a generated Categories chapter", async () => {
    const first = ok(await call<{ content: string }>("get_instructions"));
    const agents = await readFile(join(reqDir(), "AGENTS.md"), "utf8");
    expect(agents).toContain("5. Never edit files in docs/development/requirements directly.");
    expect(first.content).toBe(`${agents.trimEnd()}\n\n# Categories\n\nNo categories yet.`);
    ok(
      await call("insert_requirement", { category: "testing", chapter: "Unit Tests", title: "t", text: "x" }),
    );
    ok(
      await call("insert_requirement", {
        category: "general",
        chapter: "General Requirements",
        title: "t",
        text: "x",
      }),
    );
    ok(
      await call("insert_requirement", { category: "code_quality", chapter: "Style", title: "t", text: "x" }),
    );
    const second = ok(await call<{ content: string }>("get_instructions"));
    expect(
      second.content.endsWith("# Instructions") ||
        second.content.includes("\n\n# Categories\n\n- code_quality\n- general\n- testing"),
    ).toBe(true);
    expect(second.content.endsWith("- testing")).toBe(true);
    // Generated, never stored (G.GI.7); untouched by the other tools (G.C.3).
    expect(await readFile(join(reqDir(), "AGENTS.md"), "utf8")).toBe(agents);
  });

  it("returns a user's own AGENTS.md as it is", async () => {
    await mkdir(reqDir(), { recursive: true });
    await writeFile(join(reqDir(), "AGENTS.md"), "# Our rules\n\nBe kind.\n");
    await writeFile(join(reqDir(), "general.md"), "");
    expect(ok(await call<{ content: string }>("get_instructions")).content).toBe(
      "# Our rules\n\nBe kind.\n\n# Categories\n\n- general",
    );
  });

  it("uses REQLIX_REQ_REL_PATH from the companion's environment", async () => {
    const other = await startCompanion({
      args: ["--toolsets", "reqlix"],
      env: { REQLIX_REQ_REL_PATH: "spec/req" },
    });
    try {
      const c = reqlix(other, project.path);
      ok(await c("insert_requirement", { category: "general", chapter: "A", title: "t", text: "x" }));
      expect(await readdir(join(project.path, "spec/req"))).toEqual(["AGENTS.md", "general.md"]);
      expect(await readFile(join(project.path, "spec/req/AGENTS.md"), "utf8")).toContain(
        "Never edit files in spec/req directly.",
      );
    } finally {
      await other.close();
    }
  });
});

describe("the spec's examples", () => {
  it("answers in the spec's JSON shapes (G.GC.4, G.GCH.4, G.GR.4, G.GRQ.5, G.IR.5, G.UR.5)", async () => {
    expect(ok(await call("get_categories"))).toEqual({ categories: [] });
    expect(
      ok(
        await call("insert_requirement", {
          category: "general",
          chapter: "General Requirements",
          title: "Language requirement",
          text: "All requirements must be written in English.",
        }),
      ),
    ).toEqual({
      index: "G.G.1",
      title: "Language requirement",
      text: "All requirements must be written in English.",
      category: "general",
      chapter: "General Requirements",
    });
    expect(
      ok(
        await call("insert_requirement", {
          category: "general",
          chapter: "General Requirements",
          title: "Line length requirement",
          text: "Short lines.",
        }),
      ),
    ).toMatchObject({ index: "G.G.2" });
    expect(
      ok(
        await call("insert_requirement", {
          category: "general",
          chapter: "reqlix_get_instructions",
          title: "Description",
          text: "x",
        }),
      ),
    ).toMatchObject({
      index: "G.GI.1",
    });
    expect(
      ok(
        await call("insert_requirement", {
          category: "testing",
          chapter: "Unit Tests",
          title: "Fast",
          text: "y",
        }),
      ),
    ).toMatchObject({
      index: "T.U.1",
    });
    expect(
      ok(
        await call("insert_requirement", {
          category: "testing",
          chapter: "Unit Tests",
          title: "Real",
          text: "z",
        }),
      ),
    ).toMatchObject({
      index: "T.U.2",
    });
    expect(ok(await call("get_categories"))).toEqual({ categories: ["general", "testing"] });
    expect(ok(await call("get_chapters", { category: "general" }))).toEqual({
      category: "general",
      chapters: ["General Requirements", "reqlix_get_instructions"],
    });
    expect(
      ok(await call("get_requirements", { category: "general", chapter: "General Requirements" })),
    ).toEqual({
      category: "general",
      chapter: "General Requirements",
      requirements: [
        { index: "G.G.1", title: "Language requirement" },
        { index: "G.G.2", title: "Line length requirement" },
      ],
    });
    expect(ok(await call("get_requirement", { index: "G.G.1" }))).toEqual({
      index: "G.G.1",
      title: "Language requirement",
      text: "All requirements must be written in English.",
      category: "general",
      chapter: "General Requirements",
    });
    expect(
      ok(
        await call("update_requirement", {
          index: "G.G.1",
          title: "Updated title",
          text: "Updated requirement text...",
        }),
      ),
    ).toEqual({
      index: "G.G.1",
      title: "Updated title",
      text: "Updated requirement text...",
      category: "general",
      chapter: "General Requirements",
    });
    expect(ok(await call("get_requirement", { index: "T.U.2" }))).toMatchObject({
      title: "Real",
      text: "z",
      chapter: "Unit Tests",
    });
  });

  it("keeps G.G.1 when a category with the same first letter appears (prefixes are stored, not recomputed)", async () => {
    ok(
      await call("insert_requirement", {
        category: "general",
        chapter: "General Requirements",
        title: "a",
        text: "x",
      }),
    );
    expect(
      ok(await call("insert_requirement", { category: "glossary", chapter: "Terms", title: "b", text: "y" })),
    ).toMatchObject({
      index: "GL.T.1",
    });
    expect(
      ok(
        await call("insert_requirement", {
          category: "general",
          chapter: "General Requirements",
          title: "c",
          text: "z",
        }),
      ),
    ).toMatchObject({
      index: "G.G.2",
    });
    expect(ok(await call("get_requirement", { index: "G.G.1" }))).toMatchObject({
      title: "a",
      category: "general",
    });
    expect(ok(await call("get_requirement", { index: "GL.T.1" }))).toMatchObject({
      title: "b",
      category: "glossary",
    });
  });

  it("returns empty arrays for an empty category and a chapter without requirements", async () => {
    await mkdir(reqDir(), { recursive: true });
    await writeFile(join(reqDir(), "empty.md"), "");
    await writeFile(join(reqDir(), "notes.md"), "# Intro\n\nJust prose.\n");
    expect(ok(await call("get_chapters", { category: "empty" }))).toEqual({
      category: "empty",
      chapters: [],
    });
    expect(ok(await call("get_requirements", { category: "notes", chapter: "Intro" }))).toEqual({
      category: "notes",
      chapter: "Intro",
      requirements: [],
    });
  });
});

describe("errors (G.C.6)", () => {
  it("reports missing and unknown things with what to do", async () => {
    expect(err(await call("get_chapters", { category: "nope" }))).toMatch(
      /^Category not found: "nope".*reqlix_get_categories/,
    );
    ok(await call("insert_requirement", { category: "general", chapter: "A", title: "t", text: "x" }));
    expect(err(await call("get_requirements", { category: "general", chapter: "B" }))).toMatch(
      /^Chapter not found.*Its chapters: "A"/,
    );
    expect(err(await call("get_requirement", { index: "G.A.2" }))).toMatch(/^Requirement not found: G\.A\.2/);
    expect(err(await call("get_requirement", { index: "Z.A.1" }))).toMatch(
      /^Category not found: no category has the prefix "Z".*general \(G\)/,
    );
    expect(err(await call("get_requirement", { index: "G-A-1" }))).toMatch(
      /not a requirement index.*\{CATEGORY\}\.\{CHAPTER\}\.\{NUMBER\}/,
    );
    expect(err(await call("update_requirement", { index: "G.A.9", text: "x" }))).toMatch(
      /^Requirement not found/,
    );
    expect(
      err(await call("insert_requirement", { category: "general", chapter: "A", title: "t", text: "y" })),
    ).toMatch(/^Title already exists in chapter/);
  });

  it("checks project_root: absolute, existing, a directory", async () => {
    expect(err(await call("get_categories", { project_root: "relative/dir" }))).toMatch(
      /must be an absolute path/,
    );
    expect(err(await call("get_categories", { project_root: join(project.path, "missing") }))).toMatch(
      /does not exist/,
    );
    await writeFile(join(project.path, "f"), "");
    expect(err(await call("get_categories", { project_root: join(project.path, "f") }))).toMatch(
      /is not a directory/,
    );
  });

  it("refuses bad category names, multi-line chapters and titles, and heading lines in text", async () => {
    const base = { category: "general", chapter: "A", title: "t", text: "x" };
    for (const category of ["General", "../etc", "a-b", "agents", "AGENTS", "x.md", ""]) {
      expect(err(await call("insert_requirement", { ...base, category })), category).toMatch(/category/);
    }
    expect(err(await call("insert_requirement", { ...base, chapter: "A\nB" }))).toMatch(
      /chapter: must be a single line/,
    );
    expect(err(await call("insert_requirement", { ...base, title: "T\r\n# x" }))).toMatch(
      /title: must be a single line/,
    );
    expect(err(await call("insert_requirement", { ...base, title: " padded" }))).toMatch(
      /title: must not start or end with spaces/,
    );
    expect(err(await call("insert_requirement", { ...base, text: "a\n# Chapter" }))).toMatch(
      /line 2 starts with "# "/,
    );
    expect(err(await call("update_requirement", { index: "G.A.1", text: "```\nopen" }))).toMatch(
      /never closed|Requirement not found/,
    );
    expect(await readdir(project.path)).toEqual(["docs"]);
    expect(existsSync(join(reqDir(), "general.md"))).toBe(false);
  });

  it("validates every parameter's presence and limit (G.P.1/G.P.2), answering JSON that names the field", async () => {
    const valid: Record<string, Record<string, unknown>> = {
      get_instructions: {},
      get_categories: {},
      get_chapters: { category: "general" },
      get_requirements: { category: "general", chapter: "A" },
      get_requirement: { index: "G.A.1" },
      insert_requirement: { category: "general", chapter: "A", title: "t", text: "x" },
      update_requirement: { index: "G.A.1", text: "x", title: "t" },
    };
    const limits: Record<string, number> = {
      project_root: 1000,
      operation_description: 10000,
      category: 100,
      chapter: 100,
      index: 10,
      text: 10000,
      title: 100,
    };
    for (const [tool, args] of Object.entries(valid)) {
      const full: Record<string, unknown> = {
        project_root: project.path,
        operation_description: "test",
        ...args,
      };
      for (const field of Object.keys(full)) {
        const optional = tool === "update_requirement" && field === "title";
        const missing = { ...full };
        delete missing[field];
        const result = await companion.client.callTool({ name: `reqlix_${tool}`, arguments: missing });
        const body = JSON.parse((result.content as { text: string }[])[0]?.text ?? "");
        if (!optional) {
          expect(body, `${tool} without ${field}`).toEqual({
            success: false,
            error: expect.stringContaining(`${field}: required`),
          });
          expect(result.isError).toBe(true);
        }
        const tooLong = { ...full, [field]: "a".repeat((limits[field] ?? 0) + 1) };
        const long = await call(tool, tooLong);
        expect(err(long), `${tool}.${field} too long`).toMatch(
          new RegExp(`${field}: too long: at most ${limits[field]} characters`),
        );
      }
    }
  });

  it("accepts values exactly at their limit", async () => {
    const title = "T".repeat(100);
    const chapter = "C".repeat(100);
    const text = "x".repeat(10000);
    const r = ok(
      await call("insert_requirement", {
        category: "c".repeat(100),
        chapter,
        title,
        text,
        operation_description: "o".repeat(10000),
      }),
    );
    expect(r).toMatchObject({ index: "C.C.1", title, text, chapter });
    expect(ok(await call("get_requirement", { index: "C.C.1" }))).toMatchObject({ text });
  });
});

describe("robustness", () => {
  it("ignores headings inside fenced code blocks and matches headings exactly", async () => {
    await mkdir(reqDir(), { recursive: true });
    await writeFile(
      join(reqDir(), "general.md"),
      "# General\n\n## G.G.1: Real\n\n```md\n# Fake Chapter\n## G.G.2: Fake\n```\n\n# General Requirements\n\n## G.GR.1: Other\n\nx\n",
    );
    expect(ok(await call("get_chapters", { category: "general" }))).toMatchObject({
      chapters: ["General", "General Requirements"],
    });
    expect(ok(await call("get_requirements", { category: "general", chapter: "General" }))).toMatchObject({
      requirements: [{ index: "G.G.1", title: "Real" }],
    });
    expect(err(await call("get_requirement", { index: "G.G.2" }))).toMatch(/^Requirement not found/);
    expect(ok(await call("get_requirement", { index: "G.G.1" }))).toMatchObject({
      text: "```md\n# Fake Chapter\n## G.G.2: Fake\n```",
    });
    expect(
      ok(
        await call("insert_requirement", {
          category: "general",
          chapter: "General",
          title: "Next",
          text: "y",
        }),
      ),
    ).toMatchObject({
      index: "G.G.2",
    });
    expect(err(await call("get_requirements", { category: "general", chapter: "Fake Chapter" }))).toMatch(
      /^Chapter not found/,
    );
  });

  it("round-trips UTF-8 text, titles and chapter names", async () => {
    const text = "Требования: ≤ 120 символов 🚀\n\n| a | b |\n|---|---|\n| é | 中 |";
    const r = ok(
      await call<{ index: string }>("insert_requirement", {
        category: "i18n",
        chapter: "Язык",
        title: "Заголовок 🚀",
        text,
      }),
    );
    expect(r.index).toBe("I.Я.1");
    expect(ok(await call("get_requirement", { index: r.index }))).toMatchObject({
      title: "Заголовок 🚀",
      text,
      chapter: "Язык",
    });
    expect(ok(await call("get_requirement", { index: "i.я.1" }))).toMatchObject({ index: "I.Я.1" });
  });

  it("never lets other tools read or change AGENTS.md, nor delete it", async () => {
    ok(await call("get_instructions"));
    const agentsPath = join(reqDir(), "AGENTS.md");
    await writeFile(agentsPath, "# Instructions\n\n## A.I.1: looks like a requirement\n\nx\n");
    expect(ok(await call("get_categories"))).toEqual({ categories: [] });
    expect(err(await call("get_requirement", { index: "A.I.1" }))).toMatch(/^Category not found/);
    expect(err(await call("get_chapters", { category: "AGENTS" }))).toMatch(/category/);
    expect(ok(await call("search_requirements", { keywords: "looks" }))).toMatchObject({ total: 0 });
    expect(await readFile(agentsPath, "utf8")).toBe(
      "# Instructions\n\n## A.I.1: looks like a requirement\n\nx\n",
    );
  });

  it("writes atomically: no temp or lock files stay behind", async () => {
    for (let i = 0; i < 5; i++)
      ok(await call("insert_requirement", { category: "general", chapter: "A", title: `t${i}`, text: "x" }));
    ok(await call("update_requirement", { index: "G.A.1", text: "y" }));
    ok(await call("delete_requirement", { index: "G.A.2" }));
    expect((await readdir(reqDir())).sort()).toEqual(["AGENTS.md", "general.md"]);
  });
});

describe("beyond the spec", () => {
  beforeEach(async () => {
    ok(
      await call("insert_requirement", {
        category: "general",
        chapter: "Logging",
        title: "Structured logs",
        text: "Logs are JSON lines on stderr.",
      }),
    );
    ok(
      await call("insert_requirement", {
        category: "general",
        chapter: "Logging",
        title: "No secrets",
        text: "Tokens never reach the logs.\nLogs are rotated.",
      }),
    );
    ok(
      await call("insert_requirement", {
        category: "testing",
        chapter: "Unit Tests",
        title: "Real parts",
        text: "Tests use real files, not mocks.",
      }),
    );
  });

  it("searches case-insensitively, ranked, with index, title and snippet", async () => {
    const r = ok(
      await call<{
        results: { index: string; title: string; snippet: string; category: string; chapter: string }[];
        total: number;
      }>("search_requirements", { keywords: "LOGS json" }),
    );
    expect(r.total).toBe(2);
    expect(r.results.map((x) => x.index)).toEqual(["G.L.1", "G.L.2"]);
    expect(r.results[0]).toMatchObject({
      title: "Structured logs",
      snippet: "Logs are JSON lines on stderr.",
      category: "general",
      chapter: "Logging",
    });
    const byIndex = ok(
      await call<{ results: { index: string }[] }>("search_requirements", { keywords: "t.u.1 logs" }),
    );
    expect(byIndex.results[0]?.index).toBe("T.U.1");
    const scoped = ok(
      await call<{ results: { index: string }[] }>("search_requirements", {
        keywords: "real",
        category: "testing",
      }),
    );
    expect(scoped.results.map((x) => x.index)).toEqual(["T.U.1"]);
    expect(ok(await call("search_requirements", { keywords: "nothing-matches-this" }))).toMatchObject({
      total: 0,
      results: [],
    });
    expect(ok(await call("search_requirements", { keywords: "logs" }))).toMatchObject({
      mode: "lexical",
      total: 2,
    });
    expect(err(await call("search_requirements", { keywords: "logs", category: "nope" }))).toMatch(
      /^Category not found: "nope"/,
    );
    expect(err(await call("search_requirements", { keywords: "  " }))).toMatch(
      /keywords: must hold at least one word/,
    );
  });

  it("reads up to 100 indices in one call and refuses more", async () => {
    const r = ok(
      await call<{ requirements: { index: string }[]; errors: { index: string; error: string }[] }>(
        "get_requirement",
        {
          index: ["T.U.1", "G.L.2", "G.L.9"],
        },
      ),
    );
    expect(r.requirements.map((x) => x.index)).toEqual(["T.U.1", "G.L.2"]);
    expect(r.errors).toEqual([
      { index: "G.L.9", error: expect.stringMatching(/^Requirement not found: G\.L\.9/) },
    ]);
    const many = Array.from({ length: 100 }, (_, i) => `G.L.${i + 1}`);
    expect(
      ok(await call<{ requirements: unknown[] }>("get_requirement", { index: many })).requirements,
    ).toHaveLength(2);
    expect(err(await call("get_requirement", { index: [...many, "G.L.101"] }))).toMatch(
      /index: must be an index .* or an array of 1 to 100/,
    );
    expect(err(await call("get_requirement", { index: [] }))).toMatch(/index:/);
  });

  it("deletes a requirement and the heading of a chapter it leaves empty", async () => {
    expect(ok(await call("delete_requirement", { index: "G.L.1" }))).toMatchObject({
      chapter_removed: false,
      deleted: { title: "Structured logs" },
    });
    expect(ok(await call("delete_requirement", { index: "G.L.2" }))).toMatchObject({ chapter_removed: true });
    expect(ok(await call("get_chapters", { category: "general" }))).toEqual({
      category: "general",
      chapters: [],
    });
    expect(err(await call("delete_requirement", { index: "G.L.2" }))).toMatch(
      /^Category not found|^Requirement not found/,
    );
    expect(ok(await call("get_categories"))).toEqual({ categories: ["general", "testing"] });
  });
});

describe("the spec file itself (reqlix-file-tools.md)", () => {
  it("reads as a category: every chapter, every requirement, every body", async () => {
    const content = await readFile(SPEC_PATH, "utf8");
    const spec = parseSpec(content);
    await mkdir(reqDir(), { recursive: true });
    await writeFile(join(reqDir(), "general.md"), content);
    expect(ok(await call("get_chapters", { category: "general" }))).toEqual({
      category: "general",
      chapters: spec.chapters,
    });
    expect(spec.chapters).not.toContain("Categories"); // inside a fence in G.GI.7
    for (const chapter of spec.chapters) {
      const listed = ok(
        await call<{ requirements: unknown[] }>("get_requirements", { category: "general", chapter }),
      );
      expect(listed.requirements).toEqual(
        spec.requirements
          .filter((r) => r.chapter === chapter)
          .map((r) => ({ index: r.index, title: r.title })),
      );
    }
    const all = ok(
      await call<{
        requirements: { index: string; title: string; text: string; chapter: string }[];
        errors: unknown[];
      }>("get_requirement", { index: spec.requirements.map((r) => r.index) }),
    );
    expect(all.errors).toEqual([]);
    expect(
      all.requirements.map(({ index, title, text, chapter }) => ({ chapter, index, title, text })),
    ).toEqual(spec.requirements);
    expect(ok(await call("get_requirement", { index: "G.GI.6" }))).toMatchObject({
      chapter: "reqlix_get_instructions",
    });
  });

  it("round-trips through insert and delete: new indices continue its prefixes, removing them restores every byte", async () => {
    const content = await readFile(SPEC_PATH, "utf8");
    const spec = parseSpec(content);
    await mkdir(reqDir(), { recursive: true });
    await writeFile(join(reqDir(), "general.md"), content);
    const added: string[] = [];
    for (const chapter of spec.chapters) {
      const last = spec.requirements.filter((r) => r.chapter === chapter).at(-1);
      const [c, p, n] = (last?.index ?? "").split(".");
      const r = ok(
        await call<{ index: string }>("insert_requirement", {
          category: "general",
          chapter,
          title: "Added",
          text: "```\n# not a chapter\n```",
        }),
      );
      expect(r.index).toBe(`${c}.${p}.${Number(n) + 1}`);
      expect(ok(await call("get_requirement", { index: r.index }))).toMatchObject({
        chapter,
        title: "Added",
        text: "```\n# not a chapter\n```",
      });
      added.push(r.index);
    }
    expect(added).toContain("G.F.5");
    expect(added).toContain("G.GRQ.6");
    for (const index of added) ok(await call("delete_requirement", { index }));
    expect(await readFile(join(reqDir(), "general.md"), "utf8")).toBe(content);
  });

  it("rebuilt requirement by requirement through insert, gives back the spec file", async () => {
    const content = await readFile(SPEC_PATH, "utf8");
    const spec = parseSpec(content);
    const prefixOf = new Map<string, string>();
    for (const r of spec.requirements) {
      const got = ok(
        await call<{ index: string }>("insert_requirement", {
          category: "general",
          chapter: r.chapter,
          title: r.title,
          text: r.text,
        }),
      );
      prefixOf.set(r.index.split(".").slice(0, 2).join("."), got.index.split(".").slice(0, 2).join("."));
      expect(got.index.split(".")[2]).toBe(r.index.split(".")[2]);
    }
    // Every chapter prefix but one comes out as the spec has it; `Requirements Storage Format` gets R (the spec's F
    // is an editorial choice, see prefix.ts).
    expect([...prefixOf].filter(([a, b]) => a !== b)).toEqual([["G.F", "G.R"]]);
    const rebuilt = await readFile(join(reqDir(), "general.md"), "utf8");
    // The spec file ends with one extra blank line; everything else is byte for byte.
    expect(rebuilt).toBe(content.replace(/\n+$/, "\n").replace(/^## G\.F\./gm, "## G.R."));
  });
});
