/**
 * ReqIF through the interchange engine over a real libSQL database: export → import into an empty
 * workspace → export gives the same ReqIF up to timestamps; importing the same file again creates and
 * changes nothing (matched by reference id, or by ReqIF IDENTIFIER in external_id for other tools' files);
 * other tools' sample files import.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import type { InterchangeDocument } from "../../src/core/interchange/document.js";
import { importInputOf } from "../../src/core/interchange/formats.js";
import { interchangeFormat } from "../../src/core/interchange/registry.js";
import { workspaceSnapshot } from "../helpers/db-snapshot.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { applyDocument, exportText as exportTextOf } from "./interchange-io.js";

let h: Harness;
let alice: AuthInfo;
let editor: Client;

const exportText = (auth: AuthInfo, format = "reqif", epic?: string) =>
  exportTextOf(h.database, auth, format, epic);

const parse = (text: string | Uint8Array, name = "export.reqif"): Promise<InterchangeDocument> =>
  interchangeFormat("reqif").parse(importInputOf(text, name));

const apply = (auth: AuthInfo, doc: InterchangeDocument, source = "export.reqif") =>
  applyDocument(h.database, auth, doc, source);

/** The ReqIF without what an export at another time, of another workspace, may differ in. */
function comparable(xml: string): string {
  return xml
    .replace(/(LAST-CHANGE=")[^"]*"/g, '$1…"')
    .replace(/<CREATION-TIME>[^<]*</, "<CREATION-TIME>…<")
    .replace(/<TITLE>[^<]*</, "<TITLE>…<");
}

beforeAll(async () => {
  h = await createHarness();
  alice = await h.member("alice", "admin", "source");
  editor = await h.connect(alice);
  const epic = await ok<{ reference_id: string }>(editor, "create_epic", {
    title: 'Checkout & "payments"',
    description: "Paying.\n\n<b>not markup</b> & ]]> and\ttabs, emoji 😀",
    priority: 2,
    external_id: "DOORS-EP-1",
  });
  await ok(editor, "create_epic", { title: "Second, empty" });
  const story = await ok<{ reference_id: string }>(editor, "create_user_story", {
    epic_id: epic.reference_id,
    title: "Pay by card",
    description: "As a buyer\nI pay",
  });
  await ok(editor, "create_user_story", { epic_id: epic.reference_id, title: "No requirements yet" });
  await ok(editor, "create_requirement_type", { name: "Legal", description: "Laws & <rules>" });
  const r1 = await ok<{ reference_id: string }>(editor, "create_requirement", {
    user_story_id: story.reference_id,
    title: "Card numbers are masked",
    description: "=SUM(A1) +1 -2 @x\r\nsecond line",
    type: "Legal",
    priority: 1,
    external_id: "1.2.3",
  });
  const r2 = await ok<{ reference_id: string }>(editor, "create_requirement", {
    user_story_id: story.reference_id,
    title: "Declines are explained",
    type: "Functional",
    priority: 3,
    status: "Obsolete",
  });
  await ok(editor, "create_relationship", {
    source_requirement_id: r1.reference_id,
    target_requirement_id: r2.reference_id,
    relationship_type: "depends_on",
  });
  await ok(editor, "create_acceptance_criteria", {
    user_story_id: story.reference_id,
    description: "Given a card\nthen ****",
  });
});
afterAll(async () => h?.close());

describe("ReqIF round trip through the database", () => {
  test("export → import into an empty workspace → export gives the same ReqIF up to timestamps", async () => {
    const first = await exportText(alice);
    const target = await h.member("alice", "admin", "reqif-target");
    const plan = await apply(target, await parse(first));
    expect(plan.errors).toEqual([]);
    expect(plan.create.map((e) => e.kind).sort()).toEqual([
      "acceptance_criterion",
      "epic",
      "epic",
      "relationship",
      "requirement",
      "requirement",
      "requirement_type",
      "user_story",
      "user_story",
    ]);
    const second = await exportText(target);
    expect(comparable(second)).toBe(comparable(first));

    // What ReqIF carries arrived exactly (the JSON export of both workspaces agrees on it).
    const json = (text: string) => JSON.parse(text) as InterchangeDocument;
    const [a, b] = [json(await exportText(alice, "json")), json(await exportText(target, "json"))];
    const fields = (d: InterchangeDocument) =>
      d.requirements.map(
        ({ reference_id, external_id, title, description, type, status, priority, user_story }) => ({
          reference_id,
          external_id,
          title,
          description,
          type,
          status,
          priority,
          user_story,
        }),
      );
    expect(fields(b)).toEqual(fields(a));
    expect(b.epics.map((e) => [e.reference_id, e.external_id, e.title, e.description, e.status])).toEqual(
      a.epics.map((e) => [e.reference_id, e.external_id, e.title, e.description, e.status]),
    );
    expect(b.relationships.map((r) => [r.source, r.type, r.target])).toEqual([
      ["REQ-001", "depends_on", "REQ-002"],
    ]);

    // The same file again: everything matches, nothing is created, nothing changes.
    const before = await workspaceSnapshot(h.database.client, target.workspaceId);
    const again = await apply(target, await parse(first));
    expect(again.create).toEqual([]);
    expect(again.update).toEqual([]);
    expect(await workspaceSnapshot(h.database.client, target.workspaceId)).toEqual(before);
  });

  test("an epic's export is one SPECIFICATION and imports on its own", async () => {
    const xml = await exportText(alice, "reqif", "EP-001");
    expect(xml.match(/<SPECIFICATION /g)).toHaveLength(1);
    const target = await h.member("alice", "admin", "reqif-epic");
    const plan = await apply(target, await parse(xml));
    expect(plan.errors).toEqual([]);
    expect(plan.create.filter((e) => e.kind === "epic").map((e) => e.reference_id)).toEqual(["EP-001"]);
  });
});

describe("ReqIF files from other tools through the database", () => {
  const FIXTURES = resolve(import.meta.dirname, "../fixtures/reqif");
  for (const name of [
    "reqif-polarion.reqif",
    "reqif-sparx-ea.reqif",
    "reqif-doors.reqif",
    "reqif-eclipse-rmf-relations.reqif",
    "strictdoc-minimal.reqif",
    "strictdoc-two-documents.reqif",
  ]) {
    test(`${name} imports, and importing it again creates nothing (matched by IDENTIFIER)`, async () => {
      const target = await h.member("alice", "editor", `import-${name}`);
      const bytes = readFileSync(resolve(FIXTURES, name));
      const doc = await parse(bytes, name);
      const plan = await apply(target, doc, name);
      expect(plan.errors).toEqual([]);
      expect(plan.create.filter((e) => e.kind === "requirement")).toHaveLength(doc.requirements.length);
      expect(doc.requirements.length).toBeGreaterThan(0);

      const stored = await h.database.client.execute({
        sql: "SELECT external_id, attributes FROM requirements WHERE workspace_id = ? ORDER BY id",
        args: [target.workspaceId],
      });
      expect(stored.rows.map((r) => r.external_id)).toEqual(doc.requirements.map((r) => r.external_id));
      // Values that are no reqlix field are stored, as JSON, in attributes.
      expect(stored.rows.map((r) => JSON.parse(String(r.attributes ?? "null")))).toEqual(
        doc.requirements.map((r) => r.attributes ?? null),
      );

      const before = await workspaceSnapshot(h.database.client, target.workspaceId);
      const again = await apply(target, await parse(bytes, name), name);
      expect(again.create).toEqual([]);
      expect(again.update).toEqual([]);
      expect(await workspaceSnapshot(h.database.client, target.workspaceId)).toEqual(before);
    });
  }
});
