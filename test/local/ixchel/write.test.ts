import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isDomainError } from "../../../src/core/errors.js";
import { splitFrontmatter } from "../../../src/local/ixchel/frontmatter.js";
import { IxchelStore } from "../../../src/local/ixchel/store.js";
import { createEntity, linkEntities, unlinkEntities } from "../../../src/local/ixchel/write.js";
import { tempDir } from "../../helpers/companion.js";
import { writeIxchel, writeSampleGraph } from "./repo-fixture.js";

let root: string;
let cleanup: () => Promise<void>;
let store: IxchelStore;

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir("ixchel-write-"));
  writeSampleGraph(root);
  store = new IxchelStore(root, () => {});
  await store.sync();
});
afterEach(() => cleanup());

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isDomainError(error)) return error;
    throw error;
  }
  throw new Error("expected a DomainError");
}

const read = (rel: string) => readFileSync(join(root, ".ixchel", rel), "utf8");

describe("createEntity", () => {
  it("writes a new file in the kind folder with a fresh id and complete frontmatter", async () => {
    const created = await createEntity(store, {
      kind: "decision",
      title: "  Adopt BM25: for search  ",
      body: "# Context\n\nWe need search.",
      tags: ["search"],
      links: { relates_to: ["IDEA-0000D1"] },
      status: "proposed",
    });
    expect(created.id).toMatch(/^dec-[0-9a-f]{8}$/);
    expect(created.path).toBe(`.ixchel/decisions/${created.id}.md`);
    const text = readFileSync(join(root, created.path), "utf8");
    expect(text.endsWith("---\n\n# Context\n\nWe need search.\n")).toBe(true);
    expect(store.get(created.id)?.entity).toMatchObject({
      title: "Adopt BM25: for search",
      kind: "decision",
      status: "proposed",
      tags: ["search"],
      links: [{ rel: "relates_to", targets: ["idea-0000d1"] }],
      notes: [],
    });
    const fm = store.get(created.id)?.entity.frontmatter ?? {};
    expect(fm.type).toBe("decision");
    expect(fm.created_at).toBe(fm.updated_at);
    expect(Number.isNaN(Date.parse(String(fm.created_at)))).toBe(false);
  });

  it("creates the kind folder when it is missing and gives every entity its own id", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await createEntity(store, { kind: "session", title: `s${i}` })).id);
    expect(ids.size).toBe(20);
    expect(readdirSync(join(root, ".ixchel/sessions")).filter((f) => f.endsWith(".md"))).toHaveLength(20);
  });

  it("refuses links to unknown ids, bad relationship names and multi-line titles, writing nothing", async () => {
    const before = readdirSync(join(root, ".ixchel/issues")).length;
    expect(
      (
        await failure(
          createEntity(store, { kind: "issue", title: "x", links: { relates_to: ["iss-999999"] } }),
        )
      ).code,
    ).toBe("not_found");
    expect(
      (
        await failure(
          createEntity(store, { kind: "issue", title: "x", links: { "Depends On": ["iss-0000b1"] } }),
        )
      ).message,
    ).toContain("not a relationship name");
    expect(
      (await failure(createEntity(store, { kind: "issue", title: "x", links: { tags: ["iss-0000b1"] } })))
        .message,
    ).toContain("metadata key");
    expect((await failure(createEntity(store, { kind: "issue", title: "a\nb" }))).code).toBe("invalid_input");
    expect(readdirSync(join(root, ".ixchel/issues")).length).toBe(before);
  });

  it("never writes outside .ixchel/, even through a symbolic link", async () => {
    const outside = join(root, "elsewhere");
    mkdirSync(outside);
    symlinkSync(outside, join(root, ".ixchel/reports"));
    const error = await failure(createEntity(store, { kind: "report", title: "r" }));
    expect(error.code).toBe("forbidden");
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe("linkEntities / unlinkEntities", () => {
  it("adds a link as a new list, keeping the body byte for byte and recording updated_at", async () => {
    const body = "\r\nBody with trailing spaces   \n---\nnot: frontmatter\n\n\n";
    writeIxchel(
      root,
      "ideas/idea-0000d2.md",
      `---\nid: idea-0000d2\n# keep this comment\ntitle: T\n---${body}`,
    );
    await store.sync();
    const result = await linkEntities(store, { from: "idea-0000d2", rel: "inspired_by", to: "dec-0000a1" });
    expect(result).toMatchObject({
      changed: true,
      targets: ["dec-0000a1"],
      path: ".ixchel/ideas/idea-0000d2.md",
    });
    const text = read("ideas/idea-0000d2.md");
    expect(splitFrontmatter(text)?.body).toBe(body.slice(2));
    expect(text.endsWith(`---${body}`)).toBe(true);
    expect(text).toContain("# keep this comment");
    expect(text).toMatch(/inspired_by:\n {2}- dec-0000a1\n/);
    expect(text).toMatch(/updated_at: "?\d{4}-/);
    expect(store.get("idea-0000d2")?.entity.links).toEqual([{ rel: "inspired_by", targets: ["dec-0000a1"] }]);
  });

  it("appends to an existing list in its own style: ids stay ids, objects get {id, type}", async () => {
    await linkEntities(store, { from: "dec-0000a1", rel: "depends_on", to: "iss-0000b1" });
    await linkEntities(store, { from: "dec-0000a1", rel: "supersedes", to: "idea-0000d1" });
    const text = read("decisions/dec-0000a1.md");
    expect(text).toContain("  - {id: iss-0000b1, type: issue}");
    expect(text).toContain("supersedes: [dec-0000ff, idea-0000d1]");
    expect(text).toContain("tags: [storage, database]");
    expect(store.get("dec-0000a1")?.entity.links.find((l) => l.rel === "depends_on")?.targets).toEqual([
      "iss-0000b2",
      "src-0000c1",
      "iss-0000b1",
    ]);
  });

  it("turns a single id into a list, and changes nothing when the link exists", async () => {
    const before = read("decisions/dec-0000a1.md");
    expect(
      await linkEntities(store, { from: "dec-0000a1", rel: "relates_to", to: "ISS-0000B1" }),
    ).toMatchObject({ changed: false });
    expect(read("decisions/dec-0000a1.md")).toBe(before);
    await linkEntities(store, { from: "dec-0000a1", rel: "relates_to", to: "idea-0000d1" });
    expect(store.get("dec-0000a1")?.entity.links.find((l) => l.rel === "relates_to")?.targets).toEqual([
      "iss-0000b1",
      "idea-0000d1",
    ]);
  });

  it("refuses a missing entity, a self link, and a key that holds data", async () => {
    expect(
      (await failure(linkEntities(store, { from: "dec-0000a1", rel: "x", to: "iss-424242" }))).code,
    ).toBe("not_found");
    expect(
      (await failure(linkEntities(store, { from: "dec-0000a1", rel: "x", to: "dec-0000a1" }))).code,
    ).toBe("invalid_input");
    writeIxchel(root, "issues/iss-0000b3.md", "---\nid: iss-0000b3\npriority: high\n---\n");
    await store.sync();
    const error = await failure(
      linkEntities(store, { from: "iss-0000b3", rel: "priority", to: "dec-0000a1" }),
    );
    expect(error.code).toBe("conflict");
    expect(error.message).toContain("not a list of ids");
  });

  it("removes one target, the whole key when it was the last, and a broken link too", async () => {
    const body = splitFrontmatter(read("decisions/dec-0000a1.md"))?.body;
    await unlinkEntities(store, { from: "dec-0000a1", rel: "depends_on", to: "iss-0000b2" });
    let links = store.get("dec-0000a1")?.entity.links ?? [];
    expect(links.find((l) => l.rel === "depends_on")?.targets).toEqual(["src-0000c1"]);
    await unlinkEntities(store, { from: "dec-0000a1", rel: "supersedes", to: "dec-0000ff" });
    await unlinkEntities(store, { from: "dec-0000a1", rel: "relates_to", to: "iss-0000b1" });
    links = store.get("dec-0000a1")?.entity.links ?? [];
    expect(links.map((l) => l.rel)).toEqual(["depends_on"]);
    const text = read("decisions/dec-0000a1.md");
    expect(text).not.toContain("supersedes");
    expect(text).not.toContain("relates_to");
    expect(splitFrontmatter(text)?.body).toBe(body);
    expect(text.endsWith(`\n---\n${body}`)).toBe(true);
  });

  it("says when there is no such link", async () => {
    const error = await failure(
      unlinkEntities(store, { from: "iss-0000b1", rel: "blocks", to: "dec-0000a1" }),
    );
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("ixchel_graph");
  });

  it("reports unparsable frontmatter instead of rewriting the file", async () => {
    const path = join(root, ".ixchel/issues/iss-0000b1.md");
    await store.sync();
    writeFileSync(path, "---\nid: iss-0000b1\ntags: [a\n---\nbody\n");
    // The store still knows the entity from before the edit; the write must read the file fresh.
    const error = await failure(linkEntities(store, { from: "iss-0000b1", rel: "x", to: "dec-0000a1" }));
    expect(error.code).toBe("conflict");
    expect(error.message).toMatch(/line \d/);
    expect(readFileSync(path, "utf8")).toBe("---\nid: iss-0000b1\ntags: [a\n---\nbody\n");
  });

  it("leaves no temp files behind", async () => {
    await linkEntities(store, { from: "iss-0000b1", rel: "x", to: "dec-0000a1" });
    rmSync(join(root, ".ixchel/.cache"), { recursive: true, force: true });
    const all = readdirSync(join(root, ".ixchel"), { recursive: true }).map(String);
    expect(all.filter((f) => f.includes(".tmp"))).toEqual([]);
  });
});
