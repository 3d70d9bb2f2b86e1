/**
 * `get_user_story_requirements` against specs/user-story-requirements.md, criterion by criterion, through
 * the real SDK Client and a real migrated database.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { isDomainError } from "../../src/core/errors.js";
import { call, compiled, createHarness, fails, type Harness, ok, text } from "./harness.js";

let h: Harness;
let alice: AuthInfo;
let client: Client;
const at = (iso: string) => new Date(iso);

beforeAll(async () => {
  h = await createHarness();
  alice = await h.member("alice", "editor");
  await h.member("bob", "editor");
  client = await h.connect(alice);
  await ok(client, "create_epic", { title: "Accounts" });
  // Stories US-001 … US-047, so the spec's own example ids are real.
  for (let i = 1; i <= 47; i++)
    await ok(client, "create_user_story", { epic_id: "EP-001", title: `Story ${i}` });
  await ok(client, "create_user_story", { epic_id: "EP-001", title: "Empty story" }); // US-048
});

afterAll(async () => {
  await h.close();
});

describe("tools/list entry (criteria 1.7 and 4.2)", () => {
  test("name, description and input schema are exactly the spec's", async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "get_user_story_requirements");
    expect(tool?.description).toBe("Get all requirements linked to a specific user story");
    // The spec's one required parameter, exactly; paging (issue item 8) adds only optional ones.
    const schema = tool?.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(schema.properties.user_story).toEqual({
      type: "string",
      description: "User story reference ID (e.g., 'US-047')",
      pattern: "^US-\\d+$",
    });
    expect(schema.required).toEqual(["user_story"]);
    expect(Object.keys(schema.properties)).toEqual(["user_story", "limit", "cursor"]);
    expect(tool?.annotations?.readOnlyHint).toBe(true);
  });
});

describe("results (criteria 1.1, 1.3, 1.6, 1.8, 1.9, 3.1, 3.3, 4.1)", () => {
  beforeAll(async () => {
    // Different priorities and dates, and two with the very same created_at (tie → the later insert first).
    h.setNow(at("2026-03-01T10:00:00.000Z"));
    await ok(client, "create_requirement", {
      user_story_id: "US-047",
      title: "Password reset by e-mail",
      description: "A user can reset a forgotten password through a link sent by e-mail.",
      type: "Functional",
      priority: 2,
    }); // REQ-001
    h.setNow(at("2026-03-02T10:00:00.000Z"));
    await ok(client, "create_requirement", {
      user_story_id: "US-047",
      title: "Reset link expires",
      description: "The link expires after 30 minutes.",
      type: "non-functional",
      priority: 2,
      status: "Active",
      assignee: "bob",
    }); // REQ-002
    h.setNow(at("2026-03-03T10:00:00.000Z"));
    await ok(client, "create_requirement", {
      user_story_id: "US-047",
      title: "Reset API",
      description: "",
      type: "INTERFACE",
      priority: 1,
    }); // REQ-003
    h.setNow(at("2026-02-01T10:00:00.000Z"));
    await ok(client, "create_requirement", {
      user_story_id: "US-047",
      title: "Audit resets",
      description: "Every reset is recorded.",
      type: "Security",
      priority: 4,
      status: "Obsolete",
    }); // REQ-004
    await ok(client, "create_requirement", {
      user_story_id: "US-047",
      title: "Notify on reset",
      description: "The user is told by e-mail that the password changed.",
      type: "Functional",
      priority: 4,
    }); // REQ-005, same created_at as REQ-004
    // Another story's requirement must not appear.
    await ok(client, "create_requirement", {
      user_story_id: "US-046",
      title: "Other",
      type: "Functional",
      priority: 1,
    });
    h.setNow(undefined);
  });

  test("the text is exactly criterion 1.8's format, sorted by priority then newest first", async () => {
    const result = await call(client, "get_user_story_requirements", { user_story: "US-047" });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(
      [
        "Found 5 requirements for user story US-047:",
        "",
        "REQ-003: Reset API (Priority: 1, Status: Draft, Type: Interface, Creator: alice, Assignee: Unassigned)",
        "(no description)",
        "Created: 2026-03-03T10:00:00.000Z",
        "",
        "REQ-002: Reset link expires (Priority: 2, Status: Active, Type: Non-Functional, Creator: alice, Assignee: bob)",
        "The link expires after 30 minutes.",
        "Created: 2026-03-02T10:00:00.000Z",
        "",
        "REQ-001: Password reset by e-mail (Priority: 2, Status: Draft, Type: Functional, Creator: alice, Assignee: Unassigned)",
        "A user can reset a forgotten password through a link sent by e-mail.",
        "Created: 2026-03-01T10:00:00.000Z",
        "",
        "REQ-005: Notify on reset (Priority: 4, Status: Draft, Type: Functional, Creator: alice, Assignee: Unassigned)",
        "The user is told by e-mail that the password changed.",
        "Created: 2026-02-01T10:00:00.000Z",
        "",
        "REQ-004: Audit resets (Priority: 4, Status: Obsolete, Type: Security, Creator: alice, Assignee: Unassigned)",
        "Every reset is recorded.",
        "Created: 2026-02-01T10:00:00.000Z",
      ].join("\n"),
    );
  });

  test("text and structuredContent hold every field of criterion 1.3 once: title and description in the text, the rest as data", async () => {
    const result = await call(client, "get_user_story_requirements", { user_story: "US-047" });
    const out = result.structuredContent as {
      user_story: string;
      count: number;
      requirements: Record<string, unknown>[];
    };
    expect(out.user_story).toBe("US-047");
    expect(out.count).toBe(5);
    expect(out.requirements.map((r) => r.reference_id)).toEqual([
      "REQ-003",
      "REQ-002",
      "REQ-001",
      "REQ-005",
      "REQ-004",
    ]);
    expect(out.requirements[1]).toEqual({
      reference_id: "REQ-002",
      status: "Active",
      priority: 2,
      type_name: "Non-Functional",
      creator_username: "alice",
      assignee_username: "bob",
      revision: 1,
      created_at: "2026-03-02T10:00:00.000Z",
      updated_at: "2026-03-02T10:00:00.000Z",
    });
    // The free text is carried once, by the text block, under the same reference id.
    expect(text(result)).toContain(
      "REQ-002: Reset link expires (Priority: 2, Status: Active, Type: Non-Functional, Creator: alice, Assignee: bob)\nThe link expires after 30 minutes.\n",
    );
    for (const r of out.requirements) {
      expect(r).not.toHaveProperty("title");
      expect(r).not.toHaveProperty("description");
      expect(r).not.toHaveProperty("type_id");
    }
  });

  test("type names are the names listed by requirements://requirements-types (criteria 1.9, 4.1)", async () => {
    const resource = await client.readResource({ uri: "requirements://requirements-types" });
    const first = resource.contents[0] as { text: string };
    const names = (JSON.parse(first.text) as { requirement_types: { name: string }[] }).requirement_types.map(
      (t) => t.name,
    );
    const out = await ok<{ requirements: { type_name: string }[] }>(client, "get_user_story_requirements", {
      user_story: "US-047",
    });
    for (const r of out.requirements) expect(names).toContain(r.type_name);
    const shown = text(await call(client, "get_user_story_requirements", { user_story: "US-047" }));
    expect(shown).toContain(
      "REQ-001: Password reset by e-mail (Priority: 2, Status: Draft, Type: Functional,",
    );
    expect(shown).toContain("REQ-003: Reset API (Priority: 1, Status: Draft, Type: Interface,");
  });

  test("ids are accepted in any case and padding", async () => {
    const out = await ok<{ user_story: string; count: number }>(client, "get_user_story_requirements", {
      user_story: "us-47",
    });
    expect(out).toMatchObject({ user_story: "US-047", count: 5 });
  });
});

describe("empty story (criteria 1.4, 3.2)", () => {
  test("is a success with the spec's sentence and an empty array", async () => {
    const result = await call(client, "get_user_story_requirements", { user_story: "US-048" });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(
      "Found 0 requirements for user story US-048. No requirements are currently linked to this user story.",
    );
    expect(result.structuredContent).toEqual({ user_story: "US-048", count: 0, requirements: [] });
  });
});

describe("errors (criteria 2.1, 2.2)", () => {
  test.each(["USER-047", "US-", "US-ABC", "047"])(
    "%s → Invalid user story reference ID format",
    async (bad) => {
      const message = await fails(client, "get_user_story_requirements", { user_story: bad });
      expect(message).toContain("user_story: Invalid user story reference ID format");
    },
  );

  test("a missing argument names the field", async () => {
    expect(await fails(client, "get_user_story_requirements", {})).toContain("user_story");
  });

  test("US-999 → User story not found, carrying the reference id", async () => {
    const message = await fails(client, "get_user_story_requirements", { user_story: "US-999" });
    expect(message).toMatch(/^User story not found: US-999\b/);
    // The error the faces map to -32002 carries data.reference_id.
    const tool = compiled.tools.get("get_user_story_requirements");
    const error = await Promise.resolve(tool?.def.handler({ user_story: "US-999" }, h.context(alice))).catch(
      (e: unknown) => e,
    );
    expect(isDomainError(error) && error.code).toBe("not_found");
    expect(isDomainError(error) && error.details.reference_id).toBe("US-999");
  });

  test("a story of another workspace is not found", async () => {
    const eve = await h.member("eve", "admin", "other-team");
    const other = await h.connect(eve);
    expect(await fails(other, "get_user_story_requirements", { user_story: "US-047" })).toMatch(
      /^User story not found: US-047/,
    );
  });
});
