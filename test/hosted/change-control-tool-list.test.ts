/**
 * The change-control tools, resources and prompt as clients list them (names, descriptions, schemas,
 * annotations), snapshot-tested so any change to what a model reads is a reviewed diff.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { changeControlResources, changeControlTools } from "../../src/hosted/change-control.js";
import { createHarness, type Harness } from "./harness.js";

const NAMES = new Set(changeControlTools.map((t) => t.name));
let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await createHarness();
  client = await h.connect(await h.member("snap", "viewer"));
});
afterAll(async () => h.close());

test("the change-control tools of tools/list match the snapshot", async () => {
  const tools = (await client.listTools()).tools.filter((t) => NAMES.has(t.name));
  expect(tools.map((t) => t.name)).toEqual(changeControlTools.map((t) => t.name));
  for (const tool of tools) expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(
    "./__snapshots__/change-control-tools.json.snap",
  );
});

test("the change-control resource templates match the snapshot", async () => {
  const uris = new Set(changeControlResources.map((r) => r.uriTemplate));
  const templates = (await client.listResourceTemplates()).resourceTemplates.filter((t) =>
    uris.has(t.uriTemplate),
  );
  expect(templates.map((t) => t.uriTemplate)).toEqual(changeControlResources.map((r) => r.uriTemplate));
  await expect(`${JSON.stringify(templates, null, 2)}\n`).toMatchFileSnapshot(
    "./__snapshots__/change-control-resources.json.snap",
  );
});
