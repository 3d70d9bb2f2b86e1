import { beforeEach, describe, expect, it } from "vitest";
import { check, context, graph, show, tags } from "../../../src/local/ixchel/queries.js";
import { IxchelStore } from "../../../src/local/ixchel/store.js";
import { tempDir } from "../../helpers/companion.js";
import { writeEntity, writeIxchel } from "./repo-fixture.js";

let store: IxchelStore;
let root: string;

beforeEach(async () => {
  const dir = await tempDir("ixchel-queries-");
  root = dir.path;
  // A cycle a → b → c → a, plus c → a missing target and an object-valued link.
  writeEntity(root, { id: "dec-00000a", title: "A", tags: ["x"], extra: "next: iss-00000b" });
  writeEntity(root, {
    id: "iss-00000b",
    title: "B",
    tags: ["Y", "x"],
    extra: "next:\n  - {id: idea-00000c, type: idea}",
  });
  writeEntity(root, { id: "idea-00000c", title: "C", extra: "next: [dec-00000a, rpt-0000ff]" });
  store = new IxchelStore(root, () => {});
  await store.sync();
  return dir.cleanup;
});

describe("context", () => {
  it("walks breadth first to the given depth, visits each entity once and lists broken links", () => {
    expect(context(store, "dec-00000a", 1).items.map((i) => [i.id, i.depth])).toEqual([
      ["dec-00000a", 0],
      ["iss-00000b", 1],
    ]);
    const deep = context(store, "dec-00000a", 3);
    expect(deep.items.map((i) => [i.id, i.depth])).toEqual([
      ["dec-00000a", 0],
      ["iss-00000b", 1],
      ["idea-00000c", 2],
    ]);
    expect(deep.broken).toEqual(["rpt-0000ff"]);
    expect(context(store, "dec-00000a", 1).broken).toEqual([]);
  });
});

describe("graph", () => {
  it("follows object-valued links and counts a duplicate's copy once among incoming links", async () => {
    writeIxchel(root, "ideas/copy.md", "---\nid: idea-00000c\ntitle: C copy\nnext: [dec-00000a]\n---\n");
    await store.sync();
    expect(graph(store, "iss-00000b", "outgoing").outgoing).toEqual([
      { rel: "next", targets: [{ id: "idea-00000c", title: "C" }] },
    ]);
    expect(graph(store, "dec-00000a", "incoming").incoming).toEqual([
      { rel: "next", sources: [{ id: "idea-00000c", title: "C" }] },
    ]);
  });
});

describe("tags", () => {
  it("sorts without regard to case and counts each entity once", () => {
    expect(tags(store, undefined, false)).toEqual({
      total: 2,
      tags: [
        { tag: "x", count: 2 },
        { tag: "Y", count: 1 },
      ],
    });
    expect(tags(store, "idea", true)).toEqual({
      total: 1,
      untagged: [{ id: "idea-00000c", kind: "idea", title: "C" }],
    });
  });
});

describe("show and check", () => {
  it("reads the file fresh and lists every kind of problem with a fix", async () => {
    expect(show(store, "dec-00000a").raw).toContain("title: A");
    writeIxchel(root, "issues/no-id.md", "---\ntitle: nothing\n---\n");
    writeIxchel(root, "issues/bad-id.md", "---\nid: ISSUE-7\n---\n");
    writeIxchel(root, "issues/empty.md", "just text\n");
    writeIxchel(root, "decisions/dec-00000d.md", "---\nid: dec-00000d\ntype: issue\n---\n");
    await store.sync();
    const result = check(store);
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => [p.problem, p.path])).toEqual([
      ["type_mismatch", ".ixchel/decisions/dec-00000d.md"],
      ["broken_link", ".ixchel/ideas/idea-00000c.md"],
      ["invalid_id", ".ixchel/issues/bad-id.md"],
      ["missing_frontmatter", ".ixchel/issues/empty.md"],
      ["missing_id", ".ixchel/issues/no-id.md"],
    ]);
    for (const problem of result.problems) expect(problem.message.length).toBeGreaterThan(20);
  });
});
