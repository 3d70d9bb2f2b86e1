/**
 * Suspect trace citations (change control item 3 with traceability): a citation in the latest pushed scan
 * of a repository, pinned to an older revision than its entity's current one, is listed by
 * list_suspect_links (repository, file, line, pinned and current revision), filtered by epic; the trace
 * tools call the same citations suspect; another workspace never sees them.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { type CitationIn, pushTraces, sha, snapshotBody } from "../helpers/traces.js";
import { callTool } from "./faces/http.js";

type Citation = {
  reference_id: string;
  entity_kind: string;
  repository: string;
  commit: string;
  file: string;
  line: number;
  kind: string;
  pinned_revision: number;
  revision_now: number;
};
type Suspects = { relationships: unknown[]; trace_citations: Citation[] };

let t: TestApp;
let other: string;

/** A write through /api/v1/mcp; its structured result. */
async function write<T>(name: string, args: Record<string, unknown>, token = t.ownerToken): Promise<T> {
  const answer = await callTool(t, "jsonrpc", name, args, token);
  if (!answer.body?.result || answer.body.result.isError) throw new Error(`${name}: ${answer.text}`);
  return answer.body.result.structuredContent as T;
}

/** A read on both faces, which must agree; the structured result. */
async function tool<T>(name: string, args: Record<string, unknown>, token = t.ownerToken): Promise<T> {
  const answer = await write<T>(name, args, token);
  const viaMcp = await callTool(t, "mcp", name, args, token);
  expect(viaMcp.body.result.structuredContent).toEqual(answer);
  return answer;
}

const suspects = (args: Record<string, unknown> = {}, token = t.ownerToken) =>
  tool<Suspects>("list_suspect_links", args, token);

async function tree(token: string) {
  for (const title of ["Payments", "Reports"]) {
    const epic = await write<{ reference_id: string }>("create_epic", { title }, token);
    await write("create_user_story", { epic_id: epic.reference_id, title: `${title} story` }, token);
  }
  // REQ-001 and AC-001 in EP-001 (US-001); REQ-002 in EP-002 (US-002).
  await write(
    "create_requirement",
    { user_story_id: "US-001", title: "Pay", type: "Functional", priority: 1 },
    token,
  );
  await write(
    "create_requirement",
    { user_story_id: "US-002", title: "Report", type: "Functional", priority: 2 },
    token,
  );
  await write(
    "create_acceptance_criteria",
    { user_story_id: "US-001", description: "Given pay, then paid." },
    token,
  );
}

const CITATIONS: CitationIn[] = [
  { id: "REQ-001", revision: 1, file: "src/pay.ts", line: 12 },
  { id: "REQ-001", revision: null, file: "src/pay.ts", line: 40 }, // not pinned: never suspect
  { id: "REQ-001", revision: 2, file: "src/pay-v2.ts", line: 3 }, // pinned to the revision it will have
  { id: "AC-001", revision: 1, file: "test/pay.test.ts", line: 7, kind: "test" },
  { id: "REQ-002", revision: 1, file: "src/report.ts", line: 5 }, // REQ-002 does not change
  { id: "US-001", revision: 1, file: "docs/pay.md", line: 1, kind: "doc" },
];

beforeAll(async () => {
  t = await createTestApp();
  await tree(t.ownerToken);
  // Another workspace with the same ids, all moved on: it must never see (or be seen by) these citations.
  other = await t.createToken("olga", "admin", "elsewhere");
  await tree(other);
  for (const id of ["REQ-001", "REQ-002"]) {
    await write("update_requirement", { requirement_id: id, description: "elsewhere v2" }, other);
  }
  const pushed = await pushTraces(
    t,
    snapshotBody({ repository: "acme/pay", commit: sha(1), citations: CITATIONS }),
  );
  expect(pushed.status, pushed.text).toBeLessThan(300);
});
afterAll(async () => t?.close());

test("a citation pinned to the current revision is not suspect; after the entity changes it is listed", async () => {
  expect((await suspects()).trace_citations).toEqual([]);

  await write("update_requirement", { requirement_id: "REQ-001", description: "Pay within 2 s." });
  await write("update_acceptance_criteria", {
    acceptance_criteria_id: "AC-001",
    description: "Given pay, then paid twice.",
  });
  const listed = (await suspects()).trace_citations;
  expect(listed).toEqual([
    {
      reference_id: "REQ-001",
      entity_kind: "requirement",
      repository: "acme/pay",
      commit: sha(1),
      file: "src/pay.ts",
      line: 12,
      kind: "impl",
      pinned_revision: 1,
      revision_now: 2,
    },
    {
      reference_id: "AC-001",
      entity_kind: "acceptance_criterion",
      repository: "acme/pay",
      commit: sha(1),
      file: "test/pay.test.ts",
      line: 7,
      kind: "test",
      pinned_revision: 1,
      revision_now: 2,
    },
  ]);
});

test("the epic filter follows requirement → story → epic; an unknown epic is refused", async () => {
  const inPayments = (await suspects({ epic_id: "EP-001" })).trace_citations;
  expect(inPayments.map((c) => [c.reference_id, c.line])).toEqual([
    ["REQ-001", 12],
    ["AC-001", 7],
  ]);
  expect((await suspects({ epic_id: "ep-2" })).trace_citations).toEqual([]);
  // A change to the story makes the doc citing it suspect, in its epic only.
  await write("update_user_story", { user_story_id: "US-001", description: "Paying" });
  expect((await suspects({ epic_id: "EP-001" })).trace_citations.map((c) => c.reference_id)).toEqual([
    "US-001",
    "REQ-001",
    "AC-001",
  ]);
  expect((await suspects({ epic_id: "EP-002" })).trace_citations).toEqual([]);
  const unknown = await callTool(t, "jsonrpc", "list_suspect_links", { epic_id: "EP-009" }, t.ownerToken);
  expect(JSON.stringify(unknown.body)).toMatch(/Epic not found: EP-009/);
});

test("the trace tools call exactly the same citations suspect", async () => {
  const listed = (await suspects()).trace_citations;
  const traces = await tool<{
    counts: { suspect: number };
    repositories: { citations: { line: number; suspect: boolean }[] }[];
  }>("get_requirement_traces", { requirement_id: "REQ-001" });
  const flagged = traces.repositories.flatMap((r) => r.citations.filter((c) => c.suspect).map((c) => c.line));
  const mine = listed.filter((c) => c.reference_id === "REQ-001").map((c) => c.line);
  expect(flagged).toEqual(mine);
  expect(traces.counts.suspect).toBe(mine.length);
  const summary = await tool<{ suspect: { citations: number; ids: string[] } }>("trace_summary", {});
  expect(summary.suspect.citations).toBe(listed.length);
  expect([...summary.suspect.ids].sort()).toEqual([...new Set(listed.map((c) => c.reference_id))].sort());
});

test("only the latest scan of each repository counts; a deleted entity's citations are orphans, not suspect", async () => {
  // A second repository citing REQ-001@1 adds one; a new scan of acme/pay without the stale line drops it.
  await pushTraces(
    t,
    snapshotBody({
      repository: "acme/mobile",
      commit: sha(2),
      citations: [{ id: "REQ-001", revision: 1, file: "app/pay.kt", line: 9 }],
    }),
  );
  await pushTraces(
    t,
    snapshotBody({
      repository: "acme/pay",
      commit: sha(3),
      citations: CITATIONS.filter((c) => c.line !== 12),
    }),
  );
  const listed = (await suspects()).trace_citations;
  expect(listed.map((c) => [c.repository, c.commit, c.reference_id, c.file])).toEqual([
    ["acme/mobile", sha(2), "REQ-001", "app/pay.kt"],
    ["acme/pay", sha(3), "US-001", "docs/pay.md"],
    ["acme/pay", sha(3), "AC-001", "test/pay.test.ts"],
  ]);
  await write("delete_acceptance_criteria", { acceptance_criteria_id: "AC-001" });
  expect((await suspects()).trace_citations.map((c) => c.reference_id)).toEqual(["REQ-001", "US-001"]);
  const summary = await tool<{ suspect: { citations: number }; orphans: { ids: string[] } }>(
    "trace_summary",
    {},
  );
  expect(summary.suspect.citations).toBe(2);
  expect(summary.orphans.ids).toContain("AC-001");
});

test("another workspace never sees these citations, though its own REQ-001 is at revision 2", async () => {
  expect((await suspects({}, other)).trace_citations).toEqual([]);
  expect((await suspects({ epic_id: "EP-001" }, other)).trace_citations).toEqual([]);
  // And ours are still there for us.
  expect((await suspects()).trace_citations).toHaveLength(2);
});
