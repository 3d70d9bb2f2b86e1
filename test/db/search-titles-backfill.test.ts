/**
 * The title index migration (drizzle/0017): a database that already holds entities gets every one of them
 * in `search_titles`, under search_fts's rowid, and later writes keep the two in step.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { migrationsBefore } from "../helpers/migrations-before.js";

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "reqlix-titles-"));
  db = await openDatabase({ url: `file:${join(dir, "t.db")}` });
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

it("indexes the reference ids and titles of entities written before it, and follows later writes", async () => {
  await migrateDatabase(db, migrationsBefore(dir, "0017_search_titles"));

  const exec = (sql: string, args: string[] = []) => db.client.execute({ sql, args });
  await exec("INSERT INTO workspaces (slug, name) VALUES ('w', 'W')");
  await exec("INSERT INTO requirement_types (workspace_id, name) VALUES (1, 'Functional')");
  await exec(
    "INSERT INTO epics (workspace_id, reference_id, title, description) VALUES (1, 'EP-001', 'Billing', 'invoice')",
  );
  await exec(
    "INSERT INTO user_stories (workspace_id, reference_id, epic_id, title) VALUES (1, 'US-001', 1, 'Invoice by mail')",
  );
  await exec(
    "INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id) VALUES (1, 'REQ-001', 1, 'Invoice totals', 'billing rules', 1)",
  );
  await exec(
    "INSERT INTO acceptance_criteria (workspace_id, reference_id, user_story_id, title) VALUES (1, 'AC-001', 1, 'Invoice shows tax')",
  );

  await migrateDatabase(db);

  const titles = async (q: string) =>
    (
      await exec(
        "SELECT f.reference_id FROM search_titles t JOIN search_fts f ON f.rowid = t.rowid WHERE search_titles MATCH ? ORDER BY t.rowid",
        [q],
      )
    ).rows.map((r) => String(r.reference_id));
  expect(await titles("invoice")).toEqual(["US-001", "REQ-001", "AC-001"]);
  expect(await titles("billing")).toEqual(["EP-001"]);
  expect(await titles('"EP-001"')).toEqual(["EP-001"]);
  await exec("UPDATE epics SET title = 'Invoicing' WHERE id = 1");
  expect(await titles("billing")).toEqual([]);
  expect(await titles("invoicing")).toEqual(["EP-001"]);
  await exec("DELETE FROM acceptance_criteria WHERE id = 1");
  expect(await titles("invoice")).toEqual(["US-001", "REQ-001"]);
  await expect(
    exec("INSERT INTO search_titles(search_titles) VALUES ('integrity-check')"),
  ).resolves.toBeDefined();
});
