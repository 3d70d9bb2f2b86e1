/**
 * Hosted docsets over real HTTP (issue 5 items 3 and 4): the spec's acceptance criteria
 * (specs/knowledge-docsets.md) as the SDK Client sees them on /mcp and as a script sees them on
 * POST /api/v1/mcp, against the real app on a temp libSQL file. The companion answers the same contract
 * (test/local/knowledge); here the docsets live in the workspace.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TEMPLATE } from "../../src/core/docsets.js";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { rpcHttp, toolHttp } from "../helpers/rpc-http.js";

let server: HostedServer;
let editor: Client;
let viewer: Client;
let outsider: Client;
let editorToken: string;
let viewerToken: string;
let outsiderToken: string;
const clients: Client[] = [];

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "docsets-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("no text content");
  return first.text;
}
async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}
async function fails(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(client, name, args);
  if (!result.isError) throw new Error(`${name} should have failed: ${textOf(result)}`);
  return textOf(result);
}

const search = (docset: string, keywords = ["useEffect"], generalized = ["hooks", "effects"]) => ({
  docset,
  keywords,
  generalized_keywords: generalized,
});

beforeAll(async () => {
  server = await startHosted();
  editorToken = await server.createToken("edith", "editor", "docs-team");
  viewerToken = await server.createToken("victor", "viewer", "docs-team");
  outsiderToken = await server.createToken("olga", "admin", "other-team");
  [editor, viewer, outsider] = await Promise.all([
    connect(editorToken),
    connect(viewerToken),
    connect(outsiderToken),
  ]);
  await ok(editor, "register_docset", {
    name: "react",
    version: "18.2",
    aliases: ["reactjs"],
    description: "React docs",
  });
  await ok(editor, "register_docset", { name: "vue", version: "3.4" });
  await ok(editor, "upload_docset_pages", {
    docset: "react",
    pages: [
      {
        path: "reference/use-effect.md",
        content:
          "# useEffect\n\nuseEffect lets you synchronize a component with an external system.\n\n## Cleanup\n\nReturn a cleanup function.",
      },
      {
        path: "learn/hooks.md",
        content:
          "---\ntitle: ignored\n---\n\n```md\n# not a title\n```\n\nHooks intro\n===========\n\nHooks let you use state and effects.",
      },
      { path: "learn/state.md", content: "No heading here, only words about state." },
    ],
  });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.close();
});

describe("REQ-1: search_docs", () => {
  it("REQ-1: returns navigation instructions for a valid docset, keywords and generalized_keywords (the spec's format, word for word)", async () => {
    const out = await ok<{ instruction: string; local_path: string; docset: string; version: string }>(
      viewer,
      "search_docs",
      search("vue", ["defineProps", "emits"], ["components", "props"]),
    );
    expect(out.local_path).toBe(".knowledge/docs/vue-3.4/");
    expect(out.instruction).toBe(
      "Search for 'defineProps, emits' in folder .knowledge/docs/vue-3.4/. Use your normal text search tools to do this. If the search results don't help you, try to find 'components, props'. If this still doesn't help, ask the user to rephrase it.",
    );
    // No stored page matched: the text the model reads is the instruction and nothing else.
    const result = await call(
      viewer,
      "search_docs",
      search("vue", ["defineProps", "emits"], ["components", "props"]),
    );
    expect(textOf(result)).toBe(out.instruction);
    expect(out).toMatchObject({ docset: "vue", version: "3.4" });
  });

  it("REQ-1: the docset argument matches an alias as well as a name", async () => {
    const byAlias = await ok(viewer, "search_docs", search("reactjs"));
    const byName = await ok(viewer, "search_docs", search("react"));
    expect(byAlias).toEqual(byName);
    expect(byAlias.docset).toBe("react");
  });

  it("REQ-1: also returns the best matching stored pages (path, title, snippet), keywords first", async () => {
    const out = await ok<{
      matched_on: string;
      pages: { path: string; title: string; snippet: string }[];
      mode: string;
    }>(viewer, "search_docs", search("react", ["useEffect", "cleanup"]));
    expect(out.matched_on).toBe("keywords");
    expect(out.mode).toBe("lexical");
    expect(out.pages[0]).toMatchObject({ path: "reference/use-effect.md", title: "useEffect" });
    expect(out.pages[0]?.snippet).toContain("**");
    expect(out.pages.map((p) => p.path)).not.toContain("learn/state.md");
    const text = textOf(await call(viewer, "search_docs", search("react", ["useEffect"])));
    expect(text.startsWith(`Search for 'useEffect' in folder .knowledge/docs/react-18.2/.`)).toBe(true);
    expect(text).toContain("reference/use-effect.md — useEffect");
  });

  it("REQ-1: falls back to the generalized keywords only when the keywords match no stored page", async () => {
    const out = await ok<{ matched_on: string; pages: { path: string; title: string }[] }>(
      viewer,
      "search_docs",
      search("react", ["zzznothing"], ["state"]),
    );
    expect(out.matched_on).toBe("generalized_keywords");
    expect(out.pages.map((p) => p.path).sort()).toEqual(["learn/hooks.md", "learn/state.md"]);
    const none = await ok<{ matched_on: unknown; pages: unknown[] }>(
      viewer,
      "search_docs",
      search("react", ["zzz"], ["yyy"]),
    );
    expect(none).toMatchObject({ matched_on: null, pages: [] });
  });

  it("REQ-1 / REQ-7: an unknown docset name returns an error listing the available docsets and aliases", async () => {
    const message = await fails(viewer, "search_docs", search("angular"));
    expect(message).toContain('Unknown docset "angular"');
    expect(message).toContain("react (aliases: reactjs), vue");
    const rpc = await rpcHttp(server.url, viewerToken, "tools/call", {
      name: "search_docs",
      arguments: search("angular"),
    });
    expect(rpc.body.error.code).toBe(-32002);
    expect(rpc.body.error.data).toMatchObject({
      reference_id: "angular",
      available: [
        { name: "react", aliases: ["reactjs"] },
        { name: "vue", aliases: [] },
      ],
    });
  });

  it("REQ-1: an empty keywords array returns a validation error", async () => {
    const message = await fails(viewer, "search_docs", search("react", []));
    expect(message).toContain("keywords");
    expect(message).toContain("at least one keyword");
    const rpc = await rpcHttp(server.url, viewerToken, "tools/call", {
      name: "search_docs",
      arguments: search("react", []),
    });
    expect(rpc.body.error.code).toBe(-32602);
    expect(JSON.stringify(rpc.body.error.data.errors)).toContain("keywords");
  });

  // REQ-1 / REQ-9's 10 ms is a speed target: bench/docsets-hosted.ts measures hosted search_docs (p50, p99,
  // CPU) with 10,000 stored pages, rather than a timed test on a shared machine.
});

describe("REQ-2 / REQ-5: list_docsets and local_path", () => {
  it("REQ-2: returns name, version, aliases and local_path for each registered docset", async () => {
    expect(await ok(viewer, "list_docsets")).toEqual({
      docsets: [
        { name: "react", version: "18.2", aliases: ["reactjs"], local_path: ".knowledge/docs/react-18.2/" },
        { name: "vue", version: "3.4", aliases: [], local_path: ".knowledge/docs/vue-3.4/" },
      ],
    });
  });

  it("REQ-2: returns an empty array when no docsets are registered (another workspace sees none of these)", async () => {
    expect(await ok(outsider, "list_docsets")).toEqual({ docsets: [] });
    expect((await toolHttp(server.url, outsiderToken, "list_docsets", {})).docsets).toEqual([]);
  });

  it("REQ-5: the workspace docs_root setting sets {docs_root}/{docset}-{version}/ with forward slashes; null returns to .knowledge/docs", async () => {
    const ws = await server.createToken("wendy", "editor", "root-team");
    await toolHttp(server.url, ws, "register_docset", { name: "react", version: "18.2" });
    expect(await toolHttp(server.url, ws, "set_docs_root", { docs_root: "docs\\vendor\\..\\kb/" })).toEqual({
      docs_root: "docs/kb",
    });
    const listed = await toolHttp(server.url, ws, "list_docsets", {});
    expect(listed.docsets).toEqual([
      { name: "react", version: "18.2", aliases: [], local_path: "docs/kb/react-18.2/" },
    ]);
    const found = await toolHttp(server.url, ws, "search_docs", search("react"));
    expect(found.instruction).toContain("in folder docs/kb/react-18.2/.");
    await toolHttp(server.url, ws, "set_docs_root", { docs_root: null });
    expect(
      ((await toolHttp(server.url, ws, "list_docsets", {})).docsets as { local_path: string }[])[0]
        ?.local_path,
    ).toBe(".knowledge/docs/react-18.2/");
    // The other workspaces keep their own root.
    expect(
      (await ok<{ docsets: { local_path: string }[] }>(viewer, "list_docsets")).docsets[0]?.local_path,
    ).toBe(".knowledge/docs/react-18.2/");
  });
});

describe("REQ-6: templates", () => {
  it("REQ-6: the default template when the docset has none; a docset's own template substitutes the five variables, leaves unknown ones, joins with ', '", async () => {
    const ws = await server.createToken("tina", "editor", "template-team");
    await toolHttp(server.url, ws, "register_docset", {
      name: "hono",
      version: "4.6",
      template:
        "In {docset} {version} at {local_path}: look for {keywords}, else {generalized_keywords}. {unknown} stays.",
    });
    const out = await toolHttp(
      server.url,
      ws,
      "search_docs",
      search("hono", ["middleware", "cors"], ["routing"]),
    );
    expect(out.instruction).toBe(
      "In hono 4.6 at .knowledge/docs/hono-4.6/: look for middleware, cors, else routing. {unknown} stays.",
    );
    await toolHttp(server.url, ws, "update_docset", { docset: "hono", template: null });
    const plain = await toolHttp(server.url, ws, "search_docs", search("hono", ["a"], ["b"]));
    expect(plain.instruction).toBe(
      DEFAULT_TEMPLATE.replace("{keywords}", "a")
        .replace("{local_path}", ".knowledge/docs/hono-4.6/")
        .replace("{generalized_keywords}", "b"),
    );
  });
});

describe("REQ-7: validation and errors", () => {
  it("REQ-7: a docset name with invalid characters returns a validation error that says how to fix it", async () => {
    const message = await fails(editor, "register_docset", { name: "React JS", version: "18" });
    expect(message).toContain("invalid characters");
    expect(message).toContain("lowercase letters");
    const rpc = await rpcHttp(server.url, editorToken, "tools/call", {
      name: "register_docset",
      arguments: { name: "React", version: "18" },
    });
    expect(rpc.body.error.code).toBe(-32602);
    expect(rpc.body.error.data.errors[0].field).toBe("name");
    expect(JSON.stringify(rpc.body.error.data.errors)).toContain('did you mean \\"react\\"');
    expect(await fails(viewer, "search_docs", search("../etc"))).toContain("invalid characters");
  });

  it("REQ-7: more than 20 keywords, or one over 100 characters, returns a validation error", async () => {
    const many = Array.from({ length: 21 }, (_, i) => `k${i}`);
    expect(await fails(viewer, "search_docs", search("react", many))).toContain("21 items; at most 20");
    expect(await fails(viewer, "search_docs", search("react", ["x".repeat(101)]))).toContain("at most 100");
    expect(await fails(viewer, "search_docs", search("react", ["ok"], many))).toContain(
      "generalized_keywords",
    );
  });

  it("REQ-7: a name or alias already used by another docset is a conflict naming both", async () => {
    const message = await fails(editor, "register_docset", { name: "reactjs", version: "19" });
    expect(message).toContain('"reactjs"');
    expect(message).toContain("react 18.2");
    const rpc = await rpcHttp(server.url, editorToken, "tools/call", {
      name: "update_docset",
      arguments: { docset: "vue", aliases: ["react"] },
    });
    expect(rpc.body.error.code).toBe(-32009);
    expect(await fails(editor, "register_docset", { name: "vue", version: "2.7" })).toContain(
      "already used by vue 3.4",
    );
    expect(
      await fails(editor, "register_docset", { name: "svelte", version: "5", aliases: ["sv", "sv"] }),
    ).toContain("twice");
  });

  it("REQ-7: an invalid version is refused (it becomes part of a folder name)", async () => {
    expect(await fails(editor, "register_docset", { name: "svelte", version: "../5" })).toContain("version");
    expect(await fails(editor, "register_docset", { name: "svelte", version: "" })).toContain("version");
  });
});

describe("REQ-8: MCP protocol over HTTP", () => {
  it("REQ-8: registers search_docs and list_docsets (and the docset tools) with SDK tool definitions", async () => {
    // An editor: a viewer is not listed the write tools it may not call.
    const { tools } = await editor.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      "list_docsets",
      "search_docs",
      "register_docset",
      "update_docset",
      "delete_docset",
      "upload_docset_pages",
      "set_docs_root",
    ])
      expect(byName.has(name), name).toBe(true);
    expect(byName.get("search_docs")?.inputSchema.required).toEqual([
      "docset",
      "keywords",
      "generalized_keywords",
    ]);
    expect(byName.get("search_docs")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("delete_docset")?.annotations?.destructiveHint).toBe(true);
  });

  it("REQ-8: an undefined tool or method returns method not found; malformed JSON a parse error", async () => {
    const tool = await rpcHttp(server.url, viewerToken, "tools/call", {
      name: "search_documents",
      arguments: {},
    });
    expect(tool.body.error.code).toBe(-32601);
    const method = await rpcHttp(server.url, viewerToken, "docs/search", {});
    expect(method.body.error.code).toBe(-32601);
    const res = await fetch(`${server.url}/api/v1/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${viewerToken}` },
      body: '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});

describe("docset management (editors) and roles", () => {
  it("viewers get Forbidden for register, update, upload, set_docs_root and delete, and nothing changes", async () => {
    for (const [name, args] of [
      ["register_docset", { name: "angular", version: "17" }],
      ["update_docset", { docset: "react", version: "19.0" }],
      ["upload_docset_pages", { docset: "react", pages: [{ path: "x.md", content: "# X" }] }],
      ["set_docs_root", { docs_root: "elsewhere" }],
      ["delete_docset", { docset: "react" }],
    ] as const) {
      expect(await fails(viewer, name, args)).toMatch(/^Forbidden: .* needs the editor role/);
      const rpc = await rpcHttp(server.url, viewerToken, "tools/call", { name, arguments: args });
      expect(rpc.status).toBe(403);
      expect(rpc.body.error.code).toBe(-32003);
    }
    const listed = await ok<{ docsets: { name: string; version: string }[] }>(viewer, "list_docsets");
    expect(listed.docsets.map((d) => `${d.name} ${d.version}`)).toEqual(["react 18.2", "vue 3.4"]);
  });

  it("update_docset changes version, aliases and description; omitted fields stay; local_path follows the version", async () => {
    const ws = await server.createToken("uma", "editor", "update-team");
    await toolHttp(server.url, ws, "register_docset", {
      name: "next",
      version: "14",
      aliases: ["nextjs"],
      description: "Next",
    });
    const updated = await toolHttp(server.url, ws, "update_docset", { docset: "nextjs", version: "15.1" });
    expect(updated).toMatchObject({
      name: "next",
      version: "15.1",
      aliases: ["nextjs"],
      description: "Next",
      page_count: 0,
    });
    const cleared = await toolHttp(server.url, ws, "update_docset", {
      docset: "next",
      aliases: [],
      description: null,
    });
    expect(cleared.aliases).toEqual([]);
    expect(cleared.description).toBeUndefined();
    const listed = await toolHttp(server.url, ws, "list_docsets", {});
    expect(listed.docsets).toEqual([
      { name: "next", version: "15.1", aliases: [], local_path: ".knowledge/docs/next-15.1/" },
    ]);
    const unknown = await rpcHttp(server.url, ws, "tools/call", {
      name: "update_docset",
      arguments: { docset: "nextjs", version: "16" },
    });
    expect(unknown.body.error.code).toBe(-32002);
  });

  it("delete_docset removes the docset and its pages from list and search", async () => {
    const ws = await server.createToken("dora", "editor", "delete-team");
    await toolHttp(server.url, ws, "register_docset", { name: "astro", version: "4" });
    await toolHttp(server.url, ws, "upload_docset_pages", {
      docset: "astro",
      pages: [{ path: "a.md", content: "# Islands\nislands" }],
    });
    expect(await toolHttp(server.url, ws, "delete_docset", { docset: "astro" })).toEqual({
      name: "astro",
      version: "4",
      pages_deleted: 1,
    });
    expect((await toolHttp(server.url, ws, "list_docsets", {})).docsets).toEqual([]);
    const rows = await server.database.client.execute(
      "SELECT count(*) AS n FROM docset_pages_fts WHERE docset_pages_fts MATCH 'islands'",
    );
    expect(Number(rows.rows[0]?.n)).toBe(0);
    // The name is free again.
    await toolHttp(server.url, ws, "register_docset", { name: "astro", version: "5" });
  });
});

describe("upload_docset_pages", () => {
  it("stores markdown pages with the first heading as title (not in front matter or code), upserts by path", async () => {
    const ws = await server.createToken("paul", "editor", "pages-team");
    await toolHttp(server.url, ws, "register_docset", { name: "svelte", version: "5" });
    const first = await toolHttp(server.url, ws, "upload_docset_pages", {
      docset: "svelte",
      pages: [
        { path: "runes/state.md", content: "# $state\nReactive state with runes." },
        { path: "intro.md", content: "Just text" },
      ],
    });
    expect(first).toEqual({ docset: "svelte", version: "5", created: 2, updated: 0, page_count: 2 });
    const second = await toolHttp(server.url, ws, "upload_docset_pages", {
      docset: "svelte",
      pages: [
        { path: "runes/state.md", content: "# State rune\nNow about signals." },
        { path: "runes/derived.md", content: "## $derived\nDerived values." },
      ],
    });
    expect(second).toEqual({ docset: "svelte", version: "5", created: 1, updated: 1, page_count: 3 });
    const found = await toolHttp(server.url, ws, "search_docs", search("svelte", ["signals"], ["runes"]));
    expect(found.pages).toMatchObject([{ path: "runes/state.md", title: "State rune" }]);
    const old = await toolHttp(server.url, ws, "search_docs", search("svelte", ["reactive"], ["zzz"]));
    expect(old.pages).toEqual([]);
    const titles = await server.database.client.execute(
      "SELECT path, title FROM docset_pages WHERE docset_id = (SELECT id FROM docsets WHERE name = 'svelte' AND workspace_id = (SELECT id FROM workspaces WHERE slug = 'pages-team')) ORDER BY path",
    );
    expect(titles.rows.map((r) => [r.path, r.title])).toEqual([
      ["intro.md", "intro"],
      ["runes/derived.md", "$derived"],
      ["runes/state.md", "State rune"],
    ]);
  });

  it("the title comes from the first heading outside front matter and fenced code (setext too)", async () => {
    const page = await ok<{ pages: { path: string; title: string }[] }>(
      viewer,
      "search_docs",
      search("react", ["intro"]),
    );
    expect(page.pages).toEqual([expect.objectContaining({ path: "learn/hooks.md", title: "Hooks intro" })]);
  });

  it("refuses unsafe paths (absolute, '..', backslashes, empty segments) and stores nothing of the batch", async () => {
    for (const path of [
      "/etc/passwd",
      "../secret.md",
      "a/../../b.md",
      "a\\b.md",
      "C:/x.md",
      "a//b.md",
      "./a.md",
      "",
      "a/\u0001.md",
    ]) {
      const rpc = await rpcHttp(server.url, editorToken, "tools/call", {
        name: "upload_docset_pages",
        arguments: {
          docset: "vue",
          pages: [
            { path: "fine.md", content: "# Fine" },
            { path, content: "# Bad" },
          ],
        },
      });
      expect(rpc.body.error?.code, path).toBe(-32602);
      expect(rpc.body.error.data.errors[0].field, path).toBe("pages.1.path");
    }
    const message = await fails(editor, "upload_docset_pages", {
      docset: "vue",
      pages: [{ path: "../x.md", content: "" }],
    });
    expect(message).toContain("'..' segments");
    const vue = await ok<{ pages: unknown[] }>(viewer, "search_docs", search("vue", ["fine"], ["bad"]));
    expect(vue.pages).toEqual([]);
  });

  it("refuses too many pages, oversized pages, an oversized batch and duplicate paths, with clear errors", async () => {
    const pages = (n: number, size = 10) =>
      Array.from({ length: n }, (_, i) => ({ path: `p${i}.md`, content: "x".repeat(size) }));
    expect(await fails(editor, "upload_docset_pages", { docset: "vue", pages: pages(101) })).toContain(
      "101 pages; at most 100",
    );
    expect(await fails(editor, "upload_docset_pages", { docset: "vue", pages: [] })).toContain(
      "at least one page",
    );
    expect(await fails(editor, "upload_docset_pages", { docset: "vue", pages: pages(1, 200_001) })).toContain(
      "split the page",
    );
    expect(await fails(editor, "upload_docset_pages", { docset: "vue", pages: pages(5, 190_000) })).toContain(
      "several calls",
    );
    const dup = await fails(editor, "upload_docset_pages", {
      docset: "vue",
      pages: [
        { path: "a.md", content: "1" },
        { path: "a.md", content: "2" },
      ],
    });
    expect(dup).toContain("also pages[0]");
    expect(await fails(editor, "upload_docset_pages", { docset: "nuxt", pages: pages(1) })).toContain(
      'Unknown docset "nuxt"',
    );
  });
});

describe("docset://{name} resource", () => {
  it("reads a docset as markdown with its pages listed; lists the workspace's docsets", async () => {
    const read = await viewer.readResource({ uri: "docset://reactjs" });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe("text/markdown");
    expect(content.text).toContain("# react 18.2");
    expect(content.text).toContain("- local_path: .knowledge/docs/react-18.2/");
    expect(content.text).toContain("| reference/use-effect.md | useEffect |");
    expect(content.text).toContain("React docs");
    const listed = await viewer.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(["docset://react", "docset://vue"]),
    );
    const templates = await viewer.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain("docset://{name}");
  });

  it("an unknown docset is not found (-32002) and lists the available ones", async () => {
    const rpc = await rpcHttp(server.url, viewerToken, "resources/read", { uri: "docset://angular" });
    expect(rpc.body.error.code).toBe(-32002);
    expect(rpc.body.error.message).toContain("react (aliases: reactjs), vue");
  });
});

describe("tenant isolation", () => {
  it("another workspace finds nothing: search, upload, update, delete and the resource all say not found, and A is unchanged", async () => {
    const before = await ok(viewer, "search_docs", search("react", ["useEffect"]));
    expect(await fails(outsider, "search_docs", search("react"))).toContain(
      'Unknown docset "react": no docsets are registered in this workspace. An editor registers one with register_docset',
    );
    expect(await fails(outsider, "update_docset", { docset: "react", version: "0" })).toContain(
      "Unknown docset",
    );
    expect(
      await fails(outsider, "upload_docset_pages", {
        docset: "react",
        pages: [{ path: "evil.md", content: "# Evil useEffect" }],
      }),
    ).toContain("Unknown docset");
    expect(await fails(outsider, "delete_docset", { docset: "reactjs" })).toContain("Unknown docset");
    const read = await rpcHttp(server.url, outsiderToken, "resources/read", { uri: "docset://react" });
    expect(read.body.error.code).toBe(-32002);
    expect(read.text).not.toContain("use-effect");
    // The outsider's own docset of the same name holds only its own pages.
    await ok(outsider, "register_docset", { name: "react", version: "17" });
    await ok(outsider, "upload_docset_pages", {
      docset: "react",
      pages: [{ path: "theirs.md", content: "# Theirs\nuseEffect in 17" }],
    });
    const theirs = await ok<{ pages: { path: string }[] }>(
      outsider,
      "search_docs",
      search("react", ["useEffect"]),
    );
    expect(theirs.pages.map((p) => p.path)).toEqual(["theirs.md"]);
    expect(await ok(viewer, "search_docs", search("react", ["useEffect"]))).toEqual(before);
  });
});
