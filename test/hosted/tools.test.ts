/** Every hosted tool through the real SDK Client over a real database: results, errors, roles. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { call, compiled, createHarness, fails, type Harness, ok, text } from "./harness.js";
import { OWN_TOOL_NAMES } from "./own-tools.js";

type Entity = Record<string, unknown> & { reference_id: string; updated_at: string };
type Page = { items: Entity[]; next_cursor?: string };

let h: Harness;
let editor: Client;
let viewer: Client;
let admin: Client;
let carol: AuthInfo;

beforeAll(async () => {
  h = await createHarness();
  carol = await h.member("carol", "editor");
  editor = await h.connect(carol);
  viewer = await h.connect(await h.member("vic", "viewer"));
  admin = await h.connect(await h.member("ada", "admin"));
});

afterAll(async () => {
  await h.close();
});

describe("epics", () => {
  test("create returns the whole epic with its reference id; get, list and update work", async () => {
    const epic = await ok<Entity>(editor, "create_epic", {
      title: "Checkout",
      description: "Paying for a cart.",
      priority: 2,
      assignee: "ADA",
    });
    expect(epic).toMatchObject({
      reference_id: "EP-001",
      title: "Checkout",
      description: "Paying for a cart.",
      status: "Backlog",
      priority: 2,
      creator_username: "carol",
      assignee_username: "ada",
    });
    expect(epic.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await ok(viewer, "get_epic", { epic_id: "ep-001" })).toEqual(epic);

    const updated = await ok<Entity>(editor, "update_epic", {
      epic_id: "EP-1",
      status: "In Progress",
      assignee: null,
      expected_updated_at: epic.updated_at,
    });
    expect(updated).toMatchObject({
      reference_id: "EP-001",
      status: "In Progress",
      assignee_username: null,
      title: "Checkout",
    });
    expect(updated.updated_at > epic.updated_at).toBe(true);

    await ok(editor, "create_epic", { title: "Search" });
    const all = await ok<Page>(viewer, "list_epics", {});
    expect(all.items.map((e) => e.reference_id)).toEqual(["EP-001", "EP-002"]);
    const inProgress = await ok<Page>(viewer, "list_epics", { status: "In Progress" });
    expect(inProgress.items.map((e) => e.reference_id)).toEqual(["EP-001"]);
  });

  test("a stale expected_updated_at is refused as a conflict and changes nothing", async () => {
    const before = await ok<Entity>(editor, "get_epic", { epic_id: "EP-002" });
    await ok(editor, "update_epic", {
      epic_id: "EP-002",
      title: "Search v2",
      expected_updated_at: before.updated_at,
    });
    const message = await fails(editor, "update_epic", {
      epic_id: "EP-002",
      title: "Search v3",
      expected_updated_at: before.updated_at,
    });
    expect(message).toContain("EP-002 was changed by someone else");
    expect(message).toContain("Read it again");
    expect((await ok<Entity>(editor, "get_epic", { epic_id: "EP-002" })).title).toBe("Search v2");
  });

  test("two updates in the same millisecond still get different updated_at", async () => {
    h.setNow(new Date("2030-01-01T00:00:00.000Z"));
    const a = await ok<Entity>(editor, "update_epic", { epic_id: "EP-002", priority: 1 });
    const b = await ok<Entity>(editor, "update_epic", { epic_id: "EP-002", priority: 2 });
    h.setNow(undefined);
    expect(b.updated_at > a.updated_at).toBe(true);
    expect(
      await fails(editor, "update_epic", {
        epic_id: "EP-002",
        priority: 3,
        expected_updated_at: a.updated_at,
      }),
    ).toContain("changed by someone else");
  });

  test("duplicate titles, unknown ids, unknown assignees and bad values are refused clearly", async () => {
    expect(await fails(editor, "create_epic", { title: "checkout" })).toContain(
      'An epic titled "checkout" already exists: EP-001',
    );
    expect(await fails(editor, "get_epic", { epic_id: "EP-404" })).toMatch(/^Epic not found: EP-404/);
    expect(await fails(editor, "get_epic", { epic_id: "US-001" })).toContain(
      "epic_id: Invalid epic reference ID format",
    );
    expect(await fails(editor, "create_epic", { title: "X", assignee: "nobody" })).toContain(
      'No member of this workspace is called "nobody"',
    );
    expect(await fails(editor, "create_epic", { title: "X", priority: 5 })).toContain("priority");
    expect(await fails(editor, "create_epic", { title: "   " })).toContain("title: must not be empty");
    expect(await fails(editor, "update_epic", { epic_id: "EP-001", status: "Finished" })).toContain("status");
    for (const [tool, args] of [
      ["update_epic", { epic_id: "EP-001" }],
      ["update_user_story", { user_story_id: "US-001", expected_updated_at: "2026-01-01T00:00:00.000Z" }],
      ["update_requirement", { requirement_id: "REQ-001" }],
      ["update_acceptance_criteria", { acceptance_criteria_id: "AC-001" }],
    ] as const) {
      expect(await fails(editor, tool, args)).toContain(`${tool} needs at least one field to change`);
    }
  });

  test("list_epics pages with opaque cursors and refuses a foreign cursor", async () => {
    for (let i = 0; i < 5; i++) await ok(editor, "create_epic", { title: `Paged ${i}` });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page: Page = await ok<Page>(viewer, "list_epics", { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((e) => e.reference_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["EP-001", "EP-002", "EP-003", "EP-004", "EP-005", "EP-006", "EP-007"]);
    const first = await ok<Page>(viewer, "list_epics", { limit: 1 });
    expect(await fails(viewer, "list_epics", { status: "Done", cursor: first.next_cursor })).toContain(
      "cursor does not belong",
    );
    expect(await fails(viewer, "list_epics", { cursor: "garbage" })).toContain("cursor");
  });
});

describe("user stories, requirements, criteria, hierarchy", () => {
  test("create and read the chain; hierarchy nests everything", async () => {
    const story = await ok<Entity>(editor, "create_user_story", {
      epic_id: "ep-001",
      title: "As a shopper, I want to pay by card",
      priority: 1,
    });
    expect(story).toMatchObject({
      reference_id: "US-001",
      epic_id: "EP-001",
      priority: 1,
      status: "Backlog",
    });
    const req = await ok<Entity>(editor, "create_requirement", {
      user_story_id: "us-001",
      title: "Card payments via PSP",
      description: "Payments are authorised by the PSP.",
      type: "functional",
      priority: 1,
    });
    expect(req).toMatchObject({
      reference_id: "REQ-001",
      user_story_id: "US-001",
      type_name: "Functional",
      status: "Draft",
      creator_username: "carol",
    });
    const ac = await ok<Entity>(editor, "create_acceptance_criteria", {
      user_story_id: "US-001",
      description: "Given a valid card, when the shopper pays, then the order is confirmed.\nMore detail.",
    });
    expect(ac).toMatchObject({
      reference_id: "AC-001",
      user_story_id: "US-001",
      title: "Given a valid card, when the shopper pays, then the order is confirmed.",
    });

    const full = await ok<Entity & { requirements: Entity[]; acceptance_criteria: Entity[] }>(
      viewer,
      "get_user_story",
      {
        user_story_id: "US-1",
      },
    );
    expect(full.requirements.map((r) => r.reference_id)).toEqual(["REQ-001"]);
    expect(full.acceptance_criteria.map((c) => c.reference_id)).toEqual(["AC-001"]);

    const tree = await ok<
      Entity & { user_stories: { requirements: Entity[]; acceptance_criteria: Entity[] }[] }
    >(viewer, "epic_hierarchy", { epic_id: "EP-001" });
    expect(tree.reference_id).toBe("EP-001");
    expect(tree.user_stories).toHaveLength(1);
    expect(tree.user_stories[0]?.requirements[0]?.reference_id).toBe("REQ-001");
    expect(tree.user_stories[0]?.acceptance_criteria[0]?.reference_id).toBe("AC-001");
  });

  test("updates: requirement fields, type by name, move, stale conflict; criterion text re-derives its title", async () => {
    const req = await ok<Entity>(editor, "get_requirement", { requirement_id: "REQ-001" });
    const updated = await ok<Entity>(editor, "update_requirement", {
      requirement_id: "req-001",
      status: "Active",
      type: "SECURITY",
      priority: 2,
      assignee: "carol",
      expected_updated_at: req.updated_at,
    });
    expect(updated).toMatchObject({
      status: "Active",
      type_name: "Security",
      priority: 2,
      assignee_username: "carol",
    });
    expect(
      await fails(editor, "update_requirement", {
        requirement_id: "REQ-001",
        title: "x",
        expected_updated_at: req.updated_at,
      }),
    ).toContain("REQ-001 was changed by someone else");
    expect(await fails(editor, "update_requirement", { requirement_id: "REQ-001", type: "Bogus" })).toContain(
      'Unknown requirement type "Bogus". Use one of: Functional, Non-Functional',
    );

    await ok(editor, "create_user_story", { epic_id: "EP-002", title: "Another story" }); // US-002
    const moved = await ok<Entity>(editor, "update_requirement", {
      requirement_id: "REQ-001",
      user_story_id: "US-002",
    });
    expect(moved.user_story_id).toBe("US-002");
    const story = await ok<Entity>(editor, "update_user_story", {
      user_story_id: "US-002",
      epic_id: "EP-001",
      status: "Done",
      description: "Now under checkout.",
    });
    expect(story).toMatchObject({ epic_id: "EP-001", status: "Done", description: "Now under checkout." });

    const ac = await ok<Entity>(editor, "update_acceptance_criteria", {
      acceptance_criteria_id: "ac-1",
      description: "Given an expired card, the payment is refused.",
    });
    expect(ac).toMatchObject({
      title: "Given an expired card, the payment is refused.",
      description: "Given an expired card, the payment is refused.",
    });
    expect(
      await fails(editor, "update_acceptance_criteria", { acceptance_criteria_id: "AC-999", title: "x" }),
    ).toMatch(/^Acceptance criterion not found: AC-999/);
  });

  test("lists filter by parent, status, type and priority", async () => {
    await ok(editor, "create_requirement", {
      user_story_id: "US-001",
      title: "Refunds",
      type: "Functional",
      priority: 3,
    });
    await ok(editor, "create_requirement", {
      user_story_id: "US-001",
      title: "3-D Secure",
      type: "Security",
      priority: 1,
    });
    const byStory = await ok<Page>(viewer, "list_requirements", { user_story_id: "US-001" });
    expect(byStory.items.map((r) => r.reference_id)).toEqual(["REQ-002", "REQ-003"]);
    const security = await ok<Page>(viewer, "list_requirements", { type: "security" });
    expect(security.items.map((r) => r.reference_id)).toEqual(["REQ-001", "REQ-003"]);
    const p1 = await ok<Page>(viewer, "list_requirements", { priority: 1 });
    expect(p1.items.map((r) => r.reference_id)).toEqual(["REQ-003"]);
    const active = await ok<Page>(viewer, "list_requirements", { status: "Active" });
    expect(active.items.map((r) => r.reference_id)).toEqual(["REQ-001"]);
    const stories = await ok<Page>(viewer, "list_user_stories", { epic_id: "EP-001" });
    expect(stories.items.map((s) => s.reference_id)).toEqual(["US-001", "US-002"]);
    expect(await fails(viewer, "list_user_stories", { epic_id: "EP-999" })).toMatch(
      /^Epic not found: EP-999/,
    );
    expect(await fails(viewer, "list_requirements", { user_story_id: "US-999" })).toMatch(
      /^User story not found: US-999/,
    );
  });

  test("a requirement for an unknown story is not found; a duplicate title in one story is a conflict", async () => {
    expect(
      await fails(editor, "create_requirement", {
        user_story_id: "US-404",
        title: "X",
        type: "Functional",
        priority: 1,
      }),
    ).toMatch(/^User story not found: US-404/);
    expect(
      await fails(editor, "create_requirement", {
        user_story_id: "US-001",
        title: "refunds",
        type: "Functional",
        priority: 1,
      }),
    ).toContain("already has a requirement titled");
    expect(await fails(editor, "create_requirement", { user_story_id: "US-001", title: "No type" })).toMatch(
      /type[\s\S]*priority|priority[\s\S]*type/,
    );
  });
});

describe("relationships", () => {
  test("create, show on the requirement, refuse duplicates and self-links, delete", async () => {
    const link = await ok(editor, "create_relationship", {
      source_requirement_id: "req-002",
      target_requirement_id: "REQ-3",
      relationship_type: "DEPENDS_ON",
    });
    expect(link).toMatchObject({
      source_requirement_id: "REQ-002",
      target_requirement_id: "REQ-003",
      relationship_type: "depends_on",
      creator_username: "carol",
    });
    const req = await ok<{ relationships: { outgoing: unknown[]; incoming: unknown[] } }>(
      viewer,
      "get_requirement",
      {
        requirement_id: "REQ-003",
      },
    );
    expect(req.relationships.outgoing).toEqual([]);
    expect(req.relationships.incoming).toEqual([link]);
    expect(
      await fails(editor, "create_relationship", {
        source_requirement_id: "REQ-002",
        target_requirement_id: "REQ-003",
        relationship_type: "depends_on",
      }),
    ).toContain("already exists");
    expect(
      await fails(editor, "create_relationship", {
        source_requirement_id: "REQ-002",
        target_requirement_id: "REQ-002",
        relationship_type: "blocks",
      }),
    ).toContain("cannot be related to itself");
    expect(
      await fails(editor, "create_relationship", {
        source_requirement_id: "REQ-002",
        target_requirement_id: "REQ-003",
        relationship_type: "likes",
      }),
    ).toContain('Unknown relationship type "likes"');
    const removed = await ok(editor, "delete_relationship", {
      source_requirement_id: "REQ-002",
      target_requirement_id: "REQ-003",
      relationship_type: "depends_on",
    });
    expect(removed).toEqual(link);
    expect(
      await fails(editor, "delete_relationship", {
        source_requirement_id: "REQ-002",
        target_requirement_id: "REQ-003",
        relationship_type: "depends_on",
      }),
    ).toContain("No relationship REQ-002 depends_on REQ-003 exists");
  });
});

describe("types", () => {
  test("everyone lists types; only admins add requirement types", async () => {
    const types = await ok<{ types: { name: string }[] }>(viewer, "list_requirement_types");
    expect(types.types.map((t) => t.name)).toContain("Functional");
    const rel = await ok<{ types: { name: string }[] }>(viewer, "list_relationship_types");
    expect(rel.types.map((t) => t.name)).toEqual([
      "depends_on",
      "blocks",
      "relates_to",
      "conflicts_with",
      "derives_from",
    ]);
    expect(await fails(editor, "create_requirement_type", { name: "Legal" })).toMatch(
      /^Forbidden: create_requirement_type needs the admin role; your role in workspace "default" is editor/,
    );
    expect(await ok(admin, "create_requirement_type", { name: "Legal", description: "Laws." })).toEqual({
      name: "Legal",
      description: "Laws.",
    });
    expect(await fails(admin, "create_requirement_type", { name: "legal" })).toContain("already exists");
    const req = await ok<Entity>(editor, "create_requirement", {
      user_story_id: "US-001",
      title: "GDPR erasure",
      type: "LEGAL",
      priority: 2,
    });
    expect(req.type_name).toBe("Legal");
  });
});

describe("concurrency", () => {
  test("20 concurrent create_requirement calls from two clients: all acknowledged, ids unique and stored", async () => {
    const other = await h.connect(await h.member("cody", "editor"));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ok<Entity>(i % 2 === 0 ? editor : other, "create_requirement", {
          user_story_id: "US-002",
          title: `Parallel requirement ${i}`,
          type: "Functional",
          priority: 3,
        }),
      ),
    );
    const ids = results.map((r) => r.reference_id);
    expect(new Set(ids).size).toBe(20);
    const stored = await ok<Page>(viewer, "list_requirements", { user_story_id: "US-002", limit: 100 });
    for (const id of ids) expect(stored.items.map((r) => r.reference_id)).toContain(id);
  });
});

describe("roles", () => {
  test("a viewer gets Forbidden from every tool that writes (reads are used by the viewer throughout this file)", async () => {
    const writers = compiled.toolList.filter(
      (t) => OWN_TOOL_NAMES.has(t.name) && t.annotations.readOnlyHint !== true,
    );
    const args: Record<string, Record<string, unknown>> = {
      create_epic: { title: "V" },
      update_epic: { epic_id: "EP-001", title: "V" },
      create_user_story: { epic_id: "EP-001", title: "V" },
      update_user_story: { user_story_id: "US-001", title: "V" },
      create_requirement: { user_story_id: "US-001", title: "V", type: "Functional", priority: 1 },
      update_requirement: { requirement_id: "REQ-001", title: "V" },
      create_acceptance_criteria: { user_story_id: "US-001", description: "V" },
      update_acceptance_criteria: { acceptance_criteria_id: "AC-001", description: "V" },
      create_relationship: {
        source_requirement_id: "REQ-001",
        target_requirement_id: "REQ-002",
        relationship_type: "blocks",
      },
      delete_relationship: {
        source_requirement_id: "REQ-001",
        target_requirement_id: "REQ-002",
        relationship_type: "blocks",
      },
      delete_epic: { epic_id: "EP-001", cascade: true },
      delete_user_story: { user_story_id: "US-001", cascade: true },
      delete_requirement: { requirement_id: "REQ-001", cascade: true },
      delete_acceptance_criteria: { acceptance_criteria_id: "AC-001" },
      create_requirement_type: { name: "V" },
    };
    expect(writers.map((t) => t.name).sort()).toEqual(Object.keys(args).sort());
    for (const tool of writers) {
      const toolArgs = args[tool.name];
      expect(toolArgs, `arguments for ${tool.name}`).toBeDefined();
      const message = await fails(viewer, tool.name, toolArgs);
      expect(message, tool.name).toMatch(/^Forbidden: /);
      expect(message).toContain('your role in workspace "default" is viewer');
    }
    // Nothing was written.
    expect((await ok<Entity>(viewer, "get_epic", { epic_id: "EP-001" })).title).toBe("Checkout");
  });

  test("every tool's annotations are explicit about reading, destroying and repeating", () => {
    for (const tool of compiled.toolList.filter((t) => OWN_TOOL_NAMES.has(t.name))) {
      // The registry states every hint; the listing leaves out a read's, which MCP defines only for writes.
      const def = compiled.tools.get(tool.name)?.def.annotations ?? {};
      expect(typeof def.readOnlyHint, tool.name).toBe("boolean");
      expect(typeof def.destructiveHint, tool.name).toBe("boolean");
      expect(typeof def.idempotentHint, tool.name).toBe("boolean");
      expect(def.openWorldHint, tool.name).toBe(false);
      const listed = tool.annotations;
      expect(listed.readOnlyHint, tool.name).toBe(def.readOnlyHint);
      expect(listed.openWorldHint, tool.name).toBe(false);
      if (!def.readOnlyHint) {
        expect(listed.destructiveHint, tool.name).toBe(def.destructiveHint);
        expect(listed.idempotentHint, tool.name).toBe(def.idempotentHint);
      }
      if (tool.name.startsWith("get_") || tool.name.startsWith("list_") || tool.name.startsWith("search_")) {
        expect(def.readOnlyHint, tool.name).toBe(true);
      }
      expect(tool.outputSchema, tool.name).toBeDefined();
    }
  });

  test("a result reads as JSON text for the model and validates against the output schema", async () => {
    const result = await call(viewer, "get_epic", { epic_id: "EP-001" });
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
  });
});
