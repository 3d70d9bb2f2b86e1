/**
 * The entity repositories straight on a real migrated libSQL file: workspace isolation of every read and
 * write, and reference ids under concurrent creates (unique, gap-free, per workspace, none lost).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isDomainError } from "../../src/core/errors.js";
import {
  createAcceptanceCriterion,
  getAcceptanceCriterion,
  updateAcceptanceCriterion,
} from "../../src/db/acceptance-criteria.repo.js";
import { addMemberOp, createWorkspaceOp, type OpContext } from "../../src/db/admin-ops.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import { createEpic, getEpic, listEpics, updateEpic } from "../../src/db/epics.repo.js";
import { epicHierarchyPage } from "../../src/db/hierarchy.repo.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import {
  createRelationship,
  deleteRelationship,
  relationshipsOfRequirement,
} from "../../src/db/relationships.repo.js";
import { listRequirementTypes } from "../../src/db/requirement-types.repo.js";
import {
  createRequirement,
  getRequirement,
  listRequirements,
  updateRequirement,
} from "../../src/db/requirements.repo.js";
import { searchGlobal, searchRequirements } from "../../src/db/search.repo.js";
import {
  createUserStory,
  getUserStory,
  listUserStories,
  updateUserStory,
} from "../../src/db/user-stories.repo.js";
import { getUserByUsername } from "../../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";

let dir: string;
let url: string;
let database: Database;
let A: number; // workspace ids
let B: number;
let userA: number;
let userB: number;
const now = () => new Date();

async function expectNotFound(promise: Promise<unknown>, reference: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isDomainError(error) ? [error.code, error.details.reference_id] : error).toEqual([
    "not_found",
    reference,
  ]);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "reqlix-entities-"));
  url = `file:${join(dir, "reqlix.db")}`;
  database = await openDatabase({ url });
  await migrateDatabase(database);
  const cli: OpContext = { actor: { kind: "cli" }, now: new Date() };
  for (const [slug, user] of [
    ["team-a", "anna"],
    ["team-b", "ben"],
  ] as const) {
    await createWorkspaceOp(database, cli, { slug, name: slug });
    await addMemberOp(database, cli, { username: user, role: "editor", workspace: slug });
  }
  A = (await database.read((db) => findWorkspaceBySlug(db, "team-a")))?.id ?? 0;
  B = (await database.read((db) => findWorkspaceBySlug(db, "team-b")))?.id ?? 0;
  userA = (await database.read((db) => getUserByUsername(db, "anna"))).id;
  userB = (await database.read((db) => getUserByUsername(db, "ben"))).id;
});

afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("workspace isolation", () => {
  test("reference ids count per workspace, and every read and write of B misses A's entities", async () => {
    const actorA = { userId: userA, now: now() };
    const actorB = { userId: userB, now: now() };
    const epicA = await database.write((tx) => createEpic(tx, A, { title: "Alpha" }, actorA));
    const storyA = await database.write((tx) =>
      createUserStory(tx, A, { epic_id: epicA.reference_id, title: "S" }, actorA),
    );
    const reqA1 = await database.write((tx) =>
      createRequirement(
        tx,
        A,
        { user_story_id: storyA.reference_id, title: "R1", type: "Functional", priority: 1 },
        actorA,
      ),
    );
    const reqA2 = await database.write((tx) =>
      createRequirement(
        tx,
        A,
        { user_story_id: storyA.reference_id, title: "R2", type: "Functional", priority: 1 },
        actorA,
      ),
    );
    const acA = await database.write((tx) =>
      createAcceptanceCriterion(tx, A, { user_story_id: storyA.reference_id, description: "Given…" }, actorA),
    );
    await database.write((tx) =>
      createRelationship(
        tx,
        A,
        { source_requirement_id: "REQ-001", target_requirement_id: "REQ-002", relationship_type: "blocks" },
        actorA,
      ),
    );
    // B's first epic is EP-001 too: counters are per workspace.
    const epicB = await database.write((tx) => createEpic(tx, B, { title: "Alpha" }, actorB));
    expect([epicA.reference_id, epicB.reference_id]).toEqual(["EP-001", "EP-001"]);
    expect([reqA1.reference_id, reqA2.reference_id, acA.reference_id]).toEqual([
      "REQ-001",
      "REQ-002",
      "AC-001",
    ]);

    // Reads from B.
    expect((await database.read((db) => getEpic(db, B, "EP-001"))).title).toBe("Alpha");
    const page = { limit: 200, maxBytes: 1_000_000, size: () => 1 };
    expect((await database.read((db) => epicHierarchyPage(db, B, "EP-001", page))).user_stories).toEqual([]);
    await expectNotFound(
      database.read((db) => getUserStory(db, B, "US-001")),
      "US-001",
    );
    await expectNotFound(
      database.read((db) => getRequirement(db, B, "REQ-001")),
      "REQ-001",
    );
    await expectNotFound(
      database.read((db) => getAcceptanceCriterion(db, B, "AC-001")),
      "AC-001",
    );
    await expectNotFound(
      database.read((db) => relationshipsOfRequirement(db, B, "REQ-001")),
      "REQ-001",
    );
    expect((await database.read((db) => listUserStories(db, B, { limit: 100 }))).items).toEqual([]);
    expect((await database.read((db) => listRequirements(db, B, { limit: 100 }))).items).toEqual([]);
    expect(
      (await database.read((db) => listEpics(db, B, { limit: 100 }))).items.map((e) => e.creator_username),
    ).toEqual(["ben"]);
    expect((await database.read((db) => searchGlobal(db, B, { query: "R1", limit: 20 }))).items).toEqual([]);
    expect(
      (await database.read((db) => searchRequirements(db, B, { query: "REQ-001", limit: 20 }))).items,
    ).toEqual([]);

    // Writes from B.
    const actor = { userId: userB, now: now() };
    await expectNotFound(
      database.write((tx) => updateUserStory(tx, B, "US-001", { title: "x" }, actor)),
      "US-001",
    );
    await expectNotFound(
      database.write((tx) => updateRequirement(tx, B, "REQ-001", { title: "x" }, actor)),
      "REQ-001",
    );
    await expectNotFound(
      database.write((tx) => updateAcceptanceCriterion(tx, B, "AC-001", { description: "x" }, actor)),
      "AC-001",
    );
    await expectNotFound(
      database.write((tx) => createUserStory(tx, B, { epic_id: "EP-002", title: "x" }, actor)),
      "EP-002",
    );
    await expectNotFound(
      database.write((tx) =>
        createRequirement(
          tx,
          B,
          { user_story_id: "US-001", title: "x", type: "Functional", priority: 1 },
          actor,
        ),
      ),
      "US-001",
    );
    await expectNotFound(
      database.write((tx) =>
        deleteRelationship(
          tx,
          B,
          {
            source_requirement_id: "REQ-001",
            target_requirement_id: "REQ-002",
            relationship_type: "blocks",
          },
          actor,
        ),
      ),
      "REQ-001",
    );
    // B cannot assign A's member.
    const assign = await database
      .write((tx) => updateEpic(tx, B, "EP-001", { assignee: "anna" }, actor))
      .catch((e: unknown) => e);
    expect(isDomainError(assign) && assign.code).toBe("invalid_input");
    // A's data is untouched.
    expect((await database.read((db) => getRequirement(db, A, "REQ-001"))).title).toBe("R1");
    expect((await database.read((db) => relationshipsOfRequirement(db, A, "REQ-001"))).outgoing).toHaveLength(
      1,
    );
    expect((await database.read((db) => listRequirementTypes(db, B))).length).toBeGreaterThan(0);
  });
});

describe("concurrent creates", () => {
  test("40 concurrent creates on one connection: unique, gap-free ids and every row stored", async () => {
    const actor = { userId: userA, now: now() };
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        database.write((tx) =>
          createRequirement(
            tx,
            A,
            { user_story_id: "US-001", title: `Concurrent ${i}`, type: "Functional", priority: 3 },
            actor,
          ),
        ),
      ),
    );
    const ids = created.map((r) => r.reference_id);
    expect(new Set(ids).size).toBe(40);
    const numbers = ids.map((id) => Number(id.slice(4))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 40 }, (_, i) => i + 3)); // REQ-003 … REQ-042
    const stored = await database.read((db) =>
      listRequirements(db, A, { user_story_id: "US-001", limit: 100 }),
    );
    expect(stored.items.filter((r) => r.title.startsWith("Concurrent"))).toHaveLength(40);
  });

  test("two connections to one file writing at once (BUSY retried): no acknowledged create is lost", async () => {
    const second = await openDatabase({ url });
    try {
      const actor = { userId: userA, now: now() };
      const make = (db: Database, tag: string, i: number) =>
        db.write((tx) => createEpic(tx, A, { title: `Parallel ${tag}${i}` }, actor));
      const results = await Promise.allSettled([
        ...Array.from({ length: 15 }, (_, i) => make(database, "a", i)),
        ...Array.from({ length: 15 }, (_, i) => make(second, "b", i)),
      ]);
      const acknowledged = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
      // A write may be refused as busy (the client is told), never silently lost.
      for (const reason of refused) expect(isDomainError(reason) && reason.code).toBe("unavailable");
      expect(acknowledged.length).toBeGreaterThan(0);
      const ids = acknowledged.map((e) => e.reference_id);
      expect(new Set(ids).size).toBe(ids.length);
      const stored = (await second.read((db) => listEpics(db, A, { limit: 100 }))).items;
      // Exactly the acknowledged creates are stored: none lost, none committed behind a refusal.
      expect(stored.filter((s) => s.title.startsWith("Parallel")).length).toBe(acknowledged.length);
      for (const epic of acknowledged) {
        expect(stored.find((s) => s.reference_id === epic.reference_id)?.title).toBe(epic.title);
      }
    } finally {
      await second.close();
    }
  });
});
