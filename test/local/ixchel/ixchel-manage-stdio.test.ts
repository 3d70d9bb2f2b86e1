/**
 * ixchel_init, the first ixchel_create in a repository without .ixchel/, ixchel_update and ixchel_delete
 * through the built companion and the SDK Client over stdio (hardening #16). Run `npm run build` first.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir, textOf } from "../../helpers/companion.js";
import { writeSampleGraph } from "./repo-fixture.js";

let dir: { path: string; cleanup(): Promise<void> };
let companion: Companion | undefined;

beforeEach(async () => {
  dir = await tempDir("ixchel-manage-");
});
afterEach(async () => {
  await companion?.close();
  companion = undefined;
  await dir.cleanup();
});

async function start(cwd: string): Promise<Companion> {
  companion = await startCompanion({ cwd, args: ["--toolsets", "ixchel"] });
  return companion;
}

async function call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await (companion as Companion).client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as Record<string, unknown>;
}

async function callError(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await (companion as Companion).client.callTool({ name, arguments: args });
  expect(result.isError, textOf(result)).toBe(true);
  return textOf(result);
}

describe("a repository without .ixchel/", () => {
  it("ixchel_init creates it at the git top, idempotently, and the tools work there", async () => {
    mkdirSync(join(dir.path, ".git"));
    mkdirSync(join(dir.path, "app/src"), { recursive: true });
    await start(join(dir.path, "app/src"));
    expect(await callError("ixchel_search", { query: "anything" })).toContain("ixchel_init");
    expect(await call("ixchel_init")).toEqual({ root: dir.path, created: true, entities: 0 });
    expect(existsSync(join(dir.path, ".ixchel"))).toBe(true);
    expect(await call("ixchel_init", { repo: dir.path })).toEqual({
      root: dir.path,
      created: false,
      entities: 0,
    });
    expect(await call("ixchel_search", { query: "anything" })).toMatchObject({ hits: [] });
  });

  it("the first ixchel_create makes it and records the entity", async () => {
    await start(dir.path);
    const created = await call("ixchel_create", { kind: "idea", title: "Graph from nothing" });
    expect(existsSync(join(dir.path, String(created.path)))).toBe(true);
    expect((await call("ixchel_search", { query: "nothing" })).hits).toEqual([
      expect.objectContaining({ id: created.id }),
    ]);
  });
});

describe("ixchel_update and ixchel_delete", () => {
  it("update changes what it names and search follows; delete refuses linked entities unless cascade", async () => {
    writeSampleGraph(dir.path);
    await start(dir.path);
    const updated = await call("ixchel_update", {
      id: "iss-0000b1",
      title: "Migrations run from a deploy step",
      tags: ["deploy"],
      status: "closed",
    });
    expect(updated).toEqual({
      id: "iss-0000b1",
      path: ".ixchel/issues/iss-0000b1.md",
      changed: true,
      fields: ["title", "tags", "status"],
    });
    expect((await call("ixchel_search", { query: "deploy step" })).hits).toEqual([
      expect.objectContaining({ id: "iss-0000b1", title: "Migrations run from a deploy step" }),
    ]);
    expect(readFileSync(join(dir.path, ".ixchel/issues/iss-0000b1.md"), "utf8")).toContain(
      "The drizzle migrator reads files",
    );
    expect(await callError("ixchel_update", { id: "iss-0000b1" })).toContain("nothing to update");
    expect(await callError("ixchel_update", { id: "b1", title: "x" })).toContain("e.g. dec-1a2b3c4d");

    const refused = await callError("ixchel_delete", { id: "iss-0000b1" });
    expect(refused).toContain("dec-0000a1 (relates_to)");
    expect(refused).toContain("cascade: true");
    expect(existsSync(join(dir.path, ".ixchel/issues/iss-0000b1.md"))).toBe(true);

    expect(await call("ixchel_delete", { id: "iss-0000b1", cascade: true })).toEqual({
      id: "iss-0000b1",
      path: ".ixchel/issues/iss-0000b1.md",
      unlinked: [{ from: "dec-0000a1", rel: "relates_to" }],
    });
    expect((await call("ixchel_search", { query: "deploy step" })).hits).toEqual([]);
    expect(await callError("ixchel_show", { id: "iss-0000b1" })).toContain("no entity with id iss-0000b1");
    const check = await call("ixchel_check");
    expect((check.problems as { problem: string }[]).filter((p) => p.problem === "broken_link")).toEqual([
      expect.objectContaining({ id: "dec-0000a1" }), // supersedes: dec-0000ff was broken in the fixture already
    ]);
  });
});

describe("argument errors show the id format (hardening #13)", () => {
  it("an empty or malformed id in any id argument gets an example id", async () => {
    writeSampleGraph(dir.path);
    await start(dir.path);
    const cases: [string, Record<string, unknown>][] = [
      ["ixchel_show", { id: "" }],
      ["ixchel_graph", { id: "" }],
      ["ixchel_context", { id: "" }],
      ["ixchel_link", { from: "", rel: "relates_to", to: "iss-0000b1" }],
      ["ixchel_link", { from: "dec-0000a1", rel: "relates_to", to: "" }],
      ["ixchel_unlink", { from: "dec-0000a1", rel: "relates_to", to: "b1" }],
      ["ixchel_update", { id: "", title: "x" }],
      ["ixchel_delete", { id: "" }],
      ["ixchel_delete", { id: "decision-1" }],
    ];
    for (const [name, args] of cases) {
      expect(await callError(name, args), `${name} ${JSON.stringify(args)}`).toContain("e.g. dec-1a2b3c4d");
    }
  });
});
