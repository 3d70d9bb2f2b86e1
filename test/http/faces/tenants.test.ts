/**
 * Tenant isolation through both faces over the WHOLE hosted registry (issue item 6), generated from the
 * registry: with a token of another workspace, every tool, resource and prompt aimed at workspace A's
 * entities finds nothing, leaks nothing (A's marker never appears in any answer) and changes nothing (A's
 * rows, read straight from the database, are identical before and after). Reference ids count per
 * workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditFor, compiledFor } from "../../../src/http/faces-common.js";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { coveredTables, workspaceSnapshot } from "../../helpers/db-snapshot.js";
import { pushTraces, snapshotBody } from "../../helpers/traces.js";
import { idFor, outcomeOf, type Seed, sampleArgs, samplePromptArgs, sampleUri, seed } from "./exercise.js";
import { callTool, mcp, type RpcAnswer, rpc } from "./http.js";

const MARKER = "ALPHASECRET";

let t: TestApp;
let a: Seed;
let intruder: string;
let aType: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await seed(t, t.ownerToken, MARKER);
  aType = `${MARKER} Type`;
  const typed = await rpc(t, "tools/call", { name: "create_requirement_type", arguments: { name: aType } });
  expect(typed.status).toBe(200);
  // A's traces (the push route is no registry tool): marked, so a trace tool that leaked them would show it.
  const pushed = await pushTraces(
    t,
    snapshotBody({
      repository: `${MARKER}-repo`,
      branch: `${MARKER}-branch`,
      citations: [
        { id: a.req1, snippet: `${MARKER} impl` },
        { id: a.req2, kind: "test", test_name: `${MARKER} test` },
        { id: "REQ-9999", snippet: MARKER },
      ],
      commits: [{ sha: "abcdef1", ids: [a.req1], subject: `${MARKER} commit` }],
    }),
  );
  expect(pushed.status).toBe(201);
  // The most powerful role in the other workspace: isolation must not depend on a weak role.
  intruder = await t.createToken("mallory", "admin", "beta");
});
afterAll(async () => t?.close());

const compiled = () => compiledFor({ database: t.database, logger: { log() {} } });

function leaks(answer: RpcAnswer): boolean {
  return answer.text.includes(MARKER) || answer.text.includes(aType);
}

/** An argument naming one of A's entities (any of its reference ids, its baseline, its comment or its token). */
function namesAnEntityOfA(args: Record<string, unknown>): boolean {
  const names = new Set<unknown>([a.epic, a.story, a.req1, a.req2, a.ac, a.docset, a.baseline]);
  return Object.entries(args).some(
    ([k, v]) =>
      (idFor(k, a) !== undefined && v === idFor(k, a)) ||
      (typeof v === "string" && names.has(v)) ||
      (k === "comment_id" && v === a.comment) ||
      (k === "token_id" && v === a.token),
  );
}

describe("tenant isolation", () => {
  it("every tool, resource and prompt, on both faces, finds nothing of A, leaks nothing, changes nothing", async () => {
    const reg = compiled();
    const audit = auditFor({ database: t.database, logger: { log() {} } });
    await audit.flush(); // A's own audit rows of the seeding are part of "before"
    const before = await workspaceSnapshot(t.database.client, t.workspaceId);
    expect(coveredTables(before)).toEqual(expect.arrayContaining(["epics", "requirements", "user_stories"]));
    const problems: string[] = [];
    let exercised = 0;
    const send = (face: "jsonrpc" | "mcp") => (face === "jsonrpc" ? rpc : mcp);

    const checkTool = async (face: "jsonrpc" | "mcp", tool: (typeof reg.toolList)[number]) => {
      const args = sampleArgs(tool, a, `beta ${face}`);
      const answer = await callTool(t, face, tool.name, args, intruder);
      exercised++;
      if (leaks(answer)) problems.push(`${face} ${tool.name} leaked A's data: ${answer.text.slice(0, 200)}`);
      const outcome = outcomeOf(face, answer);
      const filterOnly = tool.name.startsWith("list_") || tool.name.startsWith("search_");
      if (namesAnEntityOfA(args) && !filterOnly) {
        // Aimed at A's entity, or at a parent of A's: not found in this workspace.
        if (outcome !== "not_found")
          problems.push(
            `${face} ${tool.name}: expected not found, got ${outcome}: ${answer.text.slice(0, 200)}`,
          );
        if (face === "jsonrpc" && outcome === "not_found" && !answer.body.error.data?.reference_id) {
          problems.push(`${face} ${tool.name}: -32002 without data.reference_id`);
        }
      } else if (outcome !== "ok" && !(filterOnly && outcome === "not_found")) {
        // A list filtered by A's id may say the filter's entity does not exist, or list nothing.
        problems.push(
          `${face} ${tool.name}: expected an (empty) success, got ${outcome}: ${answer.text.slice(0, 200)}`,
        );
      }
      if (outcome === "ok" && filterOnly) {
        // Seeded per-workspace types may be listed; entities (anything with a reference id) may not.
        const items = (Object.values(answer.body.result.structuredContent ?? {}).find(Array.isArray) ??
          []) as {
          reference_id?: string;
        }[];
        const entities = items.filter((i) => i.reference_id !== undefined);
        if (entities.length > 0)
          problems.push(`${face} ${tool.name}: listed ${entities.length} entities in an empty workspace`);
      }
    };

    // Phase 1, the other workspace empty: every read, update and delete; every resource and prompt.
    const creates = reg.toolList.filter((x) => x.name.startsWith("create_"));
    for (const face of ["jsonrpc", "mcp"] as const) {
      for (const tool of reg.toolList) if (!tool.name.startsWith("create_")) await checkTool(face, tool);

      for (const resource of reg.resources) {
        const hasVars = resource.uriTemplate.includes("{");
        const uri = hasVars ? sampleUri(resource.uriTemplate, a) : resource.uriTemplate;
        const answer = await send(face)(t, "resources/read", { uri }, intruder);
        exercised++;
        if (leaks(answer)) problems.push(`${face} resource ${uri} leaked A's data`);
        const code = answer.body?.error?.code;
        if (hasVars && code !== -32002)
          problems.push(`${face} resource ${uri}: expected -32002, got ${answer.text.slice(0, 200)}`);
        if (!hasVars && !answer.body?.result)
          problems.push(`${face} resource ${uri}: expected a result, got ${answer.text.slice(0, 200)}`);
      }
      const listed = await send(face)(t, "resources/list", {}, intruder);
      if (leaks(listed)) problems.push(`${face} resources/list leaked A's data`);

      for (const prompt of reg.prompts.values()) {
        const args = samplePromptArgs(prompt.arguments, a, prompt.name);
        const answer = await send(face)(t, "prompts/get", { name: prompt.name, arguments: args }, intruder);
        exercised++;
        if (leaks(answer)) problems.push(`${face} prompt ${prompt.name} leaked A's data`);
        if (answer.body?.error?.code !== -32002) {
          problems.push(`${face} prompt ${prompt.name}: expected -32002, got ${answer.text.slice(0, 200)}`);
        }
      }
    }
    // Phase 2: creates under A's parents (not found) and those that need no parent (the other workspace's
    // own); create_epic last, so no parent of the other workspace exists while the others run.
    const ordered = [...creates].sort(
      (x, y) => Number(x.name === "create_epic") - Number(y.name === "create_epic"),
    );
    for (const tool of ordered) for (const face of ["jsonrpc", "mcp"] as const) await checkTool(face, tool);

    expect(problems).toEqual([]);
    expect(exercised).toBe((reg.toolList.length + reg.resources.length + reg.prompts.size) * 2);
    await audit.flush(); // rows of the intruder's calls, were any of them misfiled under A
    expect(await workspaceSnapshot(t.database.client, t.workspaceId)).toEqual(before);
    // Positive control: the same calls with A's own token do reach A's data, so the checks above can fail.
    for (const face of ["jsonrpc", "mcp"] as const) {
      const own = await callTool(t, face, "search_global", { query: MARKER.toLowerCase() });
      expect(leaks(own), face).toBe(true);
      const read = await send(face)(t, "resources/read", { uri: `epic://${a.epic}` });
      expect(leaks(read), face).toBe(true);
      const traces = await callTool(t, face, "get_requirement_traces", { requirement_id: a.req1 });
      expect(leaks(traces), face).toBe(true);
    }
  });

  it("the trace push route: the other workspace's push of the same repository and commit is its own", async () => {
    const audit = auditFor({ database: t.database, logger: { log() {} } });
    await audit.flush(); // rows of earlier tests' reads land first, so "before" holds them
    const before = await workspaceSnapshot(t.database.client, t.workspaceId);
    const theirs = await pushTraces(
      t,
      snapshotBody({ repository: `${MARKER}-repo`, citations: [{ id: a.req1, kind: "test" }] }),
      intruder,
    );
    // Created (not "already stored"): A's snapshot of that commit is invisible to it; A's ids are orphans there.
    expect(theirs.status).toBe(201);
    expect(theirs.body.orphans).toEqual([a.req1]);
    expect(theirs.text).not.toContain(`${MARKER} impl`);
    await audit.flush();
    expect(await workspaceSnapshot(t.database.client, t.workspaceId)).toEqual(before);
    // A's coverage is unchanged by it: req1 is still implemented only.
    const own = await callTool(t, "jsonrpc", "get_requirement_traces", { requirement_id: a.req1 });
    expect(own.body.result.structuredContent.coverage).toBe("impl_only");
  });

  it("reference ids count per workspace: the other workspace's first epic is EP-001 too", async () => {
    const bob = await t.createToken("bob", "editor", "gamma");
    const created = await callTool(t, "jsonrpc", "create_epic", { title: "gamma's own" }, bob);
    expect(created.body.result.structuredContent.reference_id).toBe("EP-001");
    const second = await callTool(t, "mcp", "create_epic", { title: "gamma's second" }, bob);
    expect(second.body.result.structuredContent.reference_id).toBe("EP-002");
    expect(a.epic).toBe("EP-001");
    const mine = await callTool(t, "mcp", "get_epic", { epic_id: "EP-001" });
    expect(mine.body.result.structuredContent.title).toBe(`${MARKER} epic`);
  });
});
