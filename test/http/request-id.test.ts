/**
 * X-Request-Id (hardening issue, item 2): a client's id is kept only in a safe short form (1-64 of
 * `[A-Za-z0-9._-]`, at least 8, nothing token-shaped); anything else is replaced by a generated id, so a
 * token sent there by mistake never reaches the response, the logs or `audit_events.request_id`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditFor } from "../../src/http/faces-common.js";
import { acceptableRequestId } from "../../src/http/request-id.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function requestIdsInAudit(): Promise<string[]> {
  await auditFor({ database: t.database, logger: { log() {} } }).flush();
  const rows = await t.database.client.execute("SELECT request_id FROM audit_events");
  return rows.rows.map((r) => String(r.request_id));
}

function addMember(username: string, requestId: string) {
  return t.app.request("/api/v1/admin/members", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${t.ownerToken}`,
      "Content-Type": "application/json",
      "X-Request-Id": requestId,
    },
    body: JSON.stringify({ username, role: "viewer" }),
  });
}

function callTool(requestId: string) {
  return t.app.request("/api/v1/mcp", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${t.ownerToken}`,
      "Content-Type": "application/json",
      "X-Request-Id": requestId,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "create_epic", arguments: { title: `epic ${requestId.length}` } },
    }),
  });
}

describe("X-Request-Id", () => {
  it("a token sent as the request id is replaced: never echoed, logged or stored in audit_events", async () => {
    const viaAdmin = await addMember("rid-user", t.ownerToken);
    expect(viaAdmin.status).toBe(201);
    expect(viaAdmin.headers.get("x-request-id")).toMatch(UUID);
    const viaRpc = await callTool(t.ownerToken);
    expect(viaRpc.status).toBe(200);
    expect(viaRpc.headers.get("x-request-id")).toMatch(UUID);

    const stored = await requestIdsInAudit();
    expect(stored).toContain(viaAdmin.headers.get("x-request-id"));
    expect(stored).toContain(viaRpc.headers.get("x-request-id"));
    const body = t.ownerToken.slice(4);
    expect(stored.join("\n")).not.toContain(body);
    expect(t.logs.join("\n")).not.toContain(body);
  });

  it("a token without its prefix, or an id longer than 64 characters, is replaced too", async () => {
    for (const sent of [t.ownerToken.slice(4), "a".repeat(65), "rqx_short-but-token-shaped"]) {
      const res = await addMember("rid-user", sent);
      expect(res.headers.get("x-request-id"), sent).toMatch(UUID);
    }
    const stored = await requestIdsInAudit();
    expect(stored.join("\n")).not.toContain(t.ownerToken.slice(4));
    expect(stored).not.toContain("a".repeat(65));
  });

  it("a short, plain id is kept so requests correlate across proxies", async () => {
    const nginx = "5d41402abc4b2a76b9719d911017c592"; // nginx $request_id: 32 hex digits
    for (const sent of [nginx, "3f2c1d9e-7b6a-4c5d-9e8f-0a1b2c3d4e5f", "trace.42_a-b", "x".repeat(64)]) {
      const res = await addMember("rid-user", sent);
      expect(res.headers.get("x-request-id")).toBe(sent);
    }
    expect(await requestIdsInAudit()).toContain(nginx);
  });

  it("acceptableRequestId: the rule itself", () => {
    expect(acceptableRequestId("abc12345")).toBe(true);
    expect(acceptableRequestId("short")).toBe(false);
    expect(acceptableRequestId("has space 123")).toBe(false);
    expect(acceptableRequestId("colon:12345")).toBe(false);
    expect(acceptableRequestId(`rqx_${"A".repeat(10)}`)).toBe(false);
    expect(acceptableRequestId(`RQX_${"a".repeat(10)}`)).toBe(false);
    // 32+ letters and digits mixing upper and lower case look like a token body (base62), even without rqx_.
    expect(acceptableRequestId(`pre-${"aB3".repeat(11)}`)).toBe(false);
    expect(acceptableRequestId("ABCDEF0123456789ABCDEF0123456789")).toBe(true);
  });
});
