/**
 * The import writes its creates many rows per statement (db/interchange-bulk.ts). What it records must be
 * what the tools record: the revision of an imported entity is the tools' snapshot of it, byte for byte
 * (key order included); the checks of the create tools hold across batches (a title taken in the same
 * batch, in an earlier batch or in the workspace; the approval gate); and parents created in one batch
 * are found by the next.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import type { InterchangeDocument, RequirementDoc } from "../../src/core/interchange/document.js";
import { importInputOf } from "../../src/core/interchange/formats.js";
import { interchangeFormat } from "../../src/core/interchange/registry.js";
import { workspaceSnapshot } from "../helpers/db-snapshot.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { applyDocument, exportText } from "./interchange-io.js";

let h: Harness;
let alice: AuthInfo;
let editor: Client;
let file: string;

const parse = (text: string): Promise<InterchangeDocument> =>
  interchangeFormat("json").parse(importInputOf(text, "bulk.json"));

/** Every entity's latest revision: kind, reference id, revision, op and the snapshot text as stored. */
async function latestRevisions(workspaceId: number) {
  const rs = await h.database.client.execute({
    sql: `SELECT entity_kind, reference_id, revision, snapshot FROM revisions r WHERE workspace_id = ?
      AND revision = (SELECT max(revision) FROM revisions x WHERE x.workspace_id = r.workspace_id
        AND x.entity_kind = r.entity_kind AND x.entity_id = r.entity_id)
      ORDER BY entity_kind, reference_id`,
    args: [workspaceId],
  });
  return rs.rows.map((r) => ({ ...r }));
}

beforeAll(async () => {
  h = await createHarness();
  alice = await h.member("alice", "admin", "bulk-source");
  await h.member("bob", "editor", "bulk-source");
  editor = await h.connect(alice);
  const epic = await ok<{ reference_id: string }>(editor, "create_epic", {
    title: "Checkout",
    description: "Paying",
    priority: 2,
    assignee: "bob",
    external_id: "JIRA-1",
  });
  const story = await ok<{ reference_id: string }>(editor, "create_user_story", {
    epic_id: epic.reference_id,
    title: "Pay by card",
    assignee: "alice",
  });
  await ok(editor, "update_user_story", { user_story_id: story.reference_id, status: "In Progress" });
  await ok(editor, "create_requirement", {
    user_story_id: story.reference_id,
    title: "Card numbers are masked",
    description: "All but the last 4",
    type: "Functional",
    priority: 1,
    status: "Active",
    assignee: "bob",
    external_id: "DOORS-17",
  });
  await ok(editor, "create_requirement", {
    user_story_id: story.reference_id,
    title: "Declines are explained",
    type: "Functional",
    priority: 3,
  });
  await ok(editor, "update_requirement", { requirement_id: "REQ-002", description: "Say why" });
  await ok(editor, "create_acceptance_criteria", {
    user_story_id: story.reference_id,
    description: "Given a card\nthen ****",
    external_id: "AC-X",
  });
  file = await exportText(h.database, alice, "json");
});
afterAll(async () => h?.close());

describe("bulk creates of an import", () => {
  test("each imported entity's revision is the snapshot the tools recorded for it, byte for byte", async () => {
    const target = await h.member("alice", "admin", "bulk-copy");
    await h.member("bob", "editor", "bulk-copy");
    const plan = await applyDocument(h.database, target, await parse(file), "bulk.json");
    expect(plan.errors).toEqual([]);
    const source = await latestRevisions(alice.workspaceId);
    const copy = await latestRevisions(target.workspaceId);
    expect(copy.map((r) => [r.entity_kind, r.reference_id])).toEqual(
      source.map((r) => [r.entity_kind, r.reference_id]),
    );
    expect(copy.map((r) => r.snapshot)).toEqual(source.map((r) => r.snapshot));
    expect(JSON.parse(String(copy.find((r) => r.reference_id === "REQ-001")?.snapshot))).toMatchObject({
      assignee_username: "bob",
      external_id: "DOORS-17",
      status: "Active",
    });
  });

  test("1,200 requirements in stories created by the same import: every one created, one revision each, in document order", async () => {
    const target = await h.member("alice", "admin", "bulk-many");
    await h.member("bob", "editor", "bulk-many");
    const doc = await parse(file);
    const base = doc.requirements[0] as RequirementDoc;
    doc.user_stories.push(
      ...[1, 2, 3].map((n) => ({
        ...(doc.user_stories[0] as (typeof doc.user_stories)[0]),
        reference_id: `US-10${n}`,
        title: `Story ${n}`,
      })),
    );
    for (let i = 0; i < 1200; i++) {
      doc.requirements.push({
        ...base,
        reference_id: `REQ-${1000 + i}`,
        user_story: `US-10${1 + (i % 3)}`,
        title: `Requirement ${i}`,
        external_id: `EXT-${i}`,
        attributes: { n: i, "ReqIF.ForeignID": `F${i}` },
        status: "Draft",
      });
    }
    const plan = await applyDocument(h.database, target, doc, "many.json");
    expect(plan.errors).toEqual([]);
    const rs = await h.database.client.execute({
      sql: `SELECT r.reference_id, s.reference_id AS story, r.external_id, r.attributes,
          (SELECT count(*) FROM revisions v WHERE v.workspace_id = r.workspace_id AND v.entity_kind = 'requirement'
            AND v.entity_id = r.id AND v.source = 'many.json') AS revisions
        FROM requirements r JOIN user_stories s ON s.id = r.user_story_id WHERE r.workspace_id = ? ORDER BY r.id`,
      args: [target.workspaceId],
    });
    expect(rs.rows).toHaveLength(1202);
    expect(rs.rows.slice(2).map((r) => [r.reference_id, r.story, r.external_id, r.attributes])).toEqual(
      Array.from({ length: 1200 }, (_, i) => [
        `REQ-${1000 + i}`,
        `US-10${1 + (i % 3)}`,
        `EXT-${i}`,
        JSON.stringify({ n: i, "ReqIF.ForeignID": `F${i}` }),
      ]),
    );
    expect(rs.rows.every((r) => r.revisions === 1)).toBe(true);
    // Found by the search index the triggers fill.
    const found = await ok<{ items: { reference_id: string }[] }>(
      await h.connect(target),
      "search_requirements",
      {
        query: "Requirement 1199",
      },
    );
    expect(found.items.map((r) => r.reference_id)).toContain("REQ-2199");
    // The same file again creates nothing.
    const again = await applyDocument(h.database, target, doc, "many.json");
    expect(again.create).toEqual([]);
  });

  test("a title taken in the same batch, in an earlier batch, or in the workspace is refused with the tools' message; nothing stored", async () => {
    const target = await h.member("alice", "admin", "bulk-dup");
    await applyDocument(h.database, target, await parse(file), "first.json");
    const before = await workspaceSnapshot(h.database.client, target.workspaceId);
    const many = (n: number, title: (i: number) => string) => {
      const doc = structuredClone(JSON.parse(file)) as InterchangeDocument;
      const base = doc.requirements[0] as RequirementDoc;
      doc.requirements = Array.from({ length: n }, (_, i) => ({
        ...base,
        reference_id: `REQ-${100 + i}`,
        external_id: null,
        title: title(i),
      }));
      return doc;
    };
    // Same batch, another case.
    const sameBatch = many(3, (i) => (i === 2 ? "REQUIREMENT 0" : `Requirement ${i}`));
    await expect(applyDocument(h.database, target, sameBatch, "x.json")).rejects.toThrow(
      'This user story already has a requirement titled "REQUIREMENT 0": REQ-100.',
    );
    // An earlier batch (500 rows per statement).
    const laterBatch = many(700, (i) => (i === 650 ? "Requirement 3" : `Requirement ${i}`));
    await expect(applyDocument(h.database, target, laterBatch, "x.json")).rejects.toThrow(
      /already has a requirement titled "Requirement 3": REQ-103\./,
    );
    // The workspace: a new requirement titled like the stored REQ-001.
    const stored = many(2, (i) => (i === 1 ? "card numbers are MASKED" : "Fine"));
    await expect(applyDocument(h.database, target, stored, "x.json")).rejects.toThrow(
      /already has a requirement titled "card numbers are MASKED": REQ-001\./,
    );
    // A new epic titled like a stored one.
    const epic = structuredClone(JSON.parse(file)) as InterchangeDocument;
    epic.epics.push({
      ...(epic.epics[0] as (typeof epic.epics)[0]),
      reference_id: "EP-050",
      external_id: null,
      title: "checkout",
    });
    await expect(applyDocument(h.database, target, epic, "x.json")).rejects.toThrow(
      /An epic titled "checkout" already exists: EP-001\./,
    );
    expect(await workspaceSnapshot(h.database.client, target.workspaceId)).toEqual(before);
  });

  test("the approval gate: with approvals required, a requirement cannot be created Active by an import either", async () => {
    const target = await h.member("alice", "admin", "bulk-gate");
    await ok(await h.connect(target), "set_approvals_required", { approvals_required: 1 });
    const before = await workspaceSnapshot(h.database.client, target.workspaceId);
    await expect(applyDocument(h.database, target, await parse(file), "gate.json")).rejects.toThrow(
      /A new requirement/,
    );
    expect(await workspaceSnapshot(h.database.client, target.workspaceId)).toEqual(before);
  });
});
