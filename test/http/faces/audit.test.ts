/**
 * The audit trail (jsonrpc-api 4.5, issue item 7): one audit_events row per tools/call, resources/read and
 * prompts/get on either face, whatever the outcome; who, what, outcome, error code, request id, duration;
 * ids, never argument values or tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditEvent, listAuditEvents } from "../../../src/db/audit.repo.js";
import { auditFor } from "../../../src/http/faces-common.js";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { withFixtures } from "./face-fixtures.js";
import { callTool, mcp, type RpcAnswer, rpc } from "./http.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ registries: withFixtures });
});
afterAll(async () => t?.close());

async function rowsOf(answer: RpcAnswer): Promise<AuditEvent[]> {
  await auditFor({ database: t.database, logger: { log() {} } }).flush();
  const requestId = answer.headers.get("x-request-id") as string;
  return t.database.read((db) => listAuditEvents(db, { requestId }));
}

const SECRET_NOTE = "the launch codes are 0000";

describe.each(["jsonrpc", "mcp"] as const)("audit on %s", (face) => {
  const send = face === "jsonrpc" ? rpc : mcp;

  it("a successful tools/call writes one row with who, what, outcome, request id and duration", async () => {
    const answer = await callTool(t, face, "fixture_measure", { note: SECRET_NOTE, epic_id: "ep-7" });
    const rows = await rowsOf(answer);
    expect(rows).toHaveLength(1);
    const [row] = rows as [AuditEvent];
    expect(row).toMatchObject({
      workspace_id: t.workspaceId,
      user_id: expect.any(Number),
      token_id: expect.any(Number),
      channel: face,
      method: "tools/call",
      target: "fixture_measure",
      reference_id: "EP-007",
      outcome: "ok",
      error_code: null,
      request_id: answer.headers.get("x-request-id"),
    });
    expect(row.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(row)).not.toContain("launch codes");
    expect(JSON.stringify(row)).not.toContain(t.ownerToken);
  });

  it("a failed tools/call writes one row with its error code", async () => {
    const invalid = await callTool(t, face, "get_user_story_requirements", { user_story: "US-ABC" });
    expect(await rowsOf(invalid)).toEqual([
      expect.objectContaining({
        outcome: "error",
        error_code: "invalid_input",
        target: "get_user_story_requirements",
        reference_id: null,
      }),
    ]);
    const unknown = await callTool(t, face, "no_such_tool", {});
    expect(await rowsOf(unknown)).toEqual([
      expect.objectContaining({ outcome: "error", error_code: "unknown_tool", target: "no_such_tool" }),
    ]);
    const boom = await callTool(t, face, "fixture_explode", {});
    expect(await rowsOf(boom)).toEqual([
      expect.objectContaining({ outcome: "error", error_code: "internal" }),
    ]);
  });

  it("resources/read and prompts/get write a row each, also when nothing matches", async () => {
    const read = await send(t, "resources/read", { uri: "nothing://EP-001" });
    expect(await rowsOf(read)).toEqual([
      expect.objectContaining({
        method: "resources/read",
        target: "nothing://EP-001",
        outcome: "error",
        error_code: "not_found",
      }),
    ]);
    const prompt = await send(t, "prompts/get", { name: "no_such_prompt", arguments: {} });
    expect(await rowsOf(prompt)).toEqual([
      expect.objectContaining({
        method: "prompts/get",
        target: "no_such_prompt",
        outcome: "error",
        error_code: "unknown_prompt",
      }),
    ]);
  });

  it("listing and ping write nothing", async () => {
    expect(await rowsOf(await send(t, "tools/list"))).toEqual([]);
    expect(await rowsOf(await send(t, "ping"))).toEqual([]);
  });
});

describe("audit under load", () => {
  it("every one of many concurrent calls gets its row (group commit loses none)", async () => {
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        callTool(t, i % 2 ? "mcp" : "jsonrpc", "fixture_measure", { note: `n${i}` }),
      ),
    );
    await auditFor({ database: t.database, logger: { log() {} } }).flush();
    const ids = new Set(answers.map((a) => a.headers.get("x-request-id")));
    const rows = await t.database.read((db) =>
      listAuditEvents(db, { workspaceId: t.workspaceId, limit: 10_000 }),
    );
    const mine = rows.filter((r) => ids.has(r.request_id as string));
    expect(mine).toHaveLength(60);
  });
});
