/**
 * `POST /api/v1/traces` over the real app and database: who may push (401/403), bad snapshots (400 naming
 * the field, nothing stored), the body cap (413; larger than the general 1 MiB), idempotency per
 * repository + commit, history pruned to 50, atomicity of a failing push, orphans never resolved in another
 * workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAuditEvents } from "../../src/db/audit.repo.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { pushTraces, sha, snapshotBody, traceRowCounts } from "../helpers/traces.js";
import { seed } from "./faces/exercise.js";

let t: TestApp;
let editor: string;
let viewer: string;
let req1: string;
let req2: string;

beforeAll(async () => {
  t = await createTestApp();
  editor = await t.createToken("eddie", "editor");
  viewer = await t.createToken("vera", "viewer");
  const s = await seed(t, t.ownerToken, "push");
  req1 = s.req1;
  req2 = s.req2;
});
afterAll(async () => t?.close());

describe("POST /api/v1/traces: access", () => {
  it("no token → 401 with WWW-Authenticate; unknown token → 401; nothing stored", async () => {
    const before = await traceRowCounts(t);
    const none = await pushTraces(t, snapshotBody(), null);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect(none.body.error.code).toBe("unauthorized");
    const bad = await pushTraces(t, snapshotBody(), `rqx_${"x".repeat(40)}`);
    expect(bad.status).toBe(401);
    expect(await traceRowCounts(t)).toEqual(before);
  });

  it("viewer → 403 naming the editor role, before the body is read; nothing stored", async () => {
    const before = await traceRowCounts(t);
    const res = await pushTraces(t, snapshotBody({ citations: [{ id: req1 }] }), viewer);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("forbidden");
    expect(res.body.error.message).toContain("editor role");
    // Even an invalid body: the role decides first.
    expect((await pushTraces(t, "{not json", viewer)).status).toBe(403);
    expect(await traceRowCounts(t)).toEqual(before);
  });

  it("editor → 201 with the contract's answer, and an audit row of the push", async () => {
    const res = await pushTraces(
      t,
      snapshotBody({
        repository: "acme/access",
        citations: [{ id: req1 }, { id: req2, kind: "test" }, { id: "REQ-9999" }],
        commits: [{ sha: sha(1), ids: [req1, "AC-777"], subject: "feat: thing" }],
      }),
      editor,
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      snapshot_id: expect.any(Number),
      repository: "acme/access",
      commit: "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0",
      created: true,
      replaced: false,
      citations: 3,
      orphans: ["AC-777", "REQ-9999"],
    });
    const audit = await t.database.read((db) => listAuditEvents(db, { workspaceId: t.workspaceId }));
    expect(audit.some((e) => e.method === "traces.push" && e.target?.startsWith("acme/access@"))).toBe(true);
  });
});

describe("POST /api/v1/traces: bad snapshots → 400 naming the field, nothing stored", () => {
  const cases: [string, unknown, string][] = [
    [
      "a bad line",
      snapshotBody({ citations: [{ id: "REQ-001" }, { id: "REQ-001", line: 0 }] }),
      "citations.1.line",
    ],
    ["an id of no hosted form", snapshotBody({ citations: [{ id: "FOO-1" }] }), "citations.0.id"],
    [
      "a bad kind",
      {
        ...snapshotBody(),
        citations: [{ ...snapshotBody({ citations: [{ id: "REQ-1" }] }).citations[0], kind: "bench" }],
      },
      "citations.0.kind",
    ],
    ["a commit that is not hex", { ...snapshotBody(), commit: "not-a-sha" }, "commit"],
    ["a repository too long", { ...snapshotBody(), repository: "r".repeat(201) }, "repository"],
    ["an unknown schema", { ...snapshotBody(), schema: 2 }, "schema"],
    ["a missing scanned_at", { ...snapshotBody(), scanned_at: undefined }, "scanned_at"],
    ["an unknown field", { ...snapshotBody(), extra: true }, "extra"],
    [
      "a snippet over 200 chars",
      snapshotBody({ citations: [{ id: "REQ-1", snippet: "x".repeat(201) }] }),
      "citations.0.snippet",
    ],
    [
      "a bad commit id in commits",
      snapshotBody({ commits: [{ sha: "zz", ids: [], subject: "" }] }),
      "commits.0.sha",
    ],
  ];
  const one = snapshotBody({ citations: [{ id: "REQ-1" }] }).citations[0];
  cases.push(
    [
      "an unknown citation field",
      { ...snapshotBody(), citations: [{ ...one, colour: "red" }] },
      "citations.0.colour",
    ],
    ["a citation that is no object", { ...snapshotBody(), citations: [one, 42] }, "citations.1"],
    ["a revision of 0", { ...snapshotBody(), citations: [{ ...one, revision: 0 }] }, "citations.0.revision"],
    [
      "a missing column",
      { ...snapshotBody(), citations: [{ ...one, column: undefined }] },
      "citations.0.column",
    ],
    [
      "an empty test name",
      { ...snapshotBody(), citations: [{ ...one, test_name: "" }] },
      "citations.0.test_name",
    ],
    ["an empty file", { ...snapshotBody(), citations: [{ ...one, file: "" }] }, "citations.0.file"],
    ["citations not a list", { ...snapshotBody(), citations: {} }, "citations"],
    [
      "a bad id in commits",
      snapshotBody({ commits: [{ sha: "abcdef1", ids: ["X-1"], subject: "" }] }),
      "commits.0.ids.0",
    ],
  );
  it.each(cases)("%s", async (_what, body, field) => {
    const before = await traceRowCounts(t);
    const res = await pushTraces(t, body, editor);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_input");
    expect(res.body.error.field).toBe(field);
    expect(res.body.error.errors[0].field).toBe(field);
    expect(res.body.error.message).toContain(field);
    expect(await traceRowCounts(t)).toEqual(before);
  });

  it("not JSON, empty, or not sent as JSON → 400 naming the body or content type", async () => {
    const notJson = await pushTraces(t, "{nope", editor);
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatchObject({ code: "invalid_input", field: "body" });
    expect((await pushTraces(t, "", editor)).body.error.errors[0].field).toBe("body");
    const text = await pushTraces(t, JSON.stringify(snapshotBody()), editor, {
      "content-type": "text/plain",
    });
    expect(text.status).toBe(400);
    expect(text.body.error.errors[0].field).toBe("content-type");
  });

  it("lists at most 20 field errors for a push with thousands of bad citations", async () => {
    const body = snapshotBody({ citations: Array.from({ length: 5000 }, () => ({ id: "REQ-1", line: -1 })) });
    const res = await pushTraces(t, body, editor);
    expect(res.status).toBe(400);
    expect(res.body.error.errors).toHaveLength(20);
    expect(res.body.error.message).toContain("more");
  });
});

describe("POST /api/v1/traces: size", () => {
  it("accepts a push above the general 1 MiB cap", async () => {
    const citations = Array.from({ length: 12_000 }, (_, i) => ({
      id: req1,
      line: i + 1,
      snippet: "y".repeat(80),
    }));
    const body = JSON.stringify(snapshotBody({ repository: "acme/big", citations }));
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await pushTraces(t, body, editor);
    expect(res.status).toBe(201);
    expect(res.body.citations).toBe(12_000);
  });

  it("refuses a push over its own cap with 413, declared or streamed", async () => {
    const small = await createTestApp({ maxTraceBodyBytes: 2048 });
    try {
      const body = JSON.stringify(
        snapshotBody({ citations: Array.from({ length: 50 }, () => ({ id: "REQ-1" })) }),
      );
      expect(body.length).toBeGreaterThan(2048);
      const declared = await pushTraces(small, body);
      expect(declared.status).toBe(413);
      expect(declared.body.error.code).toBe("payload_too_large");
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(body));
          c.close();
        },
      });
      const streamed = await small.app.request("/api/v1/traces", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${small.ownerToken}` },
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(await traceRowCounts(small)).toEqual({
        trace_snapshots: 0,
        trace_citations: 0,
        trace_commits: 0,
      });
      // The general cap of other routes is unchanged.
      const rpc = await small.app.request("/api/v1/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) },
        body: "x".repeat(2 * 1024 * 1024),
      });
      expect(rpc.status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

describe("POST /api/v1/traces: idempotent per repository + commit", () => {
  it("the same push again → 200, created false, same snapshot, no new rows", async () => {
    const body = snapshotBody({
      repository: "acme/idem",
      citations: [{ id: req1 }, { id: req2, kind: "test" }],
    });
    const first = await pushTraces(t, body, editor);
    expect(first.status).toBe(201);
    const counts = await traceRowCounts(t);
    const again = await pushTraces(t, { ...body, scanned_at: "2026-11-25T11:00:00Z" }, editor);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      snapshot_id: first.body.snapshot_id,
      created: false,
      replaced: false,
    });
    expect(await traceRowCounts(t)).toEqual(counts);
  });

  it("other content for the same commit → 200, replaced in place (same id), old citations gone", async () => {
    const body = snapshotBody({
      repository: "acme/replace",
      citations: [{ id: req1 }, { id: req1, line: 20 }],
    });
    const first = await pushTraces(t, body, editor);
    const second = await pushTraces(
      t,
      { ...body, citations: snapshotBody({ citations: [{ id: req2 }] }).citations },
      editor,
    );
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      snapshot_id: first.body.snapshot_id,
      created: false,
      replaced: true,
      citations: 1,
    });
    const rs = await t.database.client.execute({
      sql: "SELECT reference_id FROM trace_citations WHERE snapshot_id = ?",
      args: [first.body.snapshot_id],
    });
    expect(rs.rows.map((r) => r.reference_id)).toEqual([req2]);
  });

  it("keeps the newest 50 snapshots of a repository; older ones go with their citations and commits", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 53; i++) {
      const res = await pushTraces(
        t,
        snapshotBody({
          repository: "acme/history",
          commit: sha(1000 + i),
          citations: [{ id: req1 }],
          commits: [{ sha: sha(1000 + i), ids: [req1], subject: `c${i}` }],
        }),
        editor,
      );
      expect(res.status).toBe(201);
      ids.push(res.body.snapshot_id);
    }
    const kept = await t.database.client.execute(
      "SELECT id FROM trace_snapshots WHERE repository = 'acme/history' ORDER BY id",
    );
    expect(kept.rows.map((r) => Number(r.id))).toEqual(ids.slice(3));
    for (const table of ["trace_citations", "trace_commits"]) {
      const gone = await t.database.client.execute({
        sql: `SELECT count(*) AS n FROM ${table} WHERE snapshot_id IN (?, ?, ?)`,
        args: ids.slice(0, 3),
      });
      expect(Number(gone.rows[0]?.n), table).toBe(0);
    }
  });
});

describe("POST /api/v1/traces: atomic", () => {
  it("a push that fails after its citations were inserted leaves nothing behind", async () => {
    // A real constraint failure late in the transaction (after snapshot and citations): commits are last.
    await t.database.client.execute(
      "CREATE TRIGGER fail_trace_commit BEFORE INSERT ON trace_commits WHEN NEW.subject = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END",
    );
    try {
      const before = await traceRowCounts(t);
      const res = await pushTraces(
        t,
        snapshotBody({
          repository: "acme/atomic",
          citations: Array.from({ length: 25_000 }, (_, i) => ({ id: req1, line: i + 1 })),
          commits: [{ sha: sha(7), ids: [req1], subject: "boom" }],
        }),
        editor,
      );
      expect(res.status).toBe(500);
      expect(res.body.error.message).not.toMatch(/boom|INSERT|trace_/);
      expect(await traceRowCounts(t)).toEqual(before);
    } finally {
      await t.database.client.execute("DROP TRIGGER fail_trace_commit");
    }
  });
});

describe("POST /api/v1/traces: orphans stay in their workspace", () => {
  it("an id that exists only in another workspace is an orphan here, stored without an entity", async () => {
    const other = await t.createToken("olga", "editor", "other-ws");
    const res = await pushTraces(
      t,
      snapshotBody({ repository: "other/repo", citations: [{ id: req1 }, { id: "EP-001", kind: "doc" }] }),
      other,
    );
    expect(res.status).toBe(201);
    expect(res.body.orphans).toEqual(["EP-001", req1]);
    const rs = await t.database.client.execute({
      sql: "SELECT entity_id, workspace_id FROM trace_citations WHERE snapshot_id = ?",
      args: [res.body.snapshot_id],
    });
    expect(rs.rows.every((r) => r.entity_id === null && Number(r.workspace_id) !== t.workspaceId)).toBe(true);
  });
});
