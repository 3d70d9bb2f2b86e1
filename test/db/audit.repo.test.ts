/**
 * recordAudits over a real migrated libSQL database (`:memory:`): a batch binds the columns its rows share
 * and reads only the others out of each row's JSON (json-rows.ts), so every mix of shared and varying
 * columns must store exactly what each row said, in order, with the database's clock where a row names no
 * time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditEventInput, listAuditEvents, recordAudits } from "../../src/db/audit.repo.js";
import { bootstrap } from "../../src/db/bootstrap.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrateDatabase } from "../../src/db/migrate.js";

let database: Database;
let who: { workspaceId: number; userId: number; tokenId: number };

beforeAll(async () => {
  database = await openDatabase({ url: ":memory:" });
  await migrateDatabase(database);
  const boot = await bootstrap(database);
  if (!boot.created) throw new Error("not bootstrapped");
  const [row] = await database.read((db) => listAuditEvents(db, { limit: 1 }));
  if (!row?.workspace_id || !row.user_id || !row.token_id) throw new Error("no bootstrap row");
  who = { workspaceId: row.workspace_id, userId: row.user_id, tokenId: row.token_id };
});

afterAll(async () => {
  await database.close();
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function stored(requestIds: string[]) {
  const rows = await database.read((db) => listAuditEvents(db, { limit: 1000 }));
  return rows.filter((r) => r.request_id !== null && requestIds.includes(r.request_id)).reverse();
}

function event(requestId: string, over: Partial<AuditEventInput> = {}): AuditEventInput {
  return {
    ...who,
    channel: "jsonrpc",
    method: "tools/call",
    target: "get_epic",
    referenceId: "EP-001",
    outcome: "ok",
    requestId,
    durationMs: 1,
    ...over,
  };
}

describe("recordAudits", () => {
  it("stores a batch whose rows share all but the request id, in order, with the database's time", async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `shared-${i}`);
    await database.write((tx) =>
      recordAudits(
        tx,
        ids.map((id) => event(id)),
      ),
    );
    const rows = await stored(ids);
    expect(rows.map((r) => r.request_id)).toEqual(ids);
    for (const r of rows) {
      expect(r).toMatchObject({
        workspace_id: who.workspaceId,
        user_id: who.userId,
        token_id: who.tokenId,
        channel: "jsonrpc",
        method: "tools/call",
        target: "get_epic",
        reference_id: "EP-001",
        outcome: "ok",
        error_code: null,
        duration_ms: 1,
      });
      expect(r.created_at).toMatch(ISO);
    }
    // Ids follow the queue's order.
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((x, y) => x - y));
  });

  it("stores every column as its own row said when each one varies, nulls and given times included", async () => {
    const given = "2026-01-02T03:04:05.678Z";
    const batch: AuditEventInput[] = [
      event("mixed-0", { createdAt: given, durationMs: 2.6, errorCode: null }),
      event("mixed-1", {
        workspaceId: null,
        userId: null,
        tokenId: null,
        channel: "mcp",
        method: "resources/read",
        target: "epic://EP-002",
        referenceId: null,
        outcome: "error",
        errorCode: "not_found",
        durationMs: null,
      }),
      event("mixed-2", { target: null, referenceId: "REQ-010", durationMs: 0 }),
      event("mixed-3", { channel: "web", method: "prompts/get", target: "review", errorCode: "forbidden" }),
    ];
    await database.write((tx) => recordAudits(tx, batch));
    const rows = await stored(batch.map((e) => e.requestId as string));
    expect(rows.map((r) => r.request_id)).toEqual(["mixed-0", "mixed-1", "mixed-2", "mixed-3"]);
    expect(rows[0]).toMatchObject({
      created_at: given,
      duration_ms: 3,
      error_code: null,
      channel: "jsonrpc",
    });
    expect(rows[1]).toMatchObject({
      workspace_id: null,
      user_id: null,
      token_id: null,
      channel: "mcp",
      method: "resources/read",
      target: "epic://EP-002",
      reference_id: null,
      outcome: "error",
      error_code: "not_found",
      duration_ms: null,
    });
    expect(rows[2]).toMatchObject({ target: null, reference_id: "REQ-010", duration_ms: 0, outcome: "ok" });
    expect(rows[3]).toMatchObject({ channel: "web", method: "prompts/get", target: "review" });
    for (const r of rows.slice(1)) {
      expect(r.created_at).toMatch(ISO);
      expect(r.created_at).not.toBe(given);
    }
  });

  it("keeps a time every row gives, and one row alone", async () => {
    const given = "2025-12-31T23:59:59.999Z";
    await database.write((tx) =>
      recordAudits(tx, [event("timed-0", { createdAt: given }), event("timed-1", { createdAt: given })]),
    );
    await database.write((tx) => recordAudits(tx, [event("single-0", { durationMs: 7 })]));
    const rows = await stored(["timed-0", "timed-1", "single-0"]);
    expect(rows.map((r) => [r.request_id, r.created_at === given, r.duration_ms])).toEqual([
      ["timed-0", true, 1],
      ["timed-1", true, 1],
      ["single-0", false, 7],
    ]);
  });
});
