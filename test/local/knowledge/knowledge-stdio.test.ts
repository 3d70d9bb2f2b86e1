/**
 * specs/knowledge-docsets.md through the real SDK Client over stdio, against the built bundles
 * (`npm run build` first). Each test is named after the acceptance criterion it proves.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir } from "../../helpers/companion.js";
import { KNOWLEDGE_BUNDLE, specInstruction, type ToolResult, text, writeTree } from "./helpers.js";

const CONFIG = `# project docsets
docsets:
  - name: react
    version: "18.2"
    aliases: [reactjs, react-dom]
    homepage: https://react.dev   # unknown property: ignored (REQ-4)
  - name: vue
    version: 3.4
    template: "Open {local_path} and grep for {keywords}; then {generalized_keywords}. ({docset} {version}, {unknown} kept)"
  - name: lodash
    version: "4.17.21"
owner: platform-team                # unknown property: ignored (REQ-4)
`;

const REACT_DOCS = {
  "hooks/use-effect.md": [
    "# useEffect",
    "",
    "useEffect lets you synchronize a component with an external system.",
    "",
    "Return a cleanup function from your effect.",
    "The cleanup runs before the effect runs again.",
    "",
  ].join("\n"),
  "hooks/use-state.md": "# useState\n\nuseState adds a state variable.\nCall it at the top level.\n",
  "reference/api.md": "EFFECTS everywhere\n",
  "image.png": Buffer.from([
    0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 0x63, 0x6c, 0x65, 0x61, 0x6e, 0x75, 0x70,
  ]).toString("latin1"),
};

async function call(companion: Companion, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await companion.client.callTool({ name, arguments: args })) as ToolResult;
}

describe("agentic-knowledge-mcp over stdio, in a project with a configuration", () => {
  let project: Awaited<ReturnType<typeof tempDir>>;
  let companion: Companion;
  let root: string;
  let docs: string;

  beforeAll(async () => {
    project = await tempDir("knowledge-");
    root = project.path;
    docs = `${root}/.knowledge/docs`;
    await writeTree(root, { ".knowledge/config.yaml": CONFIG, "src/app/main.ts": "" });
    for (const [path, content] of Object.entries(REACT_DOCS)) {
      await writeTree(`${docs}/react-18.2`, { [path]: content });
    }
    await writeFile(`${docs}/react-18.2/image.png`, Buffer.from(REACT_DOCS["image.png"], "latin1"));
    // Started two folders below the project root: discovery must walk up (REQ-3).
    companion = await startCompanion({ bundle: KNOWLEDGE_BUNDLE, cwd: join(root, "src/app") });
  });

  afterAll(async () => {
    await companion?.close();
    await project?.cleanup();
  });

  it("REQ-8: implements MCP over stdio and registers search_docs and list_docsets (and nothing else) with SDK tool definitions", async () => {
    expect(companion.client.getServerVersion()?.name).toBe("agentic-knowledge-mcp");
    const { tools } = await companion.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["list_docsets", "search_docs"]);
    const search = tools.find((t) => t.name === "search_docs");
    expect(search?.inputSchema).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["docset", "keywords", "generalized_keywords"]),
      properties: {
        keywords: { type: "array", minItems: 1, maxItems: 20, items: { type: "string", maxLength: 100 } },
      },
    });
    expect(search?.outputSchema).toMatchObject({
      type: "object",
      properties: {
        instruction: { type: "string" },
        local_path: { type: "string" },
        matches: { type: "array" },
      },
    });
    expect(search?.annotations).toMatchObject({ readOnlyHint: true });
    const list = tools.find((t) => t.name === "list_docsets");
    expect(list?.outputSchema).toMatchObject({ properties: { docsets: { type: "array" } } });
  });

  it("REQ-1: returns navigation instructions for a valid docset, keywords and generalized_keywords (the spec's format, word for word)", async () => {
    const result = await call(companion, "search_docs", {
      docset: "lodash",
      keywords: ["debounce", "leading edge"],
      generalized_keywords: ["function utilities", "timing"],
    });
    expect(result.isError).toBeFalsy();
    const localPath = `${root}/.knowledge/docs/lodash-4.17.21/`;
    // lodash has no local folder: the answer is the instruction alone.
    expect(text(result)).toBe(
      specInstruction("debounce, leading edge", localPath, "function utilities, timing"),
    );
    expect(result.structuredContent).toMatchObject({
      docset: "lodash",
      version: "4.17.21",
      local_path: localPath,
      instruction: text(result),
      folder_exists: false,
      matches: [],
      truncated: false,
    });
  });

  it("REQ-1: the docset argument matches an alias as well as a name", async () => {
    const byAlias = await call(companion, "search_docs", {
      docset: "react-dom",
      keywords: ["nothing-matches-this"],
      generalized_keywords: ["nor-this"],
    });
    expect(byAlias.isError).toBeFalsy();
    expect(byAlias.structuredContent).toMatchObject({ docset: "react", version: "18.2" });
    expect(
      text(byAlias).startsWith(specInstruction("nothing-matches-this", `${docs}/react-18.2/`, "nor-this")),
    ).toBe(true);
  });

  it("REQ-1: an unknown docset name returns an error listing the available docsets", async () => {
    const result = await call(companion, "search_docs", {
      docset: "angular",
      keywords: ["signals"],
      generalized_keywords: ["reactivity"],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Unknown docset "angular". Available docsets: react (aliases: reactjs, react-dom), vue, lodash. Call search_docs again with one of these names or aliases.',
    );
  });

  it("REQ-1: an empty keywords array returns a validation error", async () => {
    const result = await call(companion, "search_docs", {
      docset: "react",
      keywords: [],
      generalized_keywords: ["x"],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Invalid arguments for search_docs: keywords: empty list; give at least one keyword, e.g. ["useEffect"]',
    );
  });

  it("REQ-2: list_docsets returns name, version, aliases and local_path for each configured docset", async () => {
    const result = await call(companion, "list_docsets", {});
    expect(result.isError).toBeFalsy();
    const expected = {
      docsets: [
        {
          name: "react",
          version: "18.2",
          aliases: ["reactjs", "react-dom"],
          local_path: `${docs}/react-18.2/`,
        },
        { name: "vue", version: "3.4", aliases: [], local_path: `${docs}/vue-3.4/` },
        { name: "lodash", version: "4.17.21", aliases: [], local_path: `${docs}/lodash-4.17.21/` },
      ],
    };
    expect(result.structuredContent).toEqual(expected);
    expect(JSON.parse(text(result))).toEqual(expected);
  });

  it('REQ-2 / REQ-5: local_path follows "{docs_root}/{docset}-{version}/" with docs_root defaulting to .knowledge/docs, in forward slashes', async () => {
    const { structuredContent } = await call(companion, "list_docsets", {});
    const docsets = (
      structuredContent as { docsets: { name: string; version: string; local_path: string }[] }
    ).docsets;
    for (const d of docsets) {
      expect(d.local_path).toBe(`${root}/.knowledge/docs/${d.name}-${d.version}/`);
      expect(d.local_path).not.toContain("\\");
    }
  });

  it("REQ-3: finds .knowledge/config.yaml in a parent of the working directory", async () => {
    const result = await call(companion, "list_docsets", {});
    expect((result.structuredContent as { docsets: unknown[] }).docsets).toHaveLength(3);
    expect(companion.stderr()).toContain(`${root}/.knowledge/config.yaml`);
  });

  it("REQ-4: supports version and aliases and ignores unknown properties (version 3.4 read as written)", async () => {
    const result = await call(companion, "list_docsets", {});
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).not.toContain("homepage");
  });

  it("REQ-6: a docset with its own template uses it; variables substituted, unknown ones left unchanged", async () => {
    const result = await call(companion, "search_docs", {
      docset: "vue",
      keywords: ["ref", "reactive"],
      generalized_keywords: ["reactivity"],
    });
    expect(text(result)).toBe(
      `Open ${docs}/vue-3.4/ and grep for ref, reactive; then reactivity. (vue 3.4, {unknown} kept)`,
    );
  });

  it("REQ-6: a docset without a template uses the default, keywords joined with comma and space", async () => {
    const result = await call(companion, "search_docs", {
      docset: "lodash",
      keywords: ["a", "b c", "d"],
      generalized_keywords: ["e", "f"],
    });
    expect(text(result)).toBe(specInstruction("a, b c, d", `${docs}/lodash-4.17.21/`, "e, f"));
  });

  it("REQ-7: a docset name with invalid characters returns a validation error that says how to fix it", async () => {
    const result = await call(companion, "search_docs", {
      docset: "React",
      keywords: ["hooks"],
      generalized_keywords: ["react"],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`docset: "React" has invalid characters`);
    expect(text(result)).toContain('did you mean "react"?');
    expect(text(result)).toContain("Call list_docsets");
  });

  it("REQ-7: more than 20 keywords, or a keyword over 100 characters, returns a validation error", async () => {
    const many = await call(companion, "search_docs", {
      docset: "react",
      keywords: Array.from({ length: 21 }, (_, i) => `k${i}`),
      generalized_keywords: ["x"],
    });
    expect(many.isError).toBe(true);
    expect(text(many)).toBe(
      "Invalid arguments for search_docs: keywords: 21 items; at most 20 are allowed: keep the most telling ones",
    );
    const long = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["ok", "x".repeat(101)],
      generalized_keywords: ["x"],
    });
    expect(long.isError).toBe(true);
    expect(text(long)).toBe(
      "Invalid arguments for search_docs: keywords.1: keyword of 101 characters; at most 100 are allowed: use a shorter word or phrase",
    );
    const generalized = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["ok"],
      generalized_keywords: Array.from({ length: 25 }, () => "g"),
    });
    expect(text(generalized)).toContain("generalized_keywords: 25 items; at most 20 are allowed");
  });

  it("REQ-8: calling an undefined tool returns a method-not-found error naming it and the available tools", async () => {
    await expect(call(companion, "search_documentation", {})).rejects.toMatchObject({
      code: -32601,
      message:
        'MCP error -32601: Unknown tool "search_documentation". Available tools: list_docsets, search_docs.',
    });
  });

  it("beyond the spec: searches the local docset folder and returns matches with context after the instruction", async () => {
    const result = await call(companion, "search_docs", {
      docset: "reactjs",
      keywords: ["CLEANUP"],
      generalized_keywords: ["effects"],
      context_lines: 1,
    });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as Record<string, unknown>;
    expect(out).toMatchObject({
      docset: "react",
      folder_exists: true,
      matched_on: "keywords",
      truncated: false,
      files_searched: 4,
      matches: [
        {
          path: "hooks/use-effect.md",
          line: 5,
          text: "Return a cleanup function from your effect.",
          term: "CLEANUP",
          before: [""],
          after: ["The cleanup runs before the effect runs again."],
        },
        {
          path: "hooks/use-effect.md",
          line: 6,
          text: "The cleanup runs before the effect runs again.",
          before: ["Return a cleanup function from your effect."],
          after: [], // the file ends here
        },
      ],
    });
    const body = text(result);
    expect(body.startsWith(`${out.instruction as string}\n\n`)).toBe(true);
    expect(body).toContain("hooks/use-effect.md:5");
    expect(body).toContain("> 5 | Return a cleanup function from your effect.");
    expect(body).not.toContain("image.png"); // binary files are skipped
  });

  it("beyond the spec: falls back to generalized_keywords when the keywords find nothing, and caps matches with truncated", async () => {
    const fallback = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["suspense boundary"],
      generalized_keywords: ["effects"],
    });
    expect(fallback.structuredContent).toMatchObject({
      matched_on: "generalized_keywords",
      matches: [{ path: "reference/api.md", line: 1, text: "EFFECTS everywhere", term: "effects" }],
    });
    const capped = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["use"],
      generalized_keywords: ["x"],
      max_matches: 2,
      context_lines: 0,
    });
    const out = capped.structuredContent as { matches: { path: string; line: number }[]; truncated: boolean };
    expect(out.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
      "hooks/use-effect.md:1",
      "hooks/use-effect.md:3",
    ]);
    expect(out.truncated).toBe(true);
    expect(text(capped)).toContain("more exist");
    const none = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["zzz-nothing"],
      generalized_keywords: ["yyy-nothing"],
    });
    expect(none.structuredContent).toMatchObject({ matched_on: null, matches: [], truncated: false });
    expect(text(none)).toContain("No line in");
  });
});

describe("agentic-knowledge-mcp over stdio, configuration edge cases", () => {
  const dirs: { cleanup(): Promise<void> }[] = [];
  const companions: Companion[] = [];

  async function start(files: Record<string, string>, sub = "", env?: Record<string, string>) {
    const dir = await tempDir("knowledge-edge-");
    dirs.push(dir);
    await writeTree(dir.path, files);
    await mkdir(join(dir.path, sub), { recursive: true });
    const companion = await startCompanion({
      bundle: KNOWLEDGE_BUNDLE,
      cwd: join(dir.path, sub),
      ...(env ? { env } : {}),
    });
    companions.push(companion);
    return { companion, root: dir.path };
  }

  afterAll(async () => {
    for (const c of companions) await c.close();
    for (const d of dirs) await d.cleanup();
  });

  it("REQ-3: with no .knowledge/config.yaml in the directory tree the server still starts, and both tools return a configuration error that says how to create one", async () => {
    const { companion, root } = await start({ "README.md": "x" }, "a/b");
    const { tools } = await companion.client.listTools();
    expect(tools).toHaveLength(2);
    for (const [name, args] of [
      ["list_docsets", {}],
      ["search_docs", { docset: "react", keywords: ["a"], generalized_keywords: ["b"] }],
    ] as const) {
      const result = await call(companion, name, args);
      expect(result.isError).toBe(true);
      const message = text(result);
      expect(message).toContain(`No .knowledge/config.yaml found in ${root}/a/b or any parent folder`);
      expect(message).toContain("there is no global configuration");
      expect(message).toContain('docsets:\n  - name: react\n    version: "18.2"');
    }
  });

  it("REQ-3: never uses a global fallback (a config in HOME or XDG_CONFIG_HOME outside the tree is not read)", async () => {
    const home = await tempDir("knowledge-home-");
    dirs.push(home);
    const global = "docsets:\n  - {name: global, version: '1'}\n";
    await writeTree(home.path, {
      ".knowledge/config.yaml": global,
      ".config/knowledge/config.yaml": global,
      ".config/.knowledge/config.yaml": global,
    });
    const { companion } = await start({ "x.txt": "" }, "", {
      HOME: home.path,
      XDG_CONFIG_HOME: join(home.path, ".config"),
    });
    const result = await call(companion, "list_docsets", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("No .knowledge/config.yaml found");
  });

  it("REQ-3: the nearest .knowledge/config.yaml wins over one further up", async () => {
    const { companion } = await start(
      {
        ".knowledge/config.yaml": "docsets:\n  - {name: outer, version: '1'}\n",
        "pkg/.knowledge/config.yaml": "docsets:\n  - {name: inner, version: '2'}\n",
      },
      "pkg/src",
    );
    const result = await call(companion, "list_docsets", {});
    expect((result.structuredContent as { docsets: { name: string }[] }).docsets.map((d) => d.name)).toEqual([
      "inner",
    ]);
  });

  it("REQ-2: returns an empty array when no docsets are configured", async () => {
    const { companion } = await start({ ".knowledge/config.yaml": "docsets: []\n" });
    const result = await call(companion, "list_docsets", {});
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ docsets: [] });
    const search = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["a"],
      generalized_keywords: ["b"],
    });
    expect(search.isError).toBe(true);
    expect(text(search)).toContain('Unknown docset "react": no docsets are configured');
  });

  it("REQ-4: invalid YAML returns a parse error with line number (and column)", async () => {
    const { companion, root } = await start({
      ".knowledge/config.yaml": 'docsets:\n  - name: react\n    version: "18.2\n  - name: vue\n',
    });
    const result = await call(companion, "list_docsets", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      new RegExp(
        `^${root}/\\.knowledge/config\\.yaml is not valid YAML\\. Fix the syntax at:\\n- line \\d+, column \\d+: `,
      ),
    );
  });

  it("REQ-4: a configuration missing the docsets section returns a validation error with an example", async () => {
    const { companion } = await start({ ".knowledge/config.yaml": "docs_root: docs\ntemplate: hi\n" });
    const result = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["a"],
      generalized_keywords: ["b"],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("is not a usable docsets configuration");
    expect(text(result)).toContain("missing the `docsets` section");
    expect(text(result)).toContain("- name: react");
  });

  it("REQ-5: a relative docs_root resolves against the .knowledge folder; a global template applies", async () => {
    const { companion, root } = await start({
      ".knowledge/config.yaml":
        "docs_root: ../vendor/docs\ntemplate: 'See {local_path} for {keywords} ({docset}@{version})'\ndocsets:\n  - name: react\n    version: '18.2'\n",
    });
    const result = await call(companion, "search_docs", {
      docset: "react",
      keywords: ["a"],
      generalized_keywords: ["b"],
    });
    expect(text(result)).toBe(`See ${root}/vendor/docs/react-18.2/ for a (react@18.2)`);
  });

  it("REQ-5: a docs_root starting with ~/ is in the user's home folder", async () => {
    const home = await tempDir("knowledge-tilde-home-");
    dirs.push(home);
    const { companion } = await start(
      {
        ".knowledge/config.yaml": "docs_root: ~/shared-docs\ndocsets:\n  - {name: react, version: '18.2'}\n",
      },
      "",
      { HOME: home.path },
    );
    const result = await call(companion, "list_docsets", {});
    expect((result.structuredContent as { docsets: { local_path: string }[] }).docsets[0]?.local_path).toBe(
      `${home.path}/shared-docs/react-18.2/`,
    );
  });

  it("REQ-7: a configuration that cannot be read returns a file access error with a remedy", async () => {
    const dir = await tempDir("knowledge-unreadable-");
    dirs.push(dir);
    await mkdir(join(dir.path, ".knowledge/config.yaml"), { recursive: true }); // a folder where the file belongs
    const companion = await startCompanion({ bundle: KNOWLEDGE_BUNDLE, cwd: dir.path });
    companions.push(companion);
    const result = await call(companion, "list_docsets", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      `Cannot read ${dir.path}/.knowledge/config.yaml: it is a folder, not a file`,
    );
  });

  it("REQ-7: an invalid docset name in the configuration is reported with its line and column", async () => {
    const { companion } = await start({
      ".knowledge/config.yaml": "docsets:\n  - name: React Docs\n    version: '18.2'\n",
    });
    const result = await call(companion, "list_docsets", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      '- line 2, column 11: docsets[0].name "React Docs" has invalid characters',
    );
  });
});
