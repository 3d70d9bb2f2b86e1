/**
 * ixchel_update, ixchel_delete and ixchel_init over real files (hardening #16): what may change, what is
 * kept byte for byte, refusals that name what to do, and a store (and its on-disk cache) that stays right.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isDomainError } from "../../../src/core/errors.js";
import { deleteEntity, updateEntity } from "../../../src/local/ixchel/edit.js";
import { initRepoRoot } from "../../../src/local/ixchel/root.js";
import { searchLexical } from "../../../src/local/ixchel/search.js";
import { IxchelStore } from "../../../src/local/ixchel/store.js";
import { tempDir } from "../../helpers/companion.js";
import { writeEntity, writeSampleGraph } from "./repo-fixture.js";

let root: string;
let cleanup: () => Promise<void>;
let store: IxchelStore;

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir("ixchel-edit-"));
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
const hits = (s: IxchelStore, query: string) => searchLexical(s, { query, limit: 10 }).hits.map((h) => h.id);

/** A second store that starts from the on-disk cache: what the next process would see. */
async function reopened(): Promise<IxchelStore> {
  store.flushCache();
  const next = new IxchelStore(root, () => {});
  await next.sync();
  return next;
}

describe("updateEntity", () => {
  it("changes title, tags and status in place, keeps comments, other keys and the body byte for byte", async () => {
    writeEntity(root, {
      id: "dec-0000a2",
      title: "Old title",
      tags: ["one"],
      extra: "# why we chose it\nstatus: proposed\nrelates_to: iss-0000b1",
      body: "# Body\n\nKept  exactly.\n\n",
    });
    await store.sync();
    const before = read("decisions/dec-0000a2.md");
    const result = await updateEntity(store, {
      id: "DEC-0000A2",
      title: "Searchable newtitleword",
      tags: ["two", "three"],
      status: "accepted",
    });
    expect(result).toMatchObject({
      id: "dec-0000a2",
      changed: true,
      path: ".ixchel/decisions/dec-0000a2.md",
    });
    expect(result.fields).toEqual(["title", "tags", "status"]);
    const after = read("decisions/dec-0000a2.md");
    expect(after.slice(after.indexOf("\n---\n", 4))).toBe(before.slice(before.indexOf("\n---\n", 4)));
    expect(after).toContain("# why we chose it");
    expect(after).toContain("relates_to: iss-0000b1");
    expect(after).toContain("title: Searchable newtitleword");
    expect(store.get("dec-0000a2")?.entity).toMatchObject({
      title: "Searchable newtitleword",
      status: "accepted",
      tags: ["two", "three"],
    });
    expect(store.get("dec-0000a2")?.entity.frontmatter.updated_at).toBeDefined();
    expect(hits(store, "newtitleword")).toEqual(["dec-0000a2"]);
    expect(hits(store, "Old")).not.toContain("dec-0000a2");
    expect(hits(await reopened(), "newtitleword")).toEqual(["dec-0000a2"]);
  });

  it("replaces the body and sets relationships: listed rels get exactly those targets, [] removes one", async () => {
    const result = await updateEntity(store, {
      id: "dec-0000a1",
      body: "New body with bodyonlyword.",
      links: { relates_to: ["idea-0000d1", "iss-0000b2"], supersedes: [] },
    });
    expect(result.fields).toEqual(["body", "links"]);
    const text = read("decisions/dec-0000a1.md");
    expect(text.endsWith("---\n\nNew body with bodyonlyword.\n")).toBe(true);
    const links = store.get("dec-0000a1")?.entity.links ?? [];
    expect(links.find((l) => l.rel === "relates_to")?.targets).toEqual(["idea-0000d1", "iss-0000b2"]);
    expect(links.find((l) => l.rel === "supersedes")).toBeUndefined();
    expect(links.find((l) => l.rel === "depends_on")?.targets).toEqual(["iss-0000b2", "src-0000c1"]);
    expect(hits(store, "bodyonlyword")).toEqual(["dec-0000a1"]);
    expect(hits(store, "replicates")).not.toContain("dec-0000a1");
  });

  it("refuses nothing to change, a multi-line title, metadata keys as rels and unknown targets, writing nothing", async () => {
    const before = read("decisions/dec-0000a1.md");
    expect((await failure(updateEntity(store, { id: "dec-0000a1" }))).message).toMatch(
      /nothing to update.*title, body, tags, status, links/,
    );
    expect((await failure(updateEntity(store, { id: "dec-0000a1", title: "a\nb" }))).message).toMatch(
      /one-line/,
    );
    expect(
      (await failure(updateEntity(store, { id: "dec-0000a1", links: { type: ["iss-0000b1"] } }))).message,
    ).toMatch(/metadata key/);
    const missing = await failure(
      updateEntity(store, { id: "dec-0000a1", links: { relates_to: ["iss-0000ee"] } }),
    );
    expect(missing.code).toBe("not_found");
    const badId = await failure(updateEntity(store, { id: "dec_1", title: "x" }));
    expect(badId.message).toContain("e.g. dec-1a2b3c4d");
    expect(read("decisions/dec-0000a1.md")).toBe(before);
  });
});

describe("deleteEntity", () => {
  it("deletes an entity nothing links to; search, show and the cache forget it", async () => {
    expect(hits(store, "Vector")).toEqual(["idea-0000d1"]);
    const result = await deleteEntity(store, { id: "idea-0000d1" });
    expect(result).toEqual({ id: "idea-0000d1", path: ".ixchel/ideas/idea-0000d1.md", unlinked: [] });
    expect(existsSync(join(root, ".ixchel/ideas/idea-0000d1.md"))).toBe(false);
    expect(store.has("idea-0000d1")).toBe(false);
    expect(hits(store, "Vector")).toEqual([]);
    const next = await reopened();
    expect(next.has("idea-0000d1")).toBe(false);
    expect(hits(next, "Vector")).toEqual([]);
  });

  it("refuses while other entities link to it, naming them and both ways out, and changes nothing", async () => {
    const before = read("issues/iss-0000b2.md");
    const error = await failure(deleteEntity(store, { id: "iss-0000b2" }));
    expect(error.code).toBe("conflict");
    expect(error.message).toContain("dec-0000a1 (depends_on)");
    expect(error.message).toContain("ixchel_unlink");
    expect(error.message).toContain("cascade: true");
    expect(read("issues/iss-0000b2.md")).toBe(before);
    expect(store.has("iss-0000b2")).toBe(true);
  });

  it("with cascade removes the links to it from the linking entities first, keeping their bodies", async () => {
    const body = (t: string) => t.slice(t.indexOf("\n---\n", 4));
    const linkerBefore = read("decisions/dec-0000a1.md");
    const result = await deleteEntity(store, { id: "iss-0000b2", cascade: true });
    expect(result.unlinked).toEqual([{ from: "dec-0000a1", rel: "depends_on" }]);
    expect(existsSync(join(root, ".ixchel/issues/iss-0000b2.md"))).toBe(false);
    const linker = read("decisions/dec-0000a1.md");
    expect(body(linker)).toBe(body(linkerBefore));
    expect(store.get("dec-0000a1")?.entity.links.find((l) => l.rel === "depends_on")?.targets).toEqual([
      "src-0000c1",
    ]);
    // Its own outgoing link (blocks: dec-0000a1) went with it; nothing is left broken.
    expect(store.has("iss-0000b2")).toBe(false);
  });

  it("refuses an unknown id with how to find ids", async () => {
    const error = await failure(deleteEntity(store, { id: "iss-00ffff" }));
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("ixchel_search");
  });
});

describe("initRepoRoot", () => {
  it("creates .ixchel/ at the git top of the given path, and is idempotent", async () => {
    const { path: repo, cleanup: done } = await tempDir("ixchel-init-");
    try {
      mkdirSync(join(repo, ".git"));
      mkdirSync(join(repo, "packages/app"), { recursive: true });
      expect(initRepoRoot(join(repo, "packages/app"), "/")).toEqual({ root: repo, created: true });
      expect(existsSync(join(repo, ".ixchel"))).toBe(true);
      expect(initRepoRoot(join(repo, "packages/app"), "/")).toEqual({ root: repo, created: false });
      expect(initRepoRoot(undefined, repo)).toEqual({ root: repo, created: false });
    } finally {
      await done();
    }
  });

  it("never creates it through a relative repo that leads out of the working directory", async () => {
    const { path: base, cleanup: done } = await tempDir("ixchel-init-");
    try {
      mkdirSync(join(base, "project"));
      for (const repo of ["..", "../project/.."]) {
        expect(() => initRepoRoot(repo, join(base, "project"))).toThrow(
          /leads outside the working directory.*absolute path/,
        );
      }
      expect(existsSync(join(base, ".ixchel"))).toBe(false);
      expect(initRepoRoot(base, join(base, "project"))).toEqual({ root: base, created: true });
    } finally {
      await done();
    }
  });

  it("without a git folder above, creates it in the given folder", async () => {
    const { path: dir, cleanup: done } = await tempDir("ixchel-init-");
    try {
      writeFileSync(join(dir, "file.txt"), "x");
      expect(initRepoRoot(join(dir, "file.txt"), "/")).toEqual({ root: dir, created: true });
    } finally {
      await done();
    }
  });
});
