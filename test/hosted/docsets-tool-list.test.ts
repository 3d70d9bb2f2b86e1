/**
 * The docset tools and the docset:// template as clients list them (names, descriptions, schemas,
 * annotations), snapshot-tested so any change to what a model reads is a reviewed diff.
 */
import { expect, test } from "vitest";
import { docsetResources } from "../../src/hosted/docsets.resources.js";
import { docsetTools } from "../../src/hosted/docsets.tools.js";
import { listedTemplates, listedTools, snapshotText, viewerClient } from "./listed.js";

const client = viewerClient();

test("the docset tools of tools/list match the snapshot", async () => {
  const tools = await listedTools(
    client(),
    docsetTools.map((t) => t.name),
  );
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
  await expect(snapshotText(tools)).toMatchFileSnapshot("./__snapshots__/docsets-tools.json.snap");
});

test("the docset resource template matches the snapshot", async () => {
  const templates = await listedTemplates(
    client(),
    docsetResources.map((r) => r.uriTemplate),
  );
  expect(templates.map((t) => t.uriTemplate)).toEqual(["docset://{name}"]);
  await expect(snapshotText(templates)).toMatchFileSnapshot("./__snapshots__/docsets-resources.json.snap");
});

test("list_docsets and search_docs take the companion's arguments (shared schemas)", async () => {
  const tools = (await client().listTools()).tools;
  const search = tools.find((t) => t.name === "search_docs");
  expect(search?.inputSchema.required).toEqual(["docset", "keywords", "generalized_keywords"]);
  expect(Object.keys(tools.find((t) => t.name === "list_docsets")?.inputSchema.properties ?? {})).toEqual([]);
});
