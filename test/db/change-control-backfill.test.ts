/**
 * The change-control backfill migration: entities that exist before it get one revision with their current
 * state (the same snapshot the repositories would record), and relationships remember their ends' revisions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { relationshipsOfRequirement } from "../../src/db/relationships.repo.js";
import { getRequirement } from "../../src/db/requirements.repo.js";
import { historyOf } from "../../src/db/revisions.repo.js";
import { getUserStory } from "../../src/db/user-stories.repo.js";
import { migrationsBefore } from "../helpers/migrations-before.js";

let dir: string;
let db: Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "reqlix-backfill-"));
  db = await openDatabase({ url: `file:${join(dir, "b.db")}` });
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

it("gives existing entities and relationships a first revision equal to what the tools show", async () => {
  // The migrations before change control, applied to a database that then holds data.
  await migrateDatabase(db, migrationsBefore(dir, "0008_change_control"));

  const exec = (sql: string) => db.client.execute(sql);
  await exec("INSERT INTO workspaces (slug, name) VALUES ('w', 'W')");
  await exec("INSERT INTO users (username) VALUES ('ann')");
  await exec("INSERT INTO requirement_types (workspace_id, name) VALUES (1, 'Functional')");
  await exec("INSERT INTO relationship_types (workspace_id, name) VALUES (1, 'depends_on')");
  await exec(
    "INSERT INTO epics (workspace_id, reference_id, title, creator_id) VALUES (1, 'EP-001', 'E', 1)",
  );
  await exec(
    "INSERT INTO user_stories (workspace_id, reference_id, epic_id, title, creator_id, assignee_id, revision) VALUES (1, 'US-001', 1, 'S', 1, 1, 3)",
  );
  await exec(
    "INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id, creator_id, revision) VALUES (1, 'REQ-001', 1, 'R1', 'text', 1, 1, 2), (1, 'REQ-002', 1, 'R2', '', 1, NULL, 1)",
  );
  await exec(
    "INSERT INTO relationships (workspace_id, source_requirement_id, target_requirement_id, type_id, creator_id) VALUES (1, 1, 2, 1, 1)",
  );

  await migrateDatabase(db);

  await db.read(async (ex) => {
    const story = await historyOf(ex, 1, "US-001", { limit: 10 });
    expect(story.items.map((r) => [r.revision, r.op, r.tool])).toEqual([[3, "update", "migration"]]);
    expect(JSON.stringify(story.items[0]?.snapshot)).toBe(
      JSON.stringify(await getUserStory(ex, 1, "US-001")),
    );
    const req = await historyOf(ex, 1, "REQ-001", { limit: 10 });
    const own = req.items.find((r) => r.entity_kind === "requirement");
    expect(JSON.stringify(own?.snapshot)).toBe(JSON.stringify(await getRequirement(ex, 1, "REQ-001")));
    // The relationship: in both ends' histories, confirmed at the ends' current revisions, not suspect.
    const link = req.items.find((r) => r.entity_kind === "relationship");
    expect(link?.reference_id).toBe("REQ-001 depends_on REQ-002");
    const { outgoing } = await relationshipsOfRequirement(ex, 1, "REQ-001");
    expect(outgoing[0]).toMatchObject({ source_revision: 2, target_revision: 1, suspect: false });
    const { suspect: _s, ...stored } = outgoing[0] as NonNullable<(typeof outgoing)[0]>;
    expect(JSON.stringify(link?.snapshot)).toBe(JSON.stringify(stored));
    const other = await historyOf(ex, 1, "REQ-002", { limit: 10 });
    expect(other.items.map((r) => r.entity_kind).sort()).toEqual(["relationship", "requirement"]);
  });
});
