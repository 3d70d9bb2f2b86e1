/**
 * Issue item 7: the audit row of a write commits in the write's own transaction, so no acknowledged write
 * can lack its row (a crash used to lose the rows still queued). The row and the write commit or roll back
 * together; a failed write and a read are still audited once, through the batched queue.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditEvent, listAuditEvents } from "../../../src/db/audit.repo.js";
import { auditFor } from "../../../src/http/faces-common.js";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { callTool, type RpcAnswer } from "./http.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

function requestRows(answer: RpcAnswer): Promise<AuditEvent[]> {
  const requestId = answer.headers.get("x-request-id") as string;
  return t.database.read((db) => listAuditEvents(db, { requestId }));
}

async function epicsTitled(title: string): Promise<number> {
  const rs = await t.database.client.execute({
    sql: "SELECT count(*) AS n FROM epics WHERE title = ?",
    args: [title],
  });
  return Number(rs.rows[0]?.n);
}

function succeeded(answer: RpcAnswer): boolean {
  return answer.status === 200 && answer.body?.result !== undefined && answer.body.result.isError !== true;
}

describe.each(["jsonrpc", "mcp"] as const)("write audit on %s", (face) => {
  it("the row of a successful write is committed with it: present when the answer arrives, no flush", async () => {
    const answer = await callTool(t, face, "create_epic", { title: `atomic ok ${face}` });
    expect(succeeded(answer), answer.text).toBe(true);
    const reference = answer.body.result.structuredContent.reference_id as string;
    // No flush, no wait: the row was part of the write's commit.
    expect(await requestRows(answer)).toEqual([
      expect.objectContaining({
        channel: face,
        method: "tools/call",
        target: "create_epic",
        reference_id: reference,
        outcome: "ok",
        error_code: null,
      }),
    ]);
    // And the queue adds no second row for the same call.
    await auditFor({ database: t.database, logger: { log() {} } }).flush();
    expect(await requestRows(answer)).toHaveLength(1);
  });

  it("when the audit row cannot be written, the write rolls back: nothing is acknowledged or stored", async () => {
    const title = `atomic refused ${face}`;
    await t.database.client.execute(
      `CREATE TRIGGER refuse_ok_audit BEFORE INSERT ON audit_events
       WHEN NEW.target = 'create_epic' AND NEW.outcome = 'ok'
       BEGIN SELECT RAISE(ABORT, 'audit refused by test'); END`,
    );
    try {
      const answer = await callTool(t, face, "create_epic", { title });
      expect(succeeded(answer), answer.text).toBe(false);
      expect(await epicsTitled(title)).toBe(0);
      // The failure itself is still audited, once, through the queue.
      await auditFor({ database: t.database, logger: { log() {} } }).flush();
      expect(await requestRows(answer)).toEqual([
        expect.objectContaining({ target: "create_epic", outcome: "error", error_code: "internal" }),
      ]);
    } finally {
      await t.database.client.execute("DROP TRIGGER refuse_ok_audit");
    }
  });

  it("a write that fails (rolled back) leaves no entity and exactly one error row", async () => {
    const title = `atomic dup ${face}`;
    expect(succeeded(await callTool(t, face, "create_epic", { title }))).toBe(true);
    const dup = await callTool(t, face, "create_epic", { title });
    expect(succeeded(dup)).toBe(false);
    expect(await epicsTitled(title)).toBe(1);
    await auditFor({ database: t.database, logger: { log() {} } }).flush();
    expect(await requestRows(dup)).toEqual([
      expect.objectContaining({ target: "create_epic", outcome: "error", error_code: "conflict" }),
    ]);
  });

  it("a read is audited once through the queue", async () => {
    const created = await callTool(t, face, "create_epic", { title: `atomic read ${face}` });
    const reference = created.body.result.structuredContent.reference_id as string;
    const read = await callTool(t, face, "get_epic", { epic_id: reference });
    expect(succeeded(read)).toBe(true);
    await auditFor({ database: t.database, logger: { log() {} } }).flush();
    expect(await requestRows(read)).toEqual([
      expect.objectContaining({ target: "get_epic", outcome: "ok", reference_id: reference }),
    ]);
  });
});
