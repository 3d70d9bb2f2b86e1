/**
 * The change-control tools, resources and prompt as clients list them (names, descriptions, schemas,
 * annotations), snapshot-tested so any change to what a model reads is a reviewed diff.
 */
import { expect, test } from "vitest";
import { changeControlResources, changeControlTools } from "../../src/hosted/change-control.js";
import { listedTemplates, listedTools, snapshotText, viewerClient } from "./listed.js";

const client = viewerClient();

test("the change-control tools of tools/list match the snapshot", async () => {
  const tools = await listedTools(
    client(),
    changeControlTools.map((t) => t.name),
  );
  expect(tools.map((t) => t.name)).toEqual(changeControlTools.map((t) => t.name));
  for (const tool of tools) expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
  await expect(snapshotText(tools)).toMatchFileSnapshot("./__snapshots__/change-control-tools.json.snap");
});

test("the change-control resource templates match the snapshot", async () => {
  const templates = await listedTemplates(
    client(),
    changeControlResources.map((r) => r.uriTemplate),
  );
  expect(templates.map((t) => t.uriTemplate)).toEqual(changeControlResources.map((r) => r.uriTemplate));
  await expect(snapshotText(templates)).toMatchFileSnapshot(
    "./__snapshots__/change-control-resources.json.snap",
  );
});
