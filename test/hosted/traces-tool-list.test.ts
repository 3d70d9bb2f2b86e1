/**
 * The trace tools as clients list them (names, descriptions, schemas, annotations), snapshot-tested so any
 * change to what a model reads is a reviewed diff. All are read-only: pushing is `POST /api/v1/traces`.
 */
import { expect, test } from "vitest";
import { traceTools } from "../../src/hosted/traces.tools.js";
import { listedTools, snapshotText, viewerClient } from "./listed.js";

const client = viewerClient();

test("the trace tools of tools/list match the snapshot", async () => {
  const tools = await listedTools(
    client(),
    traceTools.map((t) => t.name),
  );
  expect(tools.map((t) => t.name)).toEqual([
    "resolve_references",
    "get_requirement_traces",
    "list_untraced_requirements",
    "trace_summary",
  ]);
  for (const tool of tools) {
    expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40);
    expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
  }
  await expect(snapshotText(tools)).toMatchFileSnapshot("./__snapshots__/traces-tools.json.snap");
});
