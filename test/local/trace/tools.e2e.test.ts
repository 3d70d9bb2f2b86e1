/**
 * The trace toolset as an assistant uses it: the built bundle over stdio with the SDK Client, in a real git
 * repository; reqlix updates raising a revision; containment; hosted ids resolved through a real local server.
 */
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Companion, startCompanion, textOf } from "../../helpers/companion.js";
import { type Fixture, makeFixture } from "./fixture.js";
import { startContractServer } from "./hosted-server.js";

let fx: Fixture;
let companion: Companion;

async function call<T>(
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; data: T; text: string }> {
  const result = await companion.client.callTool({ name, arguments: args });
  const text = textOf(result);
  const isError = result.isError === true;
  return { isError, data: (isError ? {} : JSON.parse(text)) as T, text };
}

beforeEach(async () => {
  fx = await makeFixture();
  companion = await startCompanion({ cwd: fx.root, env: fx.env, node: "/usr/bin/node" });
});
afterEach(async () => {
  await companion.close();
  await fx.cleanup();
});

describe("trace toolset over stdio", () => {
  it("is on by default and its instructions, and reqlix's, point to trace_file", async () => {
    const names = (await companion.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["trace_file", "trace_requirement", "trace_coverage", "trace_orphans"]),
    );
    const instructions = companion.client.getInstructions() ?? "";
    expect(instructions).toContain("Before editing a file, call trace_file");
    expect(instructions).toContain("call trace_file (trace toolset)");
  });

  it("trace_file: requirements cited in the file and via the tests citing the same ids, with local text", async () => {
    const r = await call<{ path: string; requirements: Record<string, unknown>[] }>("trace_file", {
      project_root: fx.root,
      path: "src/auth.ts",
    });
    expect(r.isError).toBe(false);
    expect(r.data.path).toBe("src/auth.ts");
    const byId = new Map(r.data.requirements.map((q) => [q.id as string, q]));
    expect(byId.get("G.GI.1")).toMatchObject({
      title: "Read first",
      text: "Call the instructions tool first.",
      revision: 1,
      coverage: "covered",
      cited_here: [{ line: 1, column: 27, revision: null, kind: "impl" }],
      tests: [{ file: "src/auth.test.ts", line: 3, test_name: "G.GI.1 instructions %s" }],
    });
    expect(byId.get("G.GI.2")).toMatchObject({
      revision: 3,
      suspect: true,
      text: "Text of the third revision.",
    });
    expect(byId.get("REQ-012")).toMatchObject({ exists: null, coverage: "covered" });
    // AC-004 is not cited in src/auth.ts, but the test citing REQ-012 and G.GI.1 also cites it.
    expect(byId.get("AC-004")).toMatchObject({ cited_here: [], via_tests: ["src/auth.test.ts"] });
  });

  it("trace_file sees an edit made a moment ago, and answers for a file not yet created", async () => {
    await call("trace_file", { project_root: fx.root, path: "src/auth.ts" });
    await fx.write("src/auth.ts", "// only G.GI.3 now\n");
    const r = await call<{ requirements: { id: string }[] }>("trace_file", {
      project_root: fx.root,
      path: join(fx.root, "src/auth.ts"),
    });
    expect(r.data.requirements.map((q) => q.id)).toEqual(["G.GI.3"]);
    const fresh = await call<{ exists: boolean; requirements: unknown[]; note: string }>("trace_file", {
      project_root: fx.root,
      path: "src/new/file.ts",
    });
    expect(fresh.data).toMatchObject({ exists: false, requirements: [] });
    expect(fresh.data.note).toMatch(/No requirement is cited/);
  });

  it("refuses paths outside the project root, through .. or a symbolic link", async () => {
    await symlink("/etc", join(fx.root, "out"));
    for (const path of ["../x.ts", "/etc/passwd", "out/passwd", "src/../../x"]) {
      const r = await call("trace_file", { project_root: fx.root, path });
      expect(r.isError, path).toBe(true);
      expect(r.text).toMatch(/outside the project root/);
    }
    const rel = await call("trace_file", { project_root: "relative/root", path: "a.ts" });
    expect(rel.isError).toBe(true);
    expect(rel.text).toMatch(/project_root must be an absolute path/);
  });

  it("trace_requirement: every citation with file:line, snippet, test name, and the citing commits", async () => {
    const r = await call<{
      citations: Record<string, unknown>[];
      commits: { sha: string; subject: string }[];
      coverage: string;
    }>("trace_requirement", { project_root: fx.root, id: "req-12" });
    expect(r.data.coverage).toBe("covered");
    expect(r.data.citations.map((c) => `${c.file}:${c.line}`)).toEqual([
      "README.md:3",
      "src/auth.test.ts:2",
      "src/auth.ts:1",
    ]);
    expect(r.data.citations[1]).toMatchObject({
      kind: "test",
      test_name: "REQ-012 rejects a wrong password",
      snippet: 'it("REQ-012 rejects a wrong password", () => {});',
    });
    expect(r.data.commits).toEqual([
      { sha: fx.git("rev-parse", "HEAD").trim(), subject: "Handle REQ-012 lockout (AC-004)" },
    ]);
    const bad = await call("trace_requirement", { project_root: fx.root, id: "not an id" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/is not a requirement id/);
  });

  it("trace_coverage: summary counts and paged rows, filtered by status and category", async () => {
    const all = await call<{
      summary: Record<string, number>;
      total: number;
      rows: { id: string }[];
      next_cursor: string | null;
    }>("trace_coverage", { project_root: fx.root, limit: 4 });
    expect(all.data.summary).toMatchObject({ uncovered: 1, orphan: 1, suspect: 1 });
    expect(all.data.rows).toHaveLength(4);
    const rest = await call<{ rows: { id: string }[]; next_cursor: string | null }>("trace_coverage", {
      project_root: fx.root,
      limit: 500,
      cursor: all.data.next_cursor,
    });
    expect([...all.data.rows, ...rest.data.rows].map((r) => r.id)).toHaveLength(all.data.total);
    expect(rest.data.next_cursor).toBeNull();
    const general = await call<{ rows: { id: string; coverage: string }[] }>("trace_coverage", {
      project_root: fx.root,
      category: "general",
    });
    expect(general.data.rows.map((r) => `${r.id} ${r.coverage}`)).toEqual([
      "G.GI.1 covered",
      "G.GI.2 impl_only",
      "G.GI.3 uncovered",
    ]);
    const uncovered = await call<{ rows: { id: string }[] }>("trace_coverage", {
      project_root: fx.root,
      status: "uncovered",
    });
    expect(uncovered.data.rows.map((r) => r.id)).toEqual(["G.GI.3"]);
    const badCursor = await call("trace_coverage", { project_root: fx.root, cursor: "abc" });
    expect(badCursor.isError).toBe(true);
    expect(badCursor.text).toMatch(/cursor "abc" is not a cursor this tool returned/);
  });

  it("a reqlix update raises the revision and makes an old pin suspect (trace_orphans)", async () => {
    await fx.write("src/pin.ts", "// G.GI.1@1\n");
    const before = await call<{ suspects: { id: string }[]; orphans: { id: string }[]; unknown: string[] }>(
      "trace_orphans",
      { project_root: fx.root },
    );
    expect(before.data.orphans.map((c) => c.id)).toEqual(["G.ZZ.4"]);
    expect(before.data.suspects.map((c) => c.id)).toEqual(["G.GI.2"]);
    expect(before.data.unknown).toContain("REQ-999");
    const updated = await companion.client.callTool({
      name: "reqlix_update_requirement",
      arguments: {
        project_root: fx.root,
        operation_description: "tighten",
        index: "G.GI.1",
        text: "Call the instructions tool before anything else.",
      },
    });
    expect(JSON.parse(textOf(updated)).success).toBe(true);
    const after = await call<{
      suspects: { id: string; file: string; revision: number; current_revision: number }[];
    }>("trace_orphans", { project_root: fx.root });
    expect(after.data.suspects).toContainEqual(
      expect.objectContaining({ id: "G.GI.1", file: "src/pin.ts", revision: 1, current_revision: 2 }),
    );
  });
});

describe("trace toolset with a hosted server (REQLIX_URL, REQLIX_TOKEN)", () => {
  it("resolves hosted ids: found ones get title and status, missing ones are orphans", async () => {
    const server = await startContractServer({
      "REQ-012": { kind: "requirement", title: "Lock out", status: "Active", revision: 2 },
    });
    const hosted = await startCompanion({
      cwd: fx.root,
      env: { ...fx.env, REQLIX_URL: server.url, REQLIX_TOKEN: server.token },
      args: ["--toolsets", "trace"],
    });
    try {
      const r = await hosted.client.callTool({
        name: "trace_requirement",
        arguments: { project_root: fx.root, id: "REQ-012" },
      });
      expect(JSON.parse(textOf(r))).toMatchObject({
        exists: true,
        title: "Lock out",
        status: "Active",
        revision: 2,
      });
      const o = await hosted.client.callTool({ name: "trace_orphans", arguments: { project_root: fx.root } });
      expect((JSON.parse(textOf(o)) as { orphans: { id: string }[] }).orphans.map((c) => c.id)).toContain(
        "REQ-999",
      );
      expect(server.problems).toEqual([]);
      expect(hosted.stderr()).not.toContain(server.token);
    } finally {
      await hosted.close();
      await server.close();
    }
  });
});
