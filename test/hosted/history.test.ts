/**
 * Change control, history: every write of every entity kind appends one revision in its transaction, with
 * provenance; get_history / get_revision / diff_revisions and the history resources read them.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { call, createHarness, fails, type Harness, ok, text } from "./harness.js";

type Entity = Record<string, unknown> & { reference_id: string; revision: number; updated_at: string };
type Revision = {
  entity_kind: string;
  reference_id: string;
  revision: number;
  op: string;
  snapshot: Record<string, unknown>;
  username: string | null;
  token_id: number | null;
  request_id: string | null;
  tool: string | null;
  change_note: string | null;
  source: string | null;
  created_at: string;
};
type History = { items: Revision[]; next_cursor?: string };

let h: Harness;
let editor: Client;
let viewer: Client;
let carol: AuthInfo;

beforeAll(async () => {
  h = await createHarness();
  carol = await h.member("carol", "editor");
  editor = await h.connect(carol);
  viewer = await h.connect(await h.member("vic", "viewer"));
});
afterAll(async () => h.close());

const revisionRows = async () =>
  Number((await h.database.client.execute("SELECT count(*) AS n FROM revisions")).rows[0]?.n);

describe("history", () => {
  test("create, update and move of every entity kind append one revision each, with full provenance", async () => {
    const epic = await ok<Entity>(editor, "create_epic", {
      title: "Checkout",
      change_note: "Kick-off",
      source: "https://tickets.example/T-1",
    });
    const epic2 = await ok<Entity>(editor, "create_epic", { title: "Payments" });
    const story = await ok<Entity>(editor, "create_user_story", {
      epic_id: epic.reference_id,
      title: "Cart",
    });
    const req = await ok<Entity>(editor, "create_requirement", {
      user_story_id: story.reference_id,
      title: "Fast cart",
      description: "The cart page loads within 200 ms at p95.",
      type: "Non-Functional",
      priority: 2,
    });
    const ac = await ok<Entity>(editor, "create_acceptance_criteria", {
      user_story_id: story.reference_id,
      description: "Given a cart, when opened, then it shows.",
    });
    expect(req.revision).toBe(1);

    const updated = await ok<Entity>(editor, "update_requirement", {
      requirement_id: req.reference_id,
      description: "The cart page loads within 100 ms at p95 on a warm cache.",
      change_note: "Tightened after the perf review",
      source: "meeting 2026-11-20",
    });
    expect(updated.revision).toBe(2);
    const moved = await ok<Entity>(editor, "update_user_story", {
      user_story_id: story.reference_id,
      epic_id: epic2.reference_id,
    });
    await ok(editor, "update_epic", { epic_id: epic.reference_id, status: "In Progress" });
    await ok(editor, "update_acceptance_criteria", {
      acceptance_criteria_id: ac.reference_id,
      title: "Opens",
    });

    const epicHistory = await ok<History>(viewer, "get_history", { id: epic.reference_id.toLowerCase() });
    expect(epicHistory.items.map((r) => [r.revision, r.op, r.tool])).toEqual([
      [2, "update", "update_epic"],
      [1, "create", "create_epic"],
    ]);
    expect(epicHistory.items[1]).toMatchObject({
      entity_kind: "epic",
      reference_id: "EP-001",
      username: "carol",
      token_id: carol.tokenId,
      request_id: "test",
      change_note: "Kick-off",
      source: "https://tickets.example/T-1",
    });
    // The latest snapshot is the entity exactly as the tools show it now.
    expect(epicHistory.items[0]?.snapshot).toEqual(
      await ok(viewer, "get_epic", { epic_id: epic.reference_id }),
    );

    const storyHistory = await ok<History>(viewer, "get_history", { id: story.reference_id });
    expect(storyHistory.items.map((r) => r.op)).toEqual(["move", "create"]);
    // Parents by reference id, before and after the move.
    expect(storyHistory.items[1]?.snapshot.epic_id).toBe(epic.reference_id);
    expect(storyHistory.items[0]?.snapshot).toEqual(moved);

    const reqHistory = await ok<History>(viewer, "get_history", { id: req.reference_id });
    expect(reqHistory.items[0]).toMatchObject({
      revision: 2,
      op: "update",
      tool: "update_requirement",
      change_note: "Tightened after the perf review",
      source: "meeting 2026-11-20",
    });
    // Relationships have their own revisions, and trace coverage is derived from pushed scans: neither is
    // part of a requirement's snapshot.
    const {
      relationships: _r,
      coverage: _c,
      ...current
    } = await ok<Entity>(viewer, "get_requirement", {
      requirement_id: req.reference_id,
    });
    expect(reqHistory.items[0]?.snapshot).toEqual(current);

    const acHistory = await ok<History>(viewer, "get_history", { id: ac.reference_id });
    expect(acHistory.items.map((r) => [r.entity_kind, r.revision, r.op])).toEqual([
      ["acceptance_criterion", 2, "update"],
      ["acceptance_criterion", 1, "create"],
    ]);
  });

  test("a refused write appends no revision; change_note and source are checked like any argument", async () => {
    const before = await revisionRows();
    await fails(editor, "update_requirement", { requirement_id: "REQ-001", user_story_id: "US-999" });
    await fails(editor, "create_epic", { title: "Checkout" }); // duplicate title
    const empty = await fails(editor, "update_epic", { epic_id: "EP-001", title: "X", change_note: " " });
    expect(empty).toMatch(/change_note/);
    // change_note alone is not a change.
    expect(await fails(editor, "update_epic", { epic_id: "EP-001", change_note: "why" })).toMatch(
      /at least one field/,
    );
    expect(await revisionRows()).toBe(before);
  });

  test("relationship revisions appear in both ends' histories; delete_relationship records the delete", async () => {
    const story = await ok<Entity>(editor, "create_user_story", { epic_id: "EP-001", title: "Links" });
    const a = await ok<Entity>(editor, "create_requirement", {
      user_story_id: story.reference_id,
      title: "A",
      type: "Functional",
      priority: 1,
    });
    const b = await ok<Entity>(editor, "create_requirement", {
      user_story_id: story.reference_id,
      title: "B",
      type: "Functional",
      priority: 1,
    });
    const key = {
      source_requirement_id: a.reference_id,
      target_requirement_id: b.reference_id,
      relationship_type: "depends_on",
    };
    await ok(editor, "create_relationship", { ...key, change_note: "A needs B" });
    await ok(editor, "delete_relationship", { ...key, change_note: "No longer needed", source: "T-9" });
    const linkId = `${a.reference_id} depends_on ${b.reference_id}`;
    for (const end of [a.reference_id, b.reference_id]) {
      const history = await ok<History>(viewer, "get_history", { id: end });
      const link = history.items.filter((r) => r.entity_kind === "relationship");
      expect(link.map((r) => [r.reference_id, r.revision, r.op, r.change_note])).toEqual([
        [linkId, 2, "delete", "No longer needed"],
        [linkId, 1, "create", "A needs B"],
      ]);
      // The delete keeps the last state, by reference ids.
      expect(link[0]?.snapshot).toMatchObject({
        ...key,
        revision: 1,
        source_revision: 1,
        target_revision: 1,
      });
      expect(link[0]).toMatchObject({ tool: "delete_relationship", source: "T-9", username: "carol" });
    }
    // Gone from the requirement, still in the history.
    const read = await ok<{ relationships: { outgoing: unknown[] } }>(viewer, "get_requirement", {
      requirement_id: a.reference_id,
    });
    expect(read.relationships.outgoing).toEqual([]);
  });

  test("get_revision, diff_revisions (word level) and paging", async () => {
    const r1 = await ok<Revision>(viewer, "get_revision", { id: "REQ-001", revision: 1 });
    expect(r1.snapshot.description).toBe("The cart page loads within 200 ms at p95.");
    expect(await fails(viewer, "get_revision", { id: "REQ-001", revision: 9 })).toMatch(
      /no revision 9; its revisions are 1 to 2/,
    );
    const diff = await call(viewer, "diff_revisions", { id: "REQ-001", from: 1 });
    expect(diff.isError).toBeFalsy();
    const body = diff.structuredContent as {
      changes: { field: string; diff?: string }[];
      to: { revision: number };
    };
    expect(body.to.revision).toBe(2);
    expect(body.changes.map((c) => c.field)).toEqual(["description"]);
    expect(body.changes[0]?.diff).toBe(
      "The cart page loads within [-200-]{+100+} ms at p95 {+on a warm cache+}.",
    );
    expect(text(diff)).toContain("REQ-001: revision 1");
    expect(text(diff)).toContain("[-200-]{+100+}");

    for (let i = 0; i < 5; i++) await ok(editor, "update_epic", { epic_id: "EP-002", priority: (i % 4) + 1 });
    const first = await ok<History>(viewer, "get_history", { id: "EP-002", limit: 4 });
    expect(first.items.map((r) => r.revision)).toEqual([6, 5, 4, 3]);
    const second = await ok<History>(viewer, "get_history", {
      id: "EP-002",
      limit: 4,
      cursor: first.next_cursor,
    });
    expect(second.items.map((r) => r.revision)).toEqual([2, 1]);
    expect(second.next_cursor).toBeUndefined();
    expect(await fails(viewer, "get_history", { id: "REQ-999" })).toMatch(/History not found: REQ-999/);
  });

  test("requirement://{id}/history reads as markdown with who, why and the changed fields", async () => {
    const res = await viewer.readResource({ uri: "requirement://req-1/history" });
    const md = (res.contents[0] as { text: string }).text;
    expect(md).toContain("# History of REQ-001");
    expect(md).toContain("REQ-001 revision 2: update by carol");
    expect(md).toContain("Why: Tightened after the perf review");
    expect(md).toContain("[-200-]{+100+}");
    const epicMd = (await viewer.readResource({ uri: "epic://EP-001/history" })).contents[0] as {
      text: string;
    };
    expect(epicMd.text).toContain('status: "Backlog" → "In Progress"');
  });
});
