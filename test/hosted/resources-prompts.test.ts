/** Resources (templates, read, not found) and prompts (arguments, loaded context, errors) via the SDK Client. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, type Harness, ok } from "./harness.js";
import { isOwnUri, OWN_RESOURCE_TEMPLATES } from "./own-tools.js";

let h: Harness;
let client: Client;
let viewer: Client;
let outsider: Client;

beforeAll(async () => {
  h = await createHarness();
  client = await h.connect(await h.member("rita", "editor"));
  viewer = await h.connect(await h.member("val", "viewer"));
  outsider = await h.connect(await h.member("otto", "admin", "elsewhere"));
  await ok(client, "create_epic", { title: "Onboarding", description: "Getting new users started." });
  await ok(client, "create_user_story", { epic_id: "EP-001", title: "Sign up with e-mail" });
  await ok(client, "create_requirement", {
    user_story_id: "US-001",
    title: "Verify e-mail address",
    description: "A confirmation link is sent; the account stays inactive until it is opened.",
    type: "Functional",
    priority: 1,
  });
  await ok(client, "create_requirement", {
    user_story_id: "US-001",
    title: "Rate-limit sign-ups",
    type: "Security",
    priority: 2,
  });
  await ok(client, "create_relationship", {
    source_requirement_id: "REQ-002",
    target_requirement_id: "REQ-001",
    relationship_type: "relates_to",
  });
  await ok(client, "create_acceptance_criteria", {
    user_story_id: "US-001",
    description: "Given a new address, when the user signs up, then a confirmation e-mail arrives.",
  });
});

afterAll(async () => {
  await h.close();
});

async function readText(
  c: Client,
  uri: string,
): Promise<{ text: string; mimeType: string | undefined; uri: string }> {
  const result = await c.readResource({ uri });
  expect(result.contents).toHaveLength(1);
  const first = result.contents[0] as { text: string; mimeType?: string; uri: string };
  return { text: first.text, mimeType: first.mimeType, uri: first.uri };
}

async function mcpError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("resources", () => {
  test("templates list DESIGN's URIs; resources/list offers the epics and the types", async () => {
    const resourceTemplates = (await client.listResourceTemplates()).resourceTemplates.filter((t) =>
      OWN_RESOURCE_TEMPLATES.has(t.uriTemplate),
    );
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "epic://{epic_id}",
      "epic://{epic_id}/hierarchy",
      "user-story://{user_story_id}",
      "user-story://{user_story_id}/requirements",
      "requirement://{requirement_id}",
      "requirement://{requirement_id}/relationships",
      "acceptance-criteria://{acceptance_criteria_id}",
      "requirements://requirements-types",
    ]);
    for (const t of resourceTemplates) {
      expect(t.description, t.uriTemplate).toBeTruthy();
      expect(t.mimeType, t.uriTemplate).toBeTruthy();
    }
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).filter(isOwnUri)).toEqual([
      "epic://EP-001",
      "requirements://requirements-types",
    ]);
  });

  test("each resource reads as markdown or JSON with its uri and mimeType; ids in any case", async () => {
    const epic = await readText(viewer, "epic://ep-1");
    expect(epic.uri).toBe("epic://ep-1");
    expect(epic.mimeType).toBe("text/markdown");
    expect(epic.text).toMatch(/^# EP-001: Onboarding\n/);
    expect(epic.text).toContain("- Status: Backlog");
    expect(epic.text).toContain("Getting new users started.");

    const tree = await readText(viewer, "epic://EP-001/hierarchy");
    expect(tree.text).toContain("## US-001: Sign up with e-mail");
    expect(tree.text).toContain("**REQ-001** Verify e-mail address (Functional, priority 1, Draft)");
    expect(tree.text).toContain("**AC-001** Given a new address");

    const story = await readText(viewer, "user-story://US-001");
    expect(story.text).toMatch(/^# US-001: Sign up with e-mail\n/);
    expect(story.text).toContain("- Epic: EP-001");
    expect(story.text).toContain("## Acceptance criteria\n\n- **AC-001** Given a new address");

    const storyReqs = await readText(viewer, "user-story://us-001/requirements");
    expect(storyReqs.text).toMatch(
      /^Found 2 requirements for user story US-001:\n\nREQ-001: Verify e-mail address \(Priority: 1,/,
    );

    const req = await readText(viewer, "requirement://REQ-002");
    expect(req.text).toMatch(/^# REQ-002: Rate-limit sign-ups\n/);
    expect(req.text).toContain("- relates_to → REQ-001");

    const links = await readText(viewer, "requirement://REQ-001/relationships");
    expect(links.mimeType).toBe("application/json");
    expect(JSON.parse(links.text)).toMatchObject({
      requirement_id: "REQ-001",
      outgoing: [],
      incoming: [
        {
          source_requirement_id: "REQ-002",
          target_requirement_id: "REQ-001",
          relationship_type: "relates_to",
        },
      ],
    });

    const types = JSON.parse((await readText(viewer, "requirements://requirements-types")).text) as {
      requirement_types: { name: string }[];
      relationship_types: { name: string }[];
    };
    expect(types.requirement_types.map((t) => t.name)).toEqual(
      expect.arrayContaining(["Functional", "Non-Functional", "Interface"]),
    );
    expect(types.relationship_types.map((t) => t.name)).toContain("depends_on");
  });

  test("unknown entities, malformed ids and unknown URIs are -32002 with the reference", async () => {
    for (const [uri, ref] of [
      ["epic://EP-999", "EP-999"],
      ["user-story://US-999/requirements", "US-999"],
      ["requirement://REQ-999/relationships", "REQ-999"],
      ["epic://banana", "banana"],
    ] as const) {
      const error = await mcpError(client.readResource({ uri }));
      expect(error.code, uri).toBe(-32002);
      expect((error.data as { reference_id?: string }).reference_id, uri).toBe(ref);
    }
    const unknown = await mcpError(client.readResource({ uri: "widget://W-1" }));
    expect(unknown.code).toBe(-32002);
  });

  test("another workspace reads nothing of ours", async () => {
    expect((await mcpError(outsider.readResource({ uri: "epic://EP-001" }))).code).toBe(-32002);
    expect((await mcpError(outsider.readResource({ uri: "requirement://REQ-001" }))).code).toBe(-32002);
    const { resources } = await outsider.listResources();
    expect(resources.map((r) => r.uri).filter(isOwnUri)).toEqual(["requirements://requirements-types"]);
  });
});

describe("prompts", () => {
  test("the five prompts of the spec, then change control's review_changes, are listed with their arguments", async () => {
    const { prompts } = await client.listPrompts();
    expect(
      prompts.map((p) => [p.name, p.arguments?.map((a) => `${a.name}${a.required ? "" : "?"}`)]),
    ).toEqual([
      ["analyze_requirement_quality", ["requirement_id"]],
      ["suggest_acceptance_criteria", ["user_story_id"]],
      ["generate_user_story", ["epic_id", "need?"]],
      ["decompose_epic", ["epic_id"]],
      ["suggest_test_scenarios", ["requirement_id?", "user_story_id?"]],
      ["review_changes", ["baseline"]],
    ]);
  });

  test("each prompt loads its entities into the messages", async () => {
    const cases: [string, Record<string, string>, string[]][] = [
      [
        "analyze_requirement_quality",
        { requirement_id: "req-1" },
        ["REQ-001: Verify e-mail address", "update_requirement"],
      ],
      [
        "suggest_acceptance_criteria",
        { user_story_id: "US-001" },
        ["US-001: Sign up with e-mail", "AC-001", "create_acceptance_criteria"],
      ],
      [
        "generate_user_story",
        { epic_id: "EP-001", need: "invite teammates" },
        ["invite teammates", "EP-001: Onboarding", "create_user_story"],
      ],
      ["decompose_epic", { epic_id: "EP-001" }, ["EP-001: Onboarding", "US-001", "INVEST"]],
      [
        "suggest_test_scenarios",
        { requirement_id: "REQ-002" },
        ["REQ-002: Rate-limit sign-ups", "relates_to → REQ-001"],
      ],
      [
        "suggest_test_scenarios",
        { user_story_id: "US-001" },
        ["US-001: Sign up with e-mail", "REQ-001", "REQ-002"],
      ],
    ];
    for (const [name, args, expected] of cases) {
      const result = await viewer.getPrompt({ name, arguments: args });
      expect(result.description, name).toBeTruthy();
      expect(result.messages.length, name).toBeGreaterThan(0);
      const all = result.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
      for (const piece of expected) expect(all, `${name} mentions ${piece}`).toContain(piece);
    }
  });

  test("a missing required argument is an error that names it", async () => {
    const missing = await mcpError(client.getPrompt({ name: "decompose_epic", arguments: {} }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain("epic_id");
    const neither = await mcpError(client.getPrompt({ name: "suggest_test_scenarios", arguments: {} }));
    expect(neither.code).toBe(-32602);
    expect(neither.message).toContain("requirement_id");
    expect(neither.message).toContain("user_story_id");
    const both = await mcpError(
      client.getPrompt({
        name: "suggest_test_scenarios",
        arguments: { requirement_id: "REQ-001", user_story_id: "US-001" },
      }),
    );
    expect(both.message).toContain("exactly one");
  });

  test("a malformed id is -32602 naming the argument; an unknown entity is -32002", async () => {
    const bad = await mcpError(
      client.getPrompt({ name: "analyze_requirement_quality", arguments: { requirement_id: "US-1" } }),
    );
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("requirement_id");
    expect(bad.message).toContain("Invalid requirement reference ID format");
    const missing = await mcpError(
      client.getPrompt({ name: "generate_user_story", arguments: { epic_id: "EP-404" } }),
    );
    expect(missing.code).toBe(-32002);
    expect((missing.data as { reference_id?: string }).reference_id).toBe("EP-404");
    const foreign = await mcpError(
      outsider.getPrompt({ name: "decompose_epic", arguments: { epic_id: "EP-001" } }),
    );
    expect(foreign.code).toBe(-32002);
  });
});

describe("instructions", () => {
  test("tell an assistant to read requirements first, cite ids and keep them current", () => {
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("Before you write or change code");
    expect(instructions).toContain("Cite reference ids");
    expect(instructions).toContain("Keep them current");
  });

  test("point to the companion's trace_file before editing, and to the hosted trace tools", async () => {
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toMatch(/companion's trace toolset, call trace_file before editing a file/);
    const names = new Set((await client.listTools()).tools.map((t) => t.name));
    for (const tool of ["get_requirement_traces", "list_untraced_requirements"]) {
      expect(instructions).toContain(tool);
      expect(names.has(tool)).toBe(true);
    }
  });
});
