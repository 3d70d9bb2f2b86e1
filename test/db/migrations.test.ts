/**
 * The generated migrations on a real libSQL file: idempotent, the whole data model present, reference ids
 * unique per workspace, and the FTS5 indexes kept in step by their triggers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrateDatabase } from "../../src/db/migrate.js";

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "reqlix-mig-"));
  db = await openDatabase({ url: `file:${join(dir, "m.db")}` });
  await migrateDatabase(db);
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const exec = (sql: string, args: (string | number | null)[] = []) => db.client.execute({ sql, args });

describe("migrations", () => {
  it("create every table of the data model and apply only once", async () => {
    await migrateDatabase(db);
    const names = (await exec("SELECT name FROM sqlite_master WHERE type = 'table'")).rows.map((r) =>
      String(r.name),
    );
    for (const table of [
      "workspaces",
      "users",
      "memberships",
      "tokens",
      "workspace_settings",
      "reference_counters",
      "requirement_types",
      "relationship_types",
      "epics",
      "user_stories",
      "requirements",
      "acceptance_criteria",
      "relationships",
      "docsets",
      "docset_pages",
      "audit_events",
      "search_fts",
      "docset_pages_fts",
    ]) {
      expect(names).toContain(table);
    }
    const applied = await exec("SELECT count(*) AS n FROM __drizzle_migrations");
    const journal = await import("../../drizzle/meta/_journal.json", { with: { type: "json" } });
    expect(Number(applied.rows[0]?.n)).toBe(journal.default.entries.length);
  });

  it("reference ids are unique per workspace, not across workspaces", async () => {
    await exec("INSERT INTO workspaces (slug, name) VALUES ('a', 'A'), ('b', 'B')");
    await exec(
      "INSERT INTO epics (workspace_id, reference_id, title) VALUES (1, 'EP-001', 'x'), (2, 'EP-001', 'y')",
    );
    await expect(
      exec("INSERT INTO epics (workspace_id, reference_id, title) VALUES (1, 'EP-001', 'z')"),
    ).rejects.toThrow(/UNIQUE/);
  });

  it("search_fts follows inserts, updates and deletes of every entity kind", async () => {
    await exec("INSERT INTO workspaces (slug, name) VALUES ('a', 'A')");
    await exec("INSERT INTO requirement_types (workspace_id, name) VALUES (1, 'Functional')");
    await exec(
      "INSERT INTO epics (workspace_id, reference_id, title, description) VALUES (1, 'EP-001', 'Checkout', 'Pay for a basket')",
    );
    await exec(
      "INSERT INTO user_stories (workspace_id, reference_id, epic_id, title) VALUES (1, 'US-001', 1, 'Pay by card')",
    );
    await exec(
      "INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id) VALUES (1, 'REQ-001', 1, 'Validate card number', 'Luhn check', 1)",
    );
    await exec(
      "INSERT INTO acceptance_criteria (workspace_id, reference_id, user_story_id, title) VALUES (1, 'AC-001', 1, 'Card declined message')",
    );
    const search = async (q: string) =>
      (
        await exec(
          "SELECT kind, reference_id FROM search_fts WHERE search_fts MATCH ? AND workspace_id = 1 ORDER BY bm25(search_fts)",
          [q],
        )
      ).rows.map((r) => `${r.kind}:${r.reference_id}`);
    expect(await search("card")).toEqual(
      expect.arrayContaining(["user_story:US-001", "requirement:REQ-001", "acceptance_criterion:AC-001"]),
    );
    expect(await search("basket")).toEqual(["epic:EP-001"]);
    expect(await search('"REQ-001"')).toEqual(["requirement:REQ-001"]);
    await exec("UPDATE requirements SET title = 'Validate expiry date', description = '' WHERE id = 1");
    expect(await search("luhn")).toEqual([]);
    expect(await search("expiry")).toEqual(["requirement:REQ-001"]);
    await exec("DELETE FROM acceptance_criteria WHERE id = 1");
    expect(await search("declined")).toEqual([]);
    await exec("UPDATE epics SET status = 'Done' WHERE id = 1"); // not an indexed column: index untouched
    expect(await search("checkout")).toEqual(["epic:EP-001"]);
  });

  it("search_titles (reference id and title alone) follows every entity kind, with search_fts's rowids", async () => {
    await exec("INSERT INTO workspaces (slug, name) VALUES ('a', 'A'), ('b', 'B')");
    await exec(
      "INSERT INTO requirement_types (workspace_id, name) VALUES (1, 'Functional'), (2, 'Functional')",
    );
    await exec(
      "INSERT INTO epics (workspace_id, reference_id, title, description) VALUES (1, 'EP-001', 'Checkout', 'Pay for a basket'), (2, 'EP-001', 'Checkout elsewhere', '')",
    );
    await exec(
      "INSERT INTO user_stories (workspace_id, reference_id, epic_id, title, description) VALUES (1, 'US-001', 1, 'Pay by card', 'card')",
    );
    await exec(
      "INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id) VALUES (1, 'REQ-001', 1, 'Validate card number', 'Luhn check', 1)",
    );
    await exec(
      "INSERT INTO acceptance_criteria (workspace_id, reference_id, user_story_id, title, description) VALUES (1, 'AC-001', 1, 'Card declined message', 'expiry')",
    );
    // The title index holds reference ids and titles only; each row has the rowid search_fts gives it.
    const titles = async (q: string) =>
      (
        await exec(
          "SELECT t.rowid AS rid, f.kind, f.reference_id FROM search_titles t JOIN search_fts f ON f.rowid = t.rowid WHERE search_titles MATCH ? ORDER BY t.rowid",
          [q],
        )
      ).rows.map((r) => `${r.kind}:${r.reference_id}`);
    expect(await titles("card")).toEqual([
      "user_story:US-001",
      "requirement:REQ-001",
      "acceptance_criterion:AC-001",
    ]);
    expect(await titles("checkout")).toEqual(["epic:EP-001", "epic:EP-001"]); // both workspaces
    expect(await titles('"REQ-001"')).toEqual(["requirement:REQ-001"]);
    expect(await titles("basket OR luhn OR expiry")).toEqual([]); // descriptions are not in it
    await exec("UPDATE requirements SET title = 'Validate expiry date' WHERE id = 1");
    expect(await titles("card")).toEqual(["user_story:US-001", "acceptance_criterion:AC-001"]);
    expect(await titles("expiry")).toEqual(["requirement:REQ-001"]);
    await exec("UPDATE requirements SET reference_id = 'REQ-002' WHERE id = 1");
    expect(await titles('"REQ-001"')).toEqual([]);
    expect(await titles('"REQ-002"')).toEqual(["requirement:REQ-002"]);
    await exec("UPDATE user_stories SET description = 'checkout' WHERE id = 1"); // not indexed here
    expect(await titles("checkout")).toEqual(["epic:EP-001", "epic:EP-001"]);
    await exec("DELETE FROM acceptance_criteria WHERE id = 1");
    expect(await titles("declined")).toEqual([]);
    await exec("DELETE FROM epics WHERE workspace_id = 2");
    expect(await titles("checkout")).toEqual(["epic:EP-001"]);
    const indexed = await exec("SELECT count(*) AS n FROM search_titles_docsize");
    const searched = await exec("SELECT count(*) AS n FROM search_fts");
    expect(Number(indexed.rows[0]?.n)).toBe(3);
    expect(Number(indexed.rows[0]?.n)).toBe(Number(searched.rows[0]?.n));
    await expect(
      exec("INSERT INTO search_titles(search_titles) VALUES ('integrity-check')"),
    ).resolves.toBeDefined();
  });

  it("docset_pages_fts follows page inserts, updates and deletes", async () => {
    await exec("INSERT INTO workspaces (slug, name) VALUES ('a', 'A')");
    await exec("INSERT INTO docsets (workspace_id, name) VALUES (1, 'hono')");
    await exec(
      "INSERT INTO docset_pages (workspace_id, docset_id, path, title, content) VALUES (1, 1, 'guide/middleware.md', 'Middleware', 'A middleware runs before the handler')",
    );
    const search = async (q: string) =>
      (await exec("SELECT rowid, path FROM docset_pages_fts WHERE docset_pages_fts MATCH ?", [q])).rows.map(
        (r) => String(r.path),
      );
    expect(await search("handler")).toEqual(["guide/middleware.md"]);
    await exec("UPDATE docset_pages SET content = 'Routing by path' WHERE id = 1");
    expect(await search("handler")).toEqual([]);
    expect(await search("routing")).toEqual(["guide/middleware.md"]);
    await exec("DELETE FROM docset_pages WHERE id = 1");
    expect(await search("routing")).toEqual([]);
    // FTS5 raises SQLITE_CORRUPT_VTAB when the index and the content table disagree.
    await expect(
      exec("INSERT INTO docset_pages_fts(docset_pages_fts) VALUES ('integrity-check')"),
    ).resolves.toBeDefined();
  });
});

describe("concurrent starts", () => {
  it("four clients migrating one new file at once all succeed, and apply each migration once", async () => {
    const url = `file:${join(dir, "race.db")}`;
    const clients = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ url })));
    try {
      await Promise.all(clients.map((c) => migrateDatabase(c)));
      const journal = await import("../../drizzle/meta/_journal.json", { with: { type: "json" } });
      const applied = await clients[0]?.client.execute("SELECT count(*) AS n FROM __drizzle_migrations");
      expect(Number(applied?.rows[0]?.n)).toBe(journal.default.entries.length);
    } finally {
      for (const c of clients) await c.close();
    }
  });
});
