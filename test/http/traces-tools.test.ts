/**
 * Push → tools round trip over the real app: what `POST /api/v1/traces` stored is what the trace tools,
 * get_requirement, epic_hierarchy and `requirement://` report, on both faces; and another workspace sees
 * none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { pushTraces, sha, snapshotBody } from "../helpers/traces.js";
import { type Seed, seed } from "./faces/exercise.js";
import { callTool, mcp, rpc } from "./faces/http.js";

let t: TestApp;
let s: Seed;
let req3: string;

async function tool(name: string, args: Record<string, unknown>, token?: string) {
  const answer = await callTool(t, "jsonrpc", name, args, token);
  if (!answer.body?.result) throw new Error(`${name}: ${answer.text}`);
  // The other face answers the same.
  const viaMcp = await callTool(t, "mcp", name, args, token);
  expect(viaMcp.body.result.structuredContent).toEqual(answer.body.result.structuredContent);
  return answer.body.result.structuredContent;
}

beforeAll(async () => {
  t = await createTestApp();
  s = await seed(t, t.ownerToken, "TRACE");
  const created = await rpc(t, "tools/call", {
    name: "create_requirement",
    arguments: { user_story_id: s.story, title: "third", type: "Functional", priority: 3, status: "Active" },
  });
  req3 = created.body.result.structuredContent.reference_id;
  // req1 moves to revision 2: a citation pinned to revision 1 is suspect.
  await rpc(t, "tools/call", {
    name: "update_requirement",
    arguments: { requirement_id: s.req1, title: "TRACE one v2" },
  });
});
afterAll(async () => t?.close());

describe("push → tools", () => {
  it("resolve_references tells found ids (kind, title, status, revision) from missing ones", async () => {
    const out = await tool("resolve_references", {
      ids: [s.req1, "req-2", s.ac, s.epic, "REQ-9999", s.req1],
    });
    expect(out.references).toEqual([
      { id: s.req1, found: true, kind: "requirement", title: "TRACE one v2", status: "Draft", revision: 2 },
      {
        id: "REQ-002",
        found: true,
        kind: "requirement",
        title: "TRACE requirement two",
        status: "Draft",
        revision: 1,
      },
      {
        id: s.ac,
        found: true,
        kind: "acceptance_criterion",
        title: expect.any(String),
        status: null,
        revision: 1,
      },
      { id: s.epic, found: true, kind: "epic", title: "TRACE epic", status: "Backlog", revision: 1 },
      { id: "REQ-9999", found: false },
    ]);
    const bad = await rpc(t, "tools/call", { name: "resolve_references", arguments: { ids: ["nope"] } });
    expect(bad.body.error.code).toBe(-32602);
  });

  it("before any push: every open requirement is uncovered, and the tools say nothing was pushed", async () => {
    const untraced = await tool("list_untraced_requirements", { missing: "any" });
    expect(untraced.items.map((i: { reference_id: string }) => i.reference_id)).toEqual([
      s.req1,
      s.req2,
      req3,
    ]);
    expect(untraced.repositories).toEqual([]);
    // Paging with a cursor, refused under other filters.
    const page1 = await tool("list_untraced_requirements", { missing: "any", limit: 2 });
    expect(page1.items).toHaveLength(2);
    const page2 = await tool("list_untraced_requirements", {
      missing: "any",
      limit: 2,
      cursor: page1.next_cursor,
    });
    expect(page2.items.map((i: { reference_id: string }) => i.reference_id)).toEqual([req3]);
    expect(page2.next_cursor).toBeUndefined();
    const foreign = await rpc(t, "tools/call", {
      name: "list_untraced_requirements",
      arguments: { missing: "impl", cursor: page1.next_cursor },
    });
    expect(foreign.body.error.code).toBe(-32602);
    const summary = await tool("trace_summary", {});
    expect(summary.counts).toEqual({ covered: 0, impl_only: 0, test_only: 0, uncovered: 3 });
    expect(summary.latest_push).toBeNull();
    expect((await tool("get_requirement", { requirement_id: s.req1 })).coverage).toBe("uncovered");
  });

  it("after pushes: traces, untraced lists, summary with change, and coverage everywhere", async () => {
    // Repository web: req1 implemented (pinned to old revision 1: suspect), req2 tested.
    const web1 = await pushTraces(
      t,
      snapshotBody({
        repository: "acme/web",
        commit: sha(1),
        citations: [
          { id: s.req1, revision: 1, file: "src/one.ts", line: 3 },
          { id: s.req2, kind: "test", file: "test/two.test.ts", test_name: "two works" },
          { id: "REQ-9999", file: "src/typo.ts" },
        ],
        commits: [{ sha: sha(1), ids: [s.req1], subject: "feat: one (REQ-001)" }],
      }),
    );
    expect(web1.status).toBe(201);
    expect(web1.body.orphans).toEqual(["REQ-9999"]);
    // Repository e2e tests req1: combined with web, req1 is covered.
    expect(
      (
        await pushTraces(
          t,
          snapshotBody({
            repository: "acme/e2e",
            commit: sha(2),
            citations: [{ id: s.req1, kind: "test", file: "e2e/one.spec.ts" }],
          }),
        )
      ).status,
    ).toBe(201);
    // Then web's next commit also implements req2 (covered now) and no longer has the typo.
    const web2 = await pushTraces(
      t,
      snapshotBody({
        repository: "acme/web",
        commit: sha(3),
        citations: [
          { id: s.req1, revision: 1, file: "src/one.ts", line: 3 },
          { id: s.req2, kind: "test", file: "test/two.test.ts", test_name: "two works" },
          { id: s.req2, file: "src/two.ts" },
          { id: s.req2, kind: "doc", file: "docs/two.md" },
        ],
      }),
    );
    expect(web2.status).toBe(201);

    const traces = await tool("get_requirement_traces", { requirement_id: s.req1 });
    expect(traces).toMatchObject({
      requirement_id: s.req1,
      revision: 2,
      coverage: "covered",
      counts: { impl: 1, test: 1, doc: 0, suspect: 1 },
    });
    expect(traces.repositories.map((r: { repository: string }) => r.repository)).toEqual([
      "acme/e2e",
      "acme/web",
    ]);
    const web = traces.repositories[1];
    expect(web).toMatchObject({ commit: sha(3), branch: "main", citations_not_shown: 0, commits: [] });
    expect(web.citations).toEqual([
      {
        file: "src/one.ts",
        line: 3,
        column: 5,
        kind: "impl",
        test_name: null,
        snippet: `// ${s.req1}`,
        revision: 1,
        suspect: true,
      },
    ]);
    const onlyE2e = await tool("get_requirement_traces", { requirement_id: s.req1, repository: "acme/e2e" });
    expect(onlyE2e.coverage).toBe("test_only");
    const unknownRepo = await rpc(t, "tools/call", {
      name: "get_requirement_traces",
      arguments: { requirement_id: s.req1, repository: "acme/none" },
    });
    expect(unknownRepo.body.error.code).toBe(-32002);

    expect(
      (await tool("list_untraced_requirements", { missing: "any" })).items.map(
        (i: { reference_id: string }) => i.reference_id,
      ),
    ).toEqual([req3]);
    expect((await tool("list_untraced_requirements", { missing: "impl", epic_id: s.epic })).items).toEqual([
      {
        reference_id: req3,
        user_story_id: s.story,
        title: "third",
        status: "Active",
        priority: 3,
        coverage: "uncovered",
        impl: 0,
        test: 0,
      },
    ]);
    const draftOnly = await tool("list_untraced_requirements", { missing: "any", status: "Draft" });
    expect(draftOnly.items).toEqual([]);

    const summary = await tool("trace_summary", {});
    expect(summary.requirements).toBe(3);
    expect(summary.counts).toEqual({ covered: 2, impl_only: 0, test_only: 0, uncovered: 1 });
    expect(summary.latest_push).toEqual({ repository: "acme/web", commit: sha(3), previous_commit: sha(1) });
    expect(summary.change).toEqual({ covered: 1, impl_only: 0, test_only: -1, uncovered: 0 });
    expect(summary.changed).toEqual([{ reference_id: s.req2, from: "test_only", to: "covered" }]);
    expect(summary.orphans).toEqual({ citations: 0, ids: [] });
    expect(summary.suspect).toEqual({ citations: 1, ids: [s.req1] });
    const webOnly = await tool("trace_summary", { repository: "acme/web", epic_id: s.epic });
    expect(webOnly.counts).toEqual({ covered: 1, impl_only: 1, test_only: 0, uncovered: 1 });

    expect((await tool("get_requirement", { requirement_id: s.req2 })).coverage).toBe("covered");
    const tree = await tool("epic_hierarchy", { epic_id: s.epic });
    const coverage = Object.fromEntries(
      tree.user_stories[0].requirements.map((r: { reference_id: string; coverage: string }) => [
        r.reference_id,
        r.coverage,
      ]),
    );
    expect(coverage).toEqual({ [s.req1]: "covered", [s.req2]: "covered", [req3]: "uncovered" });
    for (const face of [rpc, mcp]) {
      const resource = await face(t, "resources/read", { uri: `requirement://${req3}` });
      expect(resource.body.result.contents[0].text).toContain("- Coverage: uncovered");
    }
  });

  it("a viewer reads traces; another workspace sees none of them", async () => {
    const viewer = await t.createToken("vic", "viewer");
    expect((await tool("trace_summary", {}, viewer)).repositories).toHaveLength(2);

    const other = await t.createToken("otto", "admin", "elsewhere");
    const summary = await tool("trace_summary", {}, other);
    expect(summary.repositories).toEqual([]);
    expect(summary.latest_push).toBeNull();
    const repo = await rpc(
      t,
      "tools/call",
      { name: "trace_summary", arguments: { repository: "acme/web" } },
      other,
    );
    expect(repo.body.error.code).toBe(-32002);
    const traces = await rpc(
      t,
      "tools/call",
      { name: "get_requirement_traces", arguments: { requirement_id: s.req1 } },
      other,
    );
    expect(traces.body.error.code).toBe(-32002);
    expect((await tool("resolve_references", { ids: [s.req1] }, other)).references).toEqual([
      { id: s.req1, found: false },
    ]);

    // The other workspace pushes the same repository and commit: its own snapshot, ours untouched.
    const theirs = await pushTraces(
      t,
      snapshotBody({ repository: "acme/web", commit: sha(3), citations: [{ id: s.req1 }] }),
      other,
    );
    expect(theirs.status).toBe(201);
    expect(theirs.body.orphans).toEqual([s.req1]);
    const ours = await tool("get_requirement_traces", { requirement_id: s.req1, repository: "acme/web" });
    expect(ours.repositories[0].snapshot_id).not.toBe(theirs.body.snapshot_id);
    expect(ours.coverage).toBe("impl_only");
    // Their epic with the same reference id shows their coverage (none), not ours.
    const epic = await rpc(t, "tools/call", { name: "create_epic", arguments: { title: "theirs" } }, other);
    expect(epic.body.result.structuredContent.reference_id).toBe(s.epic);
    expect((await tool("trace_summary", { epic_id: s.epic }, other)).counts.covered).toBe(0);
  });
});
