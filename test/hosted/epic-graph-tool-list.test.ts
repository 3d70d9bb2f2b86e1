/** get_epic_graph as clients list it, snapshot-tested so any change to what a model reads is a reviewed diff. */
import { expect, test } from "vitest";
import { getEpicGraphTool } from "../../src/hosted/epic-graph.tool.js";
import { listedTools, snapshotText, viewerClient } from "./listed.js";

const client = viewerClient();

test("get_epic_graph in tools/list matches the snapshot and is read-only", async () => {
  const tools = await listedTools(client(), [getEpicGraphTool.name]);
  expect(tools.map((t) => t.name)).toEqual(["get_epic_graph"]);
  expect(tools[0]?.annotations?.readOnlyHint).toBe(true);
  await expect(snapshotText(tools)).toMatchFileSnapshot("./__snapshots__/epic-graph-tool.json.snap");
});
