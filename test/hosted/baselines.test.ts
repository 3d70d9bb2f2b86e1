/** Change control, baselines: frozen revisions, read back as they were, diffed against now or each other. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { call, createHarness, fails, type Harness, ok, text } from "./harness.js";

type Entity = {
  entity_kind: string;
  reference_id: string;
  revision: number;
  snapshot: Record<string, unknown>;
};
type BaselinePage = {
  name: string;
  epic_id: string | null;
  entry_count: number;
  items: Entity[];
  next_cursor?: string;
};
type Change = {
  entity_kind: string;
  reference_id: string;
  change: string;
  from_revision: number | null;
  to_revision: number | null;
  changes?: { field: string; diff?: string; from: unknown; to: unknown }[];
  snapshot?: Record<string, unknown>;
};
type Diff = { counts: Record<string, number>; items: Change[]; next_cursor?: string; to: string };

let h: Harness;
let editor: Client;
let viewer: Client;

beforeAll(async () => {
  h = await createHarness();
  editor = await h.connect(await h.member("carol", "editor"));
  viewer = await h.connect(await h.member("vic", "viewer"));
  await ok(editor, "create_epic", { title: "Checkout" });
  await ok(editor, "create_epic", { title: "Search" });
  await ok(editor, "create_user_story", { epic_id: "EP-001", title: "Cart" });
  await ok(editor, "create_user_story", { epic_id: "EP-002", title: "Query" });
  await ok(editor, "create_requirement", {
    user_story_id: "US-001",
    title: "Fast cart",
    description: "Loads within 200 ms.",
    type: "Functional",
    priority: 1,
  });
  await ok(editor, "create_requirement", {
    user_story_id: "US-001",
    title: "Cart badge",
    type: "Functional",
    priority: 3,
  });
  await ok(editor, "create_requirement", {
    user_story_id: "US-002",
    title: "Typo tolerant",
    type: "Functional",
    priority: 2,
  });
  await ok(editor, "create_acceptance_criteria", {
    user_story_id: "US-001",
    description: "Given a cart then it loads",
  });
  await ok(editor, "create_relationship", {
    source_requirement_id: "REQ-001",
    target_requirement_id: "REQ-002",
    relationship_type: "depends_on",
  });
});
afterAll(async () => h.close());

test("a baseline freezes every entity in scope by revision, and reads back unchanged after later changes", async () => {
  const all = await ok<BaselinePage>(editor, "create_baseline", {
    name: "v1.0",
    description: "First release",
  });
  expect(all).toMatchObject({ name: "v1.0", epic_id: null, entry_count: 9, creator_username: "carol" });
  const scoped = await ok<BaselinePage>(editor, "create_baseline", { name: "checkout-1", epic_id: "ep-1" });
  // EP-001, US-001, REQ-001, REQ-002, AC-001 and the relationship whose source is in the epic.
  expect(scoped).toMatchObject({ epic_id: "EP-001", entry_count: 6 });

  const before = await ok<BaselinePage>(viewer, "get_baseline", { name: "v1.0", limit: 100 });
  expect(before.items.map((e) => e.reference_id)).toEqual([
    "EP-001",
    "EP-002",
    "US-001",
    "US-002",
    "REQ-001",
    "REQ-002",
    "REQ-003",
    "AC-001",
    "REQ-001 depends_on REQ-002",
  ]);
  const req1 = before.items.find((e) => e.reference_id === "REQ-001");
  expect(req1?.snapshot).toMatchObject({
    title: "Fast cart",
    description: "Loads within 200 ms.",
    revision: 1,
  });

  await ok(editor, "update_requirement", { requirement_id: "REQ-001", description: "Loads within 100 ms." });
  const after = await ok<BaselinePage>(viewer, "get_baseline", { name: "v1.0", limit: 100 });
  expect(after).toEqual(before);

  // Paging walks the same entities.
  const first = await ok<BaselinePage>(viewer, "get_baseline", { name: "v1.0", limit: 4 });
  const second = await ok<BaselinePage>(viewer, "get_baseline", {
    name: "v1.0",
    limit: 4,
    cursor: first.next_cursor,
  });
  const third = await ok<BaselinePage>(viewer, "get_baseline", {
    name: "v1.0",
    limit: 4,
    cursor: second.next_cursor,
  });
  expect([...first.items, ...second.items, ...third.items]).toEqual(before.items);
  expect(third.next_cursor).toBeUndefined();

  const res = await viewer.readResource({ uri: "baseline://v1.0" });
  expect(JSON.parse((res.contents[0] as { text: string }).text)).toEqual(before);
  const listed = await ok<{ baselines: { name: string }[] }>(viewer, "list_baselines");
  expect(listed.baselines.map((b) => b.name)).toEqual(["v1.0", "checkout-1"]);
});

test("names are unique and checked; viewers cannot create; unknown names are not found", async () => {
  expect(await fails(editor, "create_baseline", { name: "v1.0" })).toMatch(/already exists/);
  expect(await fails(editor, "create_baseline", { name: "a/b" })).toMatch(/name/);
  expect(await fails(viewer, "create_baseline", { name: "v9" })).toMatch(/^Forbidden/);
  expect(await fails(viewer, "get_baseline", { name: "v9" })).toMatch(/Baseline not found: "v9"/);
  expect(await fails(editor, "create_baseline", { name: "x", epic_id: "EP-099" })).toMatch(/Epic not found/);
});

test("diff_baseline: changed (field diff), added and removed, against now and against another baseline", async () => {
  await ok(editor, "create_requirement", {
    user_story_id: "US-001",
    title: "Coupons",
    type: "Functional",
    priority: 2,
  });
  await ok(editor, "delete_relationship", {
    source_requirement_id: "REQ-001",
    target_requirement_id: "REQ-002",
    relationship_type: "depends_on",
  });
  const now = await ok<Diff>(viewer, "diff_baseline", { from: "v1.0" });
  expect(now.to).toBe("now");
  expect(now.counts).toEqual({ added: 1, removed: 1, changed: 1 });
  expect(now.items.map((i) => [i.change, i.reference_id, i.from_revision, i.to_revision])).toEqual([
    ["changed", "REQ-001", 1, 2],
    ["added", "REQ-004", null, 1],
    ["removed", "REQ-001 depends_on REQ-002", 1, null],
  ]);
  expect(now.items[0]?.changes).toEqual([
    {
      field: "description",
      from: "Loads within 200 ms.",
      to: "Loads within 100 ms.",
      diff: "Loads within [-200-]{+100+} ms.",
    },
  ]);
  expect(now.items[1]?.snapshot).toMatchObject({ title: "Coupons" });
  const rendered = text(await call(viewer, "diff_baseline", { from: "v1.0" }));
  expect(rendered).toContain('Changes from baseline "v1.0" to now: 1 changed, 1 added, 1 removed.');
  expect(rendered).toContain("## CHANGED requirement REQ-001 (revision 1 → 2)");

  // Scoped to the epic: the change in EP-002 does not show.
  await ok(editor, "update_requirement", { requirement_id: "REQ-003", title: "Typo tolerant search" });
  const scoped = await ok<Diff>(viewer, "diff_baseline", { from: "checkout-1" });
  expect(scoped.items.map((i) => i.reference_id)).toEqual([
    "REQ-001",
    "REQ-004",
    "REQ-001 depends_on REQ-002",
  ]);

  await ok(editor, "create_baseline", { name: "v1.1" });
  const between = await ok<Diff>(viewer, "diff_baseline", { from: "v1.0", to: "v1.1", limit: 2 });
  expect(between.counts).toEqual({ added: 1, removed: 1, changed: 2 });
  const rest = await ok<Diff>(viewer, "diff_baseline", {
    from: "v1.0",
    to: "v1.1",
    limit: 2,
    cursor: between.next_cursor,
  });
  expect([...between.items, ...rest.items].map((i) => i.reference_id)).toEqual([
    "REQ-001",
    "REQ-003",
    "REQ-004",
    "REQ-001 depends_on REQ-002",
  ]);
  expect((await ok<Diff>(viewer, "diff_baseline", { from: "v1.1" })).items).toEqual([]);
});

test("prompt review_changes lays out the changes since a baseline and the suspect links for a reviewer", async () => {
  await ok(editor, "create_relationship", {
    source_requirement_id: "REQ-003",
    target_requirement_id: "REQ-001",
    relationship_type: "relates_to",
  });
  await ok(editor, "update_requirement", { requirement_id: "REQ-001", description: "Loads within 50 ms." });
  const prompt = await viewer.getPrompt({ name: "review_changes", arguments: { baseline: "v1.0" } });
  expect(prompt.description).toBe("Changes since baseline v1.0");
  const content = prompt.messages[0]?.content;
  const body = content?.type === "text" ? content.text : "";
  expect(body).toContain('Review the changes since baseline "v1.0".');
  expect(body).toContain("## CHANGED requirement REQ-001 (revision 1 → 3)");
  expect(body).toContain("Loads within [-200-]{+50+} ms.");
  expect(body).toContain("## ADDED requirement REQ-004");
  expect(body).toContain("## REMOVED relationship REQ-001 depends_on REQ-002");
  expect(body).toContain("- REQ-003 relates_to REQ-001: target changed (confirmed at 2/2, now 2/3)");
  expect(body).toContain("approve {id, revision}");
  await expect(viewer.getPrompt({ name: "review_changes", arguments: { baseline: "nope" } })).rejects.toThrow(
    /Baseline not found/,
  );
  const completion = await viewer.complete({
    ref: { type: "ref/prompt", name: "review_changes" },
    argument: { name: "baseline", value: "v1" },
  });
  expect(completion.completion.values).toEqual(["v1.0", "v1.1"]);
});
