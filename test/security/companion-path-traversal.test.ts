/**
 * Path traversal against every file tool of the companion (reqlix, knowledge, ixchel), generated from the
 * built bundle's `tools/list`: every string argument of every tool gets `..`, absolute paths, paths through
 * symlinks that point out of the project, NUL bytes and 10,000-character names. Nothing outside the
 * project may be read (a sentinel's text never appears in an answer) or written (a listing with hashes of
 * everything beside the project is the same before and after).
 *
 * Root-designating arguments (`project_root`, `repo`) name the project itself, so an absolute path to an
 * existing folder is the client's choice, not traversal; they get the other values (relative paths, NUL,
 * huge names, paths that do not exist) and must not create anything.
 */
import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir } from "../helpers/companion.js";

const SECRET = "SENTINEL-7f3a-outside-secret";
const WORD = "zebracorn";
const ROOT_PARAMS = new Set(["project_root", "repo"]);

interface PropSchema {
  type?: string;
  enum?: unknown[];
  items?: { type?: string };
  anyOf?: PropSchema[];
}

interface Tool {
  name: string;
  inputSchema: { properties?: Record<string, PropSchema>; required?: string[] };
}

/** Whether an argument takes a string, or a list of strings (directly or as one of its `anyOf`). */
function stringShape(schema: PropSchema): "string" | "array" | undefined {
  const options = [schema, ...(schema.anyOf ?? [])];
  if (options.some((o) => o.type === "string")) return "string";
  if (options.some((o) => o.type === "array" && o.items?.type === "string")) return "array";
  return undefined;
}

/** Every file and folder under `dir` (symlinks not followed) with size and content hash. */
async function listing(dir: string, skip: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (path === skip) continue;
      const info = await lstat(path);
      if (entry.isSymbolicLink()) out[path] = `link -> ${await readlink(path)}`;
      else if (entry.isDirectory()) {
        out[path] = "dir";
        await walk(path);
      } else {
        const hash = createHash("sha256")
          .update(await readFile(path))
          .digest("hex");
        out[path] = `file ${info.size} ${hash} ${info.mtimeMs}`;
      }
    }
  };
  await walk(dir);
  return out;
}

let base: { path: string; cleanup(): Promise<void> };
let project: string;
let outside: string;
let companion: Companion;
let tools: Tool[] = [];
let before: Record<string, string>;

/** Values that try to leave the project through an argument that names something inside it. */
function hostilePaths(): string[] {
  return [
    "..",
    "../..",
    "../outside",
    "../outside/secret",
    "../outside/secret.md",
    "../../../../../../../../etc/passwd",
    "..\\..\\outside\\secret",
    "%2e%2e%2foutside%2fsecret",
    outside,
    join(outside, "secret.md"),
    join(outside, "new-file"),
    "/etc/passwd",
    "link-out",
    "link-out/secret.md",
    "leak",
    `leak\u0000.md`,
    `general\u0000/../../outside/secret`,
    "\u0000",
    "a".repeat(10_000),
    `${"../".repeat(3_000)}outside`,
    WORD,
  ];
}

function hostileRoots(): string[] {
  return [
    "..",
    "../outside",
    "relative/dir",
    join(outside, "does-not-exist"),
    `${project}\u0000`,
    `${project}/\u0000/../..`,
    "a".repeat(10_000),
    join(project, "a".repeat(300)),
  ];
}

/** A value that lets a call get past validation and into the file code, by argument name and type. */
function validValue(tool: string, name: string, schema: PropSchema): unknown {
  if (ROOT_PARAMS.has(name)) return project;
  if (schema.enum && schema.enum.length > 0) return name === "kind" ? "decision" : schema.enum[0];
  if (schema.type === "array") return name.includes("keyword") ? [WORD] : ["x"];
  if (schema.type === "integer" || schema.type === "number") return 1;
  if (schema.type === "boolean") return false;
  const byName: Record<string, string> = {
    operation_description: "security test",
    category: "general",
    chapter: "General Requirements",
    title: "Title",
    text: `Body text, ${WORD}.`,
    index: "G.G.1",
    docset: "react",
    id: "dec-abc123",
    from: "dec-abc123",
    to: "iss-def456",
    rel: "relates_to",
    query: WORD,
    keywords: WORD,
  };
  return byName[name] ?? (tool.startsWith("ixchel_") ? "dec-abc123" : "x");
}

function argsFor(tool: Tool): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
    if (tool.inputSchema.required?.includes(name) || ROOT_PARAMS.has(name))
      args[name] = validValue(tool.name, name, schema);
  }
  return args;
}

/** Positive controls: with valid arguments these must work, proving the calls reach the file code. */
const MUST_FIND: Record<string, string> = {
  search_docs: "guide.md",
  list_docsets: "react",
  ixchel_search: "dec-abc123",
  ixchel_show: "We keep decisions as markdown",
  reqlix_get_categories: "general",
  reqlix_get_chapters: "General Requirements",
  reqlix_get_requirements: "G.G.1",
  reqlix_get_requirement: "Body text",
  reqlix_search_requirements: "G.G.1",
};

function textOfResult(result: unknown): string {
  return JSON.stringify(result);
}

beforeAll(async () => {
  base = await tempDir("reqlix-traversal-");
  project = join(base.path, "project");
  outside = join(base.path, "outside");
  await mkdir(outside);
  await mkdir(project);
  // The sentinel is shaped like each toolset's files, so a tool that followed a link out would parse it.
  const sentinel = `---\nid: iss-1eaf01\ntype: issue\ntitle: ${WORD} ${SECRET}\ntags: [${WORD}]\n---\n\n# ${WORD} ${SECRET}\n\n## L.Z.1: ${WORD} ${SECRET}\n\n${WORD} ${SECRET}\n`;
  await writeFile(join(outside, "secret.md"), sentinel);
  await mkdir(join(outside, "reqdir"));
  await writeFile(join(outside, "reqdir", "general.md"), sentinel);

  // Symlinks inside the project that point out of it, where each toolset looks for files.
  await symlink(outside, join(project, "link-out"));
  const req = join(project, "docs", "development", "requirements");
  await mkdir(req, { recursive: true });
  await writeFile(
    join(req, "general.md"),
    `# General Requirements\n\n## G.G.1: Title\n\nBody text, ${WORD}.\n`,
  );
  await symlink(join(outside, "secret.md"), join(req, "leak.md"));
  const docs = join(project, ".knowledge", "docs", "react-18.2");
  await mkdir(docs, { recursive: true });
  await writeFile(
    join(project, ".knowledge", "config.yaml"),
    'docsets:\n  - name: react\n    version: "18.2"\n',
  );
  await writeFile(join(docs, "guide.md"), `# Guide\n\n${WORD} hooks and state\n`);
  await symlink(join(outside, "secret.md"), join(docs, "leak.md"));
  await symlink(outside, join(docs, "out"));
  await mkdir(join(project, ".ixchel", "decisions"), { recursive: true });
  await mkdir(join(project, ".ixchel", "issues"), { recursive: true });
  await writeFile(
    join(project, ".ixchel", "decisions", "dec-abc123.md"),
    `---\nid: dec-abc123\ntype: decision\ntitle: Use markdown\ntags: [docs]\nrelates_to: iss-1eaf01\n---\n\nWe keep decisions as markdown, ${WORD} included.\n`,
  );
  await symlink(join(outside, "secret.md"), join(project, ".ixchel", "issues", "iss-1eaf01.md"));

  companion = await startCompanion({ cwd: project });
  tools = (await companion.client.listTools()).tools as unknown as Tool[];
  before = await listing(base.path, project);
}, 120_000);

afterAll(async () => {
  await companion?.close();
  await base?.cleanup();
});

describe("companion file tools refuse to leave the project", () => {
  it("offers file tools to attack (the bundle was built with its toolsets)", () => {
    expect(tools.length).toBeGreaterThan(0);
  });

  it("never reads outside the project through any string argument of any tool", async () => {
    const leaks: string[] = [];
    let calls = 0;
    const controls: string[] = [];
    // Valid arguments first, for every tool, while the project is as set up: they walk the project, which
    // holds the symlinks out, and prove (MUST_FIND) that the calls reach the file code.
    for (const tool of tools) {
      const plain = textOfResult(
        await companion.client.callTool({ name: tool.name, arguments: argsFor(tool) }),
      );
      calls++;
      if (plain.includes(SECRET)) leaks.push(`${tool.name} (valid arguments): ${plain.slice(0, 300)}`);
      const expected = MUST_FIND[tool.name];
      if (expected !== undefined && !plain.includes(expected))
        controls.push(`${tool.name}: ${plain.slice(0, 300)}`);
    }
    for (const tool of tools) {
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        const shape = stringShape(schema);
        if (shape === undefined) continue;
        const values = ROOT_PARAMS.has(name) ? hostileRoots() : hostilePaths();
        for (const value of values) {
          const args = { ...argsFor(tool), [name]: shape === "array" ? [value] : value };
          const result = await companion.client.callTool({ name: tool.name, arguments: args });
          calls++;
          const text = textOfResult(result);
          if (text.includes(SECRET))
            leaks.push(`${tool.name} ${name}=${JSON.stringify(value).slice(0, 80)}: ${text.slice(0, 300)}`);
        }
      }
    }
    console.log(`path traversal: ${tools.length} tools, ${calls} calls`);
    expect(leaks, leaks.join("\n")).toEqual([]);
    expect(controls, `valid calls that did not reach the files:\n${controls.join("\n")}`).toEqual([]);
    expect(calls).toBeGreaterThan(tools.length);
  }, 240_000);

  it("wrote nothing outside the project, and the companion still answers", async () => {
    const after = await listing(base.path, project);
    expect(after).toEqual(before);
    expect(await readFile(join(outside, "secret.md"), "utf8")).toContain(SECRET);
    const again = await companion.client.listTools();
    expect(again.tools.length).toBe(tools.length);
  });
});

describe("a requirements directory that resolves outside the project", () => {
  it("is refused whether it comes from a symlink or from REQLIX_REQ_REL_PATH", async () => {
    const root2 = join(base.path, "project2");
    await mkdir(join(root2, "docs", "development"), { recursive: true });
    await symlink(join(outside, "reqdir"), join(root2, "docs", "development", "requirements"));
    const root3 = join(base.path, "project3");
    await mkdir(root3);
    const listingBefore = await listing(outside, "");
    for (const [root, env] of [
      [root2, {}],
      [root3, { REQLIX_REQ_REL_PATH: "../outside/reqdir" }],
      [root3, { REQLIX_REQ_REL_PATH: join(outside, "reqdir") }],
    ] as const) {
      const c = await startCompanion({ cwd: root, env });
      try {
        const names = (await c.client.listTools()).tools
          .map((t) => t.name)
          .filter((n) => n.startsWith("reqlix_"));
        expect(names.length, "the reqlix toolset is in the bundle").toBeGreaterThan(0);
        for (const name of names) {
          const tool = (await c.client.listTools()).tools.find((t) => t.name === name) as unknown as Tool;
          const args = { ...argsFor(tool), project_root: root };
          const result = (await c.client.callTool({ name, arguments: args })) as { isError?: boolean };
          expect(textOfResult(result)).not.toContain(SECRET);
        }
      } finally {
        await c.close();
      }
    }
    expect(await listing(outside, "")).toEqual(listingBefore);
  }, 120_000);
});
