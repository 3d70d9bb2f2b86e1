/**
 * The ixchel toolset through the built companion (`dist/reqlix-mcp.js`) and the real SDK Client over stdio,
 * on repositories generated in temp dirs. Run `npm run build` first.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir, textOf } from "../../helpers/companion.js";
import { writeEntity, writeIxchel, writeSampleGraph } from "./repo-fixture.js";

type Result = Awaited<ReturnType<Companion["client"]["callTool"]>>;

async function call(
  companion: Companion,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const result: Result = await companion.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  const structured = result.structuredContent as Record<string, unknown>;
  // The text block carries the same JSON the structured content does.
  expect(JSON.parse(textOf(result))).toEqual(structured);
  return structured;
}

async function callError(companion: Companion, name: string, args: Record<string, unknown>): Promise<string> {
  const result: Result = await companion.client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  return textOf(result);
}

let root: string;
let cleanup: () => Promise<void>;
let companion: Companion;

beforeAll(async () => {
  ({ path: root, cleanup } = await tempDir("ixchel-stdio-"));
  writeSampleGraph(root);
  // Edge cases that must not break anything: a file outside the kind folders, a duplicate id,
  // unparsable frontmatter, a plain README.
  writeIxchel(
    root,
    "notes/idea-0000d9.md",
    "---\nid: idea-0000d9\ntitle: Stray idea about caching\ntags: [cache]\n---\nA note.\n",
  );
  writeIxchel(root, "issues/copy-of-b1.md", "---\nid: iss-0000b1\ntitle: A copy\n---\n");
  writeIxchel(
    root,
    "reports/rpt-0000e9.md",
    "---\nid: rpt-0000e9\ntitle: Broken\ntags: [a, b\nstatus: x\n---\nbody\n",
  );
  writeIxchel(root, "README.md", "# Our knowledge graph\n");
  mkdirSync(join(root, "packages/app/src"), { recursive: true });
  companion = await startCompanion({ cwd: root, args: ["--toolsets", "ixchel"] });
});

afterAll(async () => {
  await companion?.close();
  await cleanup?.();
});

describe("ixchel over stdio", () => {
  it("lists its thirteen tools with output schemas and honest annotations", async () => {
    const { tools } = await companion.client.listTools();
    const ixchel = tools.filter((t) => t.name.startsWith("ixchel_"));
    expect(ixchel.map((t) => t.name)).toEqual([
      "ixchel_sync",
      "ixchel_init",
      "ixchel_search",
      "ixchel_show",
      "ixchel_graph",
      "ixchel_context",
      "ixchel_tags",
      "ixchel_create",
      "ixchel_link",
      "ixchel_unlink",
      "ixchel_update",
      "ixchel_delete",
      "ixchel_check",
    ]);
    for (const tool of ixchel) expect(tool.outputSchema?.type).toBe("object");
    const readOnly = ixchel.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly).toEqual([
      "ixchel_search",
      "ixchel_show",
      "ixchel_graph",
      "ixchel_context",
      "ixchel_tags",
      "ixchel_check",
    ]);
  });

  it("searches before any explicit sync, lexically, with kind filter and an exact id first", async () => {
    const found = await call(companion, "ixchel_search", { query: "embedded database storage" });
    expect(found.mode).toBe("lexical");
    const hits = found.hits as { id: string; kind: string; title: string; score: number }[];
    expect(hits[0]).toMatchObject({ id: "dec-0000a1", kind: "decision", title: "Use libSQL for storage" });
    expect(hits.every((h) => h.score > 0)).toBe(true);
    const issues = (await call(companion, "ixchel_search", { query: "database", kind: "issue" })).hits as {
      kind: string;
    }[];
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((h) => h.kind === "issue")).toBe(true);
    const byId = (await call(companion, "ixchel_search", { query: "SRC-0000C1", limit: 1 })).hits as {
      id: string;
    }[];
    expect(byId.map((h) => h.id)).toEqual(["src-0000c1"]);
    // Files outside the kind folders are still part of the graph.
    const stray = (await call(companion, "ixchel_search", { query: "caching" })).hits as { id: string }[];
    expect(stray.map((h) => h.id)).toContain("idea-0000d9");
  });

  it("syncs incrementally and counts what is not an entity", async () => {
    expect(await call(companion, "ixchel_sync")).toEqual({
      scanned: 9,
      added: 0,
      modified: 0,
      deleted: 0,
      unchanged: 9,
      invalid: 1,
    });
    expect(readFileSync(join(root, ".ixchel/.cache/.gitignore"), "utf8")).toBe("*\n");
  });

  it("shows an entity with path, frontmatter, body and raw text", async () => {
    const shown = await call(companion, "ixchel_show", { id: "DEC-0000A1" });
    const raw = readFileSync(join(root, ".ixchel/decisions/dec-0000a1.md"), "utf8");
    expect(shown).toMatchObject({
      id: "dec-0000a1",
      kind: "decision",
      title: "Use libSQL for storage",
      path: ".ixchel/decisions/dec-0000a1.md",
      body: "\n# Why\n\nWe need an embedded database that replicates to the edge.\n\n",
      raw,
    });
    expect((shown.frontmatter as Record<string, unknown>).depends_on).toEqual([
      { id: "iss-0000b2", type: "issue" },
      { id: "src-0000c1", type: "source" },
    ]);
    // With a duplicate id, the file at its canonical place wins and the other is named.
    expect(await call(companion, "ixchel_show", { id: "iss-0000b1" })).toMatchObject({
      path: ".ixchel/issues/iss-0000b1.md",
      duplicates: [".ixchel/issues/copy-of-b1.md"],
    });
  });

  it("answers a clear error for an unknown or malformed id", async () => {
    expect(await callError(companion, "ixchel_show", { id: "dec-999999" })).toContain(
      "no entity with id dec-999999",
    );
    expect(await callError(companion, "ixchel_show", { id: "DEC_1" })).toContain(
      "<prefix>-<6 to 12 hex digits>",
    );
    expect(await callError(companion, "ixchel_search", { query: "x", limit: 0 })).toContain("limit");
  });

  it("lists outgoing links grouped by rel and sorted, with null titles for missing targets", async () => {
    expect(await call(companion, "ixchel_graph", { id: "dec-0000a1" })).toEqual({
      id: "dec-0000a1",
      title: "Use libSQL for storage",
      outgoing: [
        {
          rel: "depends_on",
          targets: [
            { id: "iss-0000b2", title: "Busy errors lose writes" },
            { id: "src-0000c1", title: "libsql-client-ts issue 352" },
          ],
        },
        { rel: "relates_to", targets: [{ id: "iss-0000b1", title: "Migrations fail on Workers" }] },
        { rel: "supersedes", targets: [{ id: "dec-0000ff", title: null }] },
      ],
    });
  });

  it("lists incoming links as an extension", async () => {
    expect(await call(companion, "ixchel_graph", { id: "dec-0000a1", direction: "incoming" })).toEqual({
      id: "dec-0000a1",
      title: "Use libSQL for storage",
      incoming: [{ rel: "blocks", sources: [{ id: "iss-0000b2", title: "Busy errors lose writes" }] }],
    });
    const both = await call(companion, "ixchel_graph", { id: "iss-0000b2", direction: "both" });
    expect(both.outgoing).toEqual([
      { rel: "blocks", targets: [{ id: "dec-0000a1", title: "Use libSQL for storage" }] },
    ]);
    expect(both.incoming).toEqual([
      { rel: "depends_on", sources: [{ id: "dec-0000a1", title: "Use libSQL for storage" }] },
    ]);
  });

  it("assembles a context pack with bodies and reports broken links instead of failing", async () => {
    const pack = await call(companion, "ixchel_context", { id: "dec-0000a1" });
    expect((pack.items as { id: string }[]).map((i) => i.id)).toEqual([
      "dec-0000a1",
      "iss-0000b2",
      "src-0000c1",
      "iss-0000b1",
    ]);
    expect(pack.broken).toEqual(["dec-0000ff"]);
    const first = (pack.items as { body: string; depth: number }[])[0];
    expect(first?.body).not.toContain("id: dec-0000a1");
    expect(first?.depth).toBe(0);
    const alone = await call(companion, "ixchel_context", { id: "src-0000c1", depth: 0 });
    expect(alone).toEqual({
      id: "src-0000c1",
      items: [
        {
          id: "src-0000c1",
          kind: "source",
          title: "libsql-client-ts issue 352",
          body: "\nUpstream report.\n",
          depth: 0,
        },
      ],
      broken: [],
    });
  });

  it("lists tags alphabetically with counts, per kind, and the untagged entities", async () => {
    expect(await call(companion, "ixchel_tags")).toEqual({
      total: 6,
      tags: [
        { tag: "cache", count: 1 },
        { tag: "database", count: 3 },
        { tag: "embeddings", count: 1 },
        { tag: "Search", count: 1 },
        { tag: "storage", count: 1 },
        { tag: "workers", count: 1 },
      ],
    });
    expect(await call(companion, "ixchel_tags", { kind: "idea" })).toEqual({
      total: 3,
      tags: [
        { tag: "cache", count: 1 },
        { tag: "embeddings", count: 1 },
        { tag: "Search", count: 1 },
      ],
    });
    expect(await call(companion, "ixchel_tags", { untagged: true })).toEqual({
      total: 1,
      untagged: [{ id: "src-0000c1", kind: "source", title: "libsql-client-ts issue 352" }],
    });
  });

  it("checks the graph: unparsable frontmatter with file and line, duplicates, broken links, misplaced files", async () => {
    const result = await call(companion, "ixchel_check");
    expect(result).toMatchObject({ ok: false, files: 9, entities: 7 });
    const problems = result.problems as { problem: string; path: string; line?: number; id?: string }[];
    expect(problems.map((p) => [p.problem, p.path])).toEqual([
      ["broken_link", ".ixchel/decisions/dec-0000a1.md"],
      ["duplicate_id", ".ixchel/issues/copy-of-b1.md"],
      ["id_folder_mismatch", ".ixchel/issues/copy-of-b1.md"],
      ["outside_kind_folder", ".ixchel/notes/idea-0000d9.md"],
      ["unparsable_frontmatter", ".ixchel/reports/rpt-0000e9.md"],
    ]);
    expect(problems[4]?.line).toBeGreaterThanOrEqual(4);
    expect(problems[4]?.line).toBeLessThanOrEqual(6);
  });

  it("targets the repository from a nested folder, a relative path, or the working directory", async () => {
    const nested = await call(companion, "ixchel_show", {
      id: "iss-0000b2",
      repo: join(root, "packages/app/src"),
    });
    expect(nested.path).toBe(".ixchel/issues/iss-0000b2.md");
    expect((await call(companion, "ixchel_show", { id: "iss-0000b2", repo: "packages/app" })).id).toBe(
      "iss-0000b2",
    );
    const other = await tempDir("ixchel-other-");
    try {
      writeEntity(other.path, { id: "agt-0000aa", title: "Only in the other repository" });
      const hits = (await call(companion, "ixchel_search", { query: "other repository", repo: other.path }))
        .hits as {
        id: string;
      }[];
      expect(hits.map((h) => h.id)).toEqual(["agt-0000aa"]);
      expect(await callError(companion, "ixchel_show", { id: "agt-0000aa" })).toContain("no entity");
    } finally {
      await other.cleanup();
    }
    const none = await tempDir("ixchel-none-");
    try {
      expect(await callError(companion, "ixchel_tags", { repo: none.path })).toContain("No .ixchel/ folder");
    } finally {
      await none.cleanup();
    }
  });

  it("creates, links and unlinks entities, and the graph follows", async () => {
    const created = await call(companion, "ixchel_create", {
      kind: "issue",
      title: "Cache invalidation on rename",
      body: "Renamed files keep stale entries.",
      tags: ["cache"],
      links: { relates_to: ["dec-0000a1"] },
    });
    const id = created.id as string;
    expect(id).toMatch(/^iss-[0-9a-f]{8}$/);
    expect(existsSync(join(root, created.path as string))).toBe(true);
    const hits = (await call(companion, "ixchel_search", { query: "stale entries rename" })).hits as {
      id: string;
    }[];
    expect(hits[0]?.id).toBe(id);

    const bodyBefore = readFileSync(join(root, ".ixchel/issues/iss-0000b1.md"), "utf8").split("\n---\n")[1];
    expect(
      await call(companion, "ixchel_link", { from: "iss-0000b1", rel: "duplicated_by", to: id }),
    ).toMatchObject({
      changed: true,
      targets: [id],
    });
    expect(readFileSync(join(root, ".ixchel/issues/iss-0000b1.md"), "utf8").split("\n---\n")[1]).toBe(
      bodyBefore,
    );
    const incoming = await call(companion, "ixchel_graph", { id, direction: "incoming" });
    expect(incoming.incoming).toEqual([
      { rel: "duplicated_by", sources: [{ id: "iss-0000b1", title: "Migrations fail on Workers" }] },
    ]);

    await call(companion, "ixchel_unlink", { from: "dec-0000a1", rel: "supersedes", to: "dec-0000ff" });
    const after = await call(companion, "ixchel_check");
    expect((after.problems as { problem: string }[]).map((p) => p.problem)).not.toContain("broken_link");
    expect(await callError(companion, "ixchel_link", { from: "iss-0000b1", rel: "title", to: id })).toContain(
      "metadata key",
    );
  });

  it("picks up edits made outside the tools once synced", async () => {
    writeEntity(root, { id: "rpt-0000e1", title: "Quarterly throughput report", tags: ["metrics"] });
    expect(await call(companion, "ixchel_sync")).toMatchObject({ added: 1 });
    const hits = (await call(companion, "ixchel_search", { query: "quarterly throughput" })).hits as {
      id: string;
    }[];
    expect(hits[0]?.id).toBe("rpt-0000e1");
  });
});

describe("ixchel sync progress", () => {
  it("sends progress notifications when the client gives a progress token", async () => {
    const dir = await tempDir("ixchel-progress-");
    const local = await startCompanion({ cwd: dir.path, args: ["--toolsets", "ixchel"] });
    try {
      for (let i = 0; i < 1200; i++) writeEntity(dir.path, { id: `ses-${(0x100000 + i).toString(16)}` });
      const updates: { progress: number; total?: number }[] = [];
      const result = await local.client.callTool({ name: "ixchel_sync", arguments: {} }, undefined, {
        onprogress: (p) => {
          updates.push({ progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }) });
        },
      });
      expect(result.structuredContent).toMatchObject({ scanned: 1200, added: 1200 });
      // The SDK client handles notifications a microtask after they arrive but a response at once, so a last
      // notification read in the same chunk as the response is dropped on the client; the raw-lines test in
      // ixchel-notifications.test.ts shows the server sends it, before the response.
      expect(updates.length).toBeGreaterThanOrEqual(2);
      expect(updates.every((u) => u.total === 1200 && u.progress <= 1200)).toBe(true);
      const steps = updates.map((u) => u.progress);
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
      // Without a token, no notification: the same call completes with the answer only.
      const quiet = await local.client.callTool({ name: "ixchel_sync", arguments: {} });
      expect(quiet.structuredContent).toMatchObject({ unchanged: 1200 });
    } finally {
      await local.close();
      await dir.cleanup();
    }
  });

  it("rebuilds a damaged cache and says so on stderr only", async () => {
    const dir = await tempDir("ixchel-damaged-");
    try {
      writeSampleGraph(dir.path);
      mkdirSync(join(dir.path, ".ixchel/.cache"), { recursive: true });
      writeFileSync(join(dir.path, ".ixchel/.cache/index.json"), '{"version":1,"files":{"x":');
      const local = await startCompanion({ cwd: dir.path, args: ["--toolsets", "ixchel"] });
      try {
        expect(await call(local, "ixchel_sync")).toMatchObject({ scanned: 5, added: 5 });
        expect(local.stderr()).toContain("ixchel cache is damaged");
        const cache = JSON.parse(readFileSync(join(dir.path, ".ixchel/.cache/index.json"), "utf8")) as {
          files: Record<string, unknown>;
        };
        expect(Object.keys(cache.files)).toHaveLength(5);
      } finally {
        await local.close();
      }
    } finally {
      await dir.cleanup();
    }
  });
});
