/**
 * The hosted tools/list as clients see it (names, titles, descriptions, input and output schemas,
 * annotations), snapshot-tested so any change to what a model reads is a reviewed diff.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createHarness, type Harness } from "./harness.js";
import { OWN_RESOURCE_TEMPLATES, OWN_TOOL_NAMES } from "./own-tools.js";

let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await createHarness();
  client = await h.connect(await h.member("snap", "viewer"));
});

afterAll(async () => {
  await h.close();
});

test("tools/list matches the snapshot", async () => {
  const tools = (await client.listTools()).tools.filter((t) => OWN_TOOL_NAMES.has(t.name));
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(
    "./__snapshots__/tools-list.json.snap",
  );
});

test("prompts and resource templates match the snapshot", async () => {
  const { prompts } = await client.listPrompts();
  const resourceTemplates = (await client.listResourceTemplates()).resourceTemplates.filter((t) =>
    OWN_RESOURCE_TEMPLATES.has(t.uriTemplate),
  );
  await expect(`${JSON.stringify({ prompts, resourceTemplates }, null, 2)}\n`).toMatchFileSnapshot(
    "./__snapshots__/prompts-resources.json.snap",
  );
});

test("the tool names are exactly the issue's, plus the type tools and the deletes (item 18)", async () => {
  const tools = (await client.listTools()).tools.filter((t) => OWN_TOOL_NAMES.has(t.name));
  expect(tools.map((t) => t.name).sort()).toEqual(
    [
      "create_epic",
      "update_epic",
      "get_epic",
      "list_epics",
      "epic_hierarchy",
      "create_user_story",
      "update_user_story",
      "get_user_story",
      "list_user_stories",
      "get_user_story_requirements",
      "create_requirement",
      "update_requirement",
      "get_requirement",
      "list_requirements",
      "create_acceptance_criteria",
      "update_acceptance_criteria",
      "create_relationship",
      "delete_relationship",
      "delete_epic",
      "delete_user_story",
      "delete_requirement",
      "delete_acceptance_criteria",
      "search_global",
      "search_requirements",
      "list_requirement_types",
      "list_relationship_types",
      "create_requirement_type",
    ].sort(),
  );
  for (const tool of tools) {
    expect(tool.name).toMatch(/^[a-z][a-z_]{1,63}$/);
    expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
  }
});
