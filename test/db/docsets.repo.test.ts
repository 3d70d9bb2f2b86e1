/**
 * docsets.repo over a real migrated libSQL database (`:memory:`): workspace scoping of every query, the
 * FTS5 index following page writes, atomic batches, page titles and the FTS query built from keywords.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "../../src/core/errors.js";
import { createWorkspaceOp } from "../../src/db/admin-ops.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import {
  deleteDocset,
  docsRoot,
  getDocset,
  listPages,
  pagesFtsQuery,
  pageTitle,
  registerDocset,
  searchPages,
  setDocsRoot,
  updateDocset,
  upsertPages,
  workspaceCatalog,
} from "../../src/db/docsets.repo.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";

let database: Database;
let a: number;
let b: number;
const now = new Date("2026-01-02T03:04:05.000Z");

async function workspace(slug: string): Promise<number> {
  await createWorkspaceOp(database, { actor: { kind: "cli" }, now }, { slug, name: slug });
  const ws = await database.read((db) => findWorkspaceBySlug(db, slug));
  if (!ws) throw new Error("no workspace");
  return ws.id;
}

beforeAll(async () => {
  database = await openDatabase({ url: ":memory:" });
  await migrateDatabase(database);
  a = await workspace("alpha");
  b = await workspace("beta");
  await database.write((tx) =>
    registerDocset(tx, a, { name: "react", version: "18.2", aliases: ["reactjs"] }, now),
  );
  await database.write((tx) =>
    upsertPages(
      tx,
      a,
      "react",
      [{ path: "hooks/use-state.md", content: "# useState\nState in components." }],
      now,
    ),
  );
});
afterAll(async () => database?.close());

describe("workspace scoping", () => {
  it("another workspace sees no docset, no page and no search hit of this one", async () => {
    expect((await database.read((db) => workspaceCatalog(db, b))).summaries).toEqual([]);
    await expect(database.read((db) => getDocset(db, b, "react"))).rejects.toThrow('Unknown docset "react"');
    await expect(database.read((db) => listPages(db, b, "reactjs", 10))).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      database.write((tx) => upsertPages(tx, b, "react", [{ path: "x.md", content: "useState" }], now)),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(database.write((tx) => deleteDocset(tx, b, "react"))).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      database.write((tx) => updateDocset(tx, b, "react", { version: "1" }, now)),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    // Same name in B: allowed, and each workspace searches only its own pages.
    await database.write((tx) => registerDocset(tx, b, { name: "react", version: "17" }, now));
    await database.write((tx) =>
      upsertPages(tx, b, "react", [{ path: "b.md", content: "useState in B" }], now),
    );
    const inA = await database.read((db) => searchPages(db, a, "react", ["useState"], 10));
    const inB = await database.read((db) => searchPages(db, b, "react", ["useState"], 10));
    expect(inA.map((p) => p.path)).toEqual(["hooks/use-state.md"]);
    expect(inB.map((p) => p.path)).toEqual(["b.md"]);
    await database.write((tx) => deleteDocset(tx, b, "react"));
    expect((await database.read((db) => searchPages(db, a, "react", ["useState"], 10))).length).toBe(1);
  });

  it("docs_root is a per-workspace setting, normalized, defaulting to .knowledge/docs", async () => {
    expect(await database.read((db) => docsRoot(db, a))).toBe(".knowledge/docs");
    await database.write((tx) => setDocsRoot(tx, b, "./vendor//docs/"));
    expect(await database.read((db) => docsRoot(db, b))).toBe("vendor/docs");
    expect(await database.read((db) => docsRoot(db, a))).toBe(".knowledge/docs");
    await database.write((tx) => setDocsRoot(tx, b, null));
    expect(await database.read((db) => docsRoot(db, b))).toBe(".knowledge/docs");
  });
});

describe("pages", () => {
  it("a batch is atomic: when the transaction fails after the upsert, no page and no index entry remain", async () => {
    await expect(
      database.write(async (tx) => {
        await upsertPages(tx, a, "react", [{ path: "lost.md", content: "# Lost\nzebracorn" }], now);
        throw new Error("fails after the pages were written");
      }),
    ).rejects.toThrow("fails after");
    expect(await database.read((db) => searchPages(db, a, "react", ["zebracorn"], 10))).toEqual([]);
    const { pages } = await database.read((db) => listPages(db, a, "react", 100));
    expect(pages.map((p) => p.path)).toEqual(["hooks/use-state.md"]);
  });

  it("an upsert replaces the page and its index entry; the index stays consistent", async () => {
    await database.write((tx) =>
      upsertPages(
        tx,
        a,
        "reactjs",
        [{ path: "hooks/use-state.md", content: "# useState hook\nquokka" }],
        now,
      ),
    );
    expect((await database.read((db) => searchPages(db, a, "react", ["quokka"], 10)))[0]?.title).toBe(
      "useState hook",
    );
    expect(await database.read((db) => searchPages(db, a, "react", ["components"], 10))).toEqual([]);
    await database.client.execute(
      "INSERT INTO docset_pages_fts(docset_pages_fts) VALUES ('integrity-check')",
    );
  });

  it("search ranks a title hit above a body hit, limits the count, and marks matches in the snippet", async () => {
    await database.write((tx) => registerDocset(tx, a, { name: "ranked", version: "1" }, now));
    await database.write((tx) =>
      upsertPages(
        tx,
        a,
        "ranked",
        [
          { path: "body.md", content: "# Other\nSomething about routers here." },
          { path: "title.md", content: "# Routers\nAll of it." },
          { path: "none.md", content: "# None\nNothing." },
        ],
        now,
      ),
    );
    const hits = await database.read((db) => searchPages(db, a, "ranked", ["routers"], 10));
    expect(hits.map((h) => h.path)).toEqual(["title.md", "body.md"]);
    expect(hits[1]?.snippet).toContain("**routers**");
    expect(await database.read((db) => searchPages(db, a, "ranked", ["routers"], 1))).toHaveLength(1);
    // FTS5 syntax in a keyword is taken literally, never as an operator.
    expect(await database.read((db) => searchPages(db, a, "ranked", ['"NEAR(', "*", "OR"], 10))).toEqual([]);
  });
});

describe("definitions", () => {
  it("names and aliases pick one docset across the workspace; a docset may keep its own keys on update", async () => {
    await expect(
      database.write((tx) => registerDocset(tx, a, { name: "reactjs", version: "1" }, now)),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(
      database.write((tx) =>
        registerDocset(tx, a, { name: "preact", version: "1", aliases: ["react"] }, now),
      ),
    ).rejects.toThrow("already used by react 18.2");
    const same = await database.write((tx) =>
      updateDocset(tx, a, "react", { aliases: ["reactjs", "react-dom"] }, now),
    );
    expect(same.aliases).toEqual(["reactjs", "react-dom"]);
    const err = await database
      .write((tx) => updateDocset(tx, a, "react", { aliases: ["react"] }, now))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("invalid_input");
  });

  it("an update with nothing to change writes nothing", async () => {
    const before = await database.read((db) => getDocset(db, a, "react"));
    const later = new Date("2027-01-01T00:00:00.000Z");
    const after = await database.write((tx) => updateDocset(tx, a, "react", {}, later));
    expect(after).toEqual(before);
  });
});

describe("pageTitle", () => {
  it.each([
    ["# Title\ntext", "Title"],
    ["   ## Deep title ##\n", "Deep title"],
    ["intro\n\nSetext\n=====\n", "Setext"],
    ["---\ntitle: meta\n---\n# Real\n", "Real"],
    ["```\n# in code\n```\n# After code\n", "After code"],
    ["~~~~\n```\n# still code\n~~~~\n## Out\n", "Out"],
    ["#\n#nospace\n# Found", "Found"],
    ["no heading at all", "page"],
  ])("%j → %s", (content, title) => {
    expect(pageTitle("guide/page.md", content)).toBe(title);
  });

  it("falls back to the file name for files without an extension", () => {
    expect(pageTitle("README", "")).toBe("README");
  });
});

describe("pagesFtsQuery", () => {
  it("quotes each keyword as a phrase and ORs them; drops keywords with no letter or digit", () => {
    expect(pagesFtsQuery(["useEffect", "clean up"])).toBe('"useEffect" OR "clean up"');
    expect(pagesFtsQuery(['say "hi"'])).toBe('"say  hi"');
    expect(pagesFtsQuery(["***", "--"])).toBeUndefined();
  });
});
