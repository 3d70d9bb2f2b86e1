/**
 * The read tools added for the web app (issue 13) as clients list them, snapshot-tested so any change to
 * what a model reads is a reviewed diff: get_epic_graph, list_docset_pages, list_audit_events (admin).
 */
import { expect, test } from "vitest";
import { listAuditEventsTool } from "../../src/hosted/audit-log.tool.js";
import { listDocsetPagesTool } from "../../src/hosted/docset-pages.tool.js";
import { getEpicGraphTool } from "../../src/hosted/epic-graph.tool.js";
import { listedTools, snapshotText, viewerClient } from "./listed.js";

const client = viewerClient();

test("the web app's read tools in tools/list match the snapshot and are read-only", async () => {
  const names = [getEpicGraphTool, listDocsetPagesTool, listAuditEventsTool].map((t) => t.name);
  const tools = await listedTools(client(), names);
  expect(tools.map((t) => t.name)).toEqual(["get_epic_graph", "list_docset_pages", "list_audit_events"]);
  for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
  await expect(snapshotText(tools)).toMatchFileSnapshot("./__snapshots__/web-tools.json.snap");
});
