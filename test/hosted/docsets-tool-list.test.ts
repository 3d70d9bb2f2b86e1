/**
 * The docset tools and the docset:// template as clients list them (names, descriptions, schemas,
 * annotations), snapshot-tested so any change to what a model reads is a reviewed diff.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { docsetResources } from "../../src/hosted/docsets.resources.js";
import { docsetTools } from "../../src/hosted/docsets.tools.js";
import { createHarness, type Harness } from "./harness.js";

const NAMES = new Set(docsetTools.map((t) => t.name));
let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await createHarness();
  client = await h.connect(await h.member("snap", "viewer"));
});
afterAll(async () => h.close());

test("the docset tools of tools/list match the snapshot", async () => {
  const tools = (await client.listTools()).tools.filter((t) => NAMES.has(t.name));
  expect(tools.map((t) => t.name)).toEqual([
    "list_docsets",
    "search_docs",
    "register_docset",
    "update_docset",
    "upload_docset_pages",
    "set_docs_root",
    "delete_docset",
  ]);
  for (const tool of tools) expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(
    "./__snapshots__/docsets-tools.json.snap",
  );
});

test("the docset resource template matches the snapshot", async () => {
  const uris = new Set(docsetResources.map((r) => r.uriTemplate));
  const templates = (await client.listResourceTemplates()).resourceTemplates.filter((t) =>
    uris.has(t.uriTemplate),
  );
  expect(templates.map((t) => t.uriTemplate)).toEqual(["docset://{name}"]);
  await expect(`${JSON.stringify(templates, null, 2)}\n`).toMatchFileSnapshot(
    "./__snapshots__/docsets-resources.json.snap",
  );
});

test("list_docsets and search_docs take the companion's arguments (shared schemas)", async () => {
  const tools = (await client.listTools()).tools;
  const search = tools.find((t) => t.name === "search_docs");
  expect(search?.inputSchema.required).toEqual(["docset", "keywords", "generalized_keywords"]);
  expect(Object.keys(tools.find((t) => t.name === "list_docsets")?.inputSchema.properties ?? {})).toEqual([]);
});
