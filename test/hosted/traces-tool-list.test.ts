/**
 * The trace tools as clients list them (names, descriptions, schemas, annotations), snapshot-tested so any
 * change to what a model reads is a reviewed diff. All are read-only: pushing is `POST /api/v1/traces`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { traceTools } from "../../src/hosted/traces.tools.js";
import { createHarness, type Harness } from "./harness.js";

const NAMES = new Set(traceTools.map((t) => t.name));
let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await createHarness();
  client = await h.connect(await h.member("snap", "viewer"));
});
afterAll(async () => h.close());

test("the trace tools of tools/list match the snapshot", async () => {
  const tools = (await client.listTools()).tools.filter((t) => NAMES.has(t.name));
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
  await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot(
    "./__snapshots__/traces-tools.json.snap",
  );
});
