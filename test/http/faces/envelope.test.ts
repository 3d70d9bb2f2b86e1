/**
 * The envelope of both faces through the real app (auth, request id, edge checks) over a real migrated
 * database: every row of DESIGN's error table that does not need domain data, and the transport rules of
 * /mcp (405s, protocol version, JSON vs SSE).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { MCP_ACCEPT, parseMcpBody } from "../../helpers/hosted.js";
import { SECRET_DETAIL, withFixtures } from "./face-fixtures.js";
import { callTool, mcp, rpc, rpcRaw } from "./http.js";

/** The 401 challenge of the MCP faces: Bearer, and where the OAuth metadata is (RFC 9728). */
const MCP_CHALLENGE =
  /^Bearer realm="reqlix", resource_metadata="https?:\/\/[^/"]+\/\.well-known\/oauth-protected-resource\/mcp"$/;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ registries: withFixtures });
});
afterAll(async () => t?.close());

function logLines(): Record<string, unknown>[] {
  return t.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("POST /api/v1/mcp envelope", () => {
  it("a body that is not JSON → 400, -32700, with X-Request-Id", async () => {
    const a = await rpcRaw(t, "{oops");
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    expect(a.headers.get("x-request-id")).toMatch(/.{8,}/);
  });

  it("not a JSON-RPC 2.0 request → 400, -32600", async () => {
    for (const body of ['{"id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":1}', '"ping"', "[]"]) {
      const a = await rpcRaw(t, body);
      expect(a.status, body).toBe(400);
      expect(a.body.error.code, body).toBe(-32600);
    }
  });

  it("a batch is refused with -32600 saying to send one request per call", async () => {
    const a = await rpcRaw(t, JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]));
    expect(a.status).toBe(400);
    expect(a.body.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining("batches are not supported"),
    });
  });

  it("a notification → 202 with no body", async () => {
    const a = await rpcRaw(t, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(a.status).toBe(202);
    expect(a.text).toBe("");
  });

  it("no token, a malformed one, or an unknown one → 401, -32001, WWW-Authenticate", async () => {
    const unknown = `rqx_${"A".repeat(43)}`;
    for (const token of [null, "nope", unknown]) {
      const a = await rpc(t, "ping", undefined, token);
      expect(a.status).toBe(401);
      expect(a.headers.get("www-authenticate")).toMatch(MCP_CHALLENGE);
      expect(a.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32001 } });
      expect(a.text).not.toContain(unknown);
    }
  });

  it("GET → 405 naming POST", async () => {
    const res = await t.app.request("/api/v1/mcp", { headers: { authorization: `Bearer ${t.ownerToken}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("initialize needs no handshake before other methods, and carries the instructions", async () => {
    const init = await rpc(t, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "x", version: "1" },
    });
    expect(init.body.result).toMatchObject({
      protocolVersion: "2025-06-18",
      serverInfo: { name: "reqlix", version: "0.0.0-test" },
    });
    const list = await rpc(t, "tools/list");
    expect(list.status).toBe(200);
    expect(list.body.result.tools.map((x: { name: string }) => x.name)).toContain(
      "get_user_story_requirements",
    );
  });

  it("an unknown method → -32601", async () => {
    const a = await rpc(t, "tools/explode");
    expect(a.body.error).toMatchObject({ code: -32601, data: { method: "tools/explode" } });
  });

  it("an unknown tool → -32601 with the name in data", async () => {
    const a = await callTool(t, "jsonrpc", "drop_everything", {});
    expect(a.body.error).toMatchObject({ code: -32601, data: { name: "drop_everything" } });
  });

  it("an unknown prompt → -32601 with the name in data", async () => {
    const a = await rpc(t, "prompts/get", { name: "write_my_code" });
    expect(a.body.error).toMatchObject({ code: -32601, data: { name: "write_my_code" } });
  });

  it.each(["US-ABC", "US-", "047", "USER-047", "us 47", ""])(
    "get_user_story_requirements %j → -32602 with data.errors naming user_story",
    async (value) => {
      const a = await callTool(t, "jsonrpc", "get_user_story_requirements", { user_story: value });
      expect(a.status).toBe(200);
      expect(a.body.error.code).toBe(-32602);
      expect(a.body.error.data.errors).toEqual([
        expect.objectContaining({
          field: "user_story",
          message: expect.stringContaining("Invalid user story reference ID format"),
        }),
      ]);
    },
  );

  it("a missing argument → -32602 naming it", async () => {
    const a = await callTool(t, "jsonrpc", "get_user_story_requirements", {});
    expect(a.body.error.code).toBe(-32602);
    expect(a.body.error.data.errors.map((e: { field: string }) => e.field)).toEqual(["user_story"]);
  });

  it("an unknown resource → -32002 with data.reference_id", async () => {
    const a = await rpc(t, "resources/read", { uri: "nothing://here" });
    expect(a.body.error).toMatchObject({ code: -32002, data: { reference_id: "nothing://here" } });
  });

  it("anything else → 500, -32603 with data.correlation_id = X-Request-Id; the details only in the log", async () => {
    const a = await callTool(t, "jsonrpc", "fixture_explode", {});
    expect(a.status).toBe(500);
    const requestId = a.headers.get("x-request-id");
    expect(a.body.error).toMatchObject({ code: -32603, data: { correlation_id: requestId } });
    expect(a.text).not.toContain("SQLITE");
    const line = logLines().find((l) => l.correlationId === requestId && l.msg === "internal error");
    expect(line).toMatchObject({
      level: "error",
      requestId,
      where: "tools/call fixture_explode",
      error: SECRET_DETAIL,
    });
    expect(String(line?.stack)).toContain("face-fixtures.ts");
    expect(typeof line?.time).toBe("string");
  });

  it("a success is the MCP CallToolResult: content and structuredContent", async () => {
    const a = await callTool(t, "jsonrpc", "fixture_count", { steps: 2 });
    expect(a.body.result).toEqual({
      content: [{ type: "text", text: JSON.stringify({ counted: 2, workspace: "default" }, null, 2) }],
      structuredContent: { counted: 2, workspace: "default" },
    });
  });

  it("tokens never reach the log", async () => {
    await rpc(t, "ping");
    const all = t.logs.join("\n");
    expect(all).not.toContain(t.ownerToken);
    expect(all).not.toContain(t.ownerToken.slice(4, 20));
  });
});

describe("/mcp transport", () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    t.app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.ownerToken}`,
        "content-type": "application/json",
        accept: MCP_ACCEPT,
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  it("GET and DELETE → 405 (stateless: no standalone stream, no session to end)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await t.app.request("/mcp", {
        method,
        headers: { authorization: `Bearer ${t.ownerToken}`, accept: MCP_ACCEPT },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("no token → 401 with WWW-Authenticate", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { authorization: "" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(MCP_CHALLENGE);
  });

  it("an unsupported MCP-Protocol-Version → 400; a supported one passes", async () => {
    const bad = await post(
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { "mcp-protocol-version": "1999-01-01" },
    );
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Unsupported protocol version");
    const good = await post(
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { "mcp-protocol-version": "2025-06-18" },
    );
    expect(good.status).toBe(200);
  });

  it("a body that is not JSON → 400, -32700", async () => {
    const res = await post("{oops");
    expect(res.status).toBe(400);
    expect((await res.json()) as object).toMatchObject({ error: { code: -32700 } });
  });

  it("a notification → 202 with no body", async () => {
    const res = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  it("initialize answers with the server info, capabilities and the registry's instructions", async () => {
    const a = await mcp(t, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    expect(a.body.result).toMatchObject({
      protocolVersion: "2025-11-25",
      serverInfo: { name: "reqlix" },
      capabilities: { tools: {} },
    });
    expect(a.headers.get("mcp-session-id")).toBeNull();
  });

  it("answers JSON when no progress was asked for, and JSON to a client that accepts only JSON", async () => {
    const plain = await mcp(t, "tools/call", { name: "fixture_count", arguments: { steps: 1 } });
    expect(plain.headers.get("content-type")).toContain("application/json");
    expect(plain.body.result.structuredContent).toEqual({ counted: 1, workspace: "default" });
    for (const accept of ["application/json", "*/*", ""]) {
      const jsonOnly = await mcp(t, "tools/list", undefined, undefined, { accept });
      expect(jsonOnly.status, accept).toBe(200);
      expect(jsonOnly.headers.get("content-type")).toContain("application/json");
      expect(jsonOnly.body.result.tools.length).toBeGreaterThan(0);
    }
    const neither = await mcp(t, "tools/list", undefined, undefined, { accept: "text/html" });
    expect(neither.status).toBe(406);
  });

  it("streams SSE with progress notifications before the result when the client asked for progress", async () => {
    const res = await post({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "fixture_count", arguments: { steps: 3 }, _meta: { progressToken: "p1" } },
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const messages = parseMcpBody(res.headers.get("content-type"), await res.text()) as {
      method?: string;
      params?: { progress: number };
      id?: number;
    }[];
    expect(messages.map((m) => m.method ?? `result ${m.id}`)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "result 9",
    ]);
    expect(messages.slice(0, 3).map((m) => m.params?.progress)).toEqual([1, 2, 3]);
  });

  it("an unknown tool is a protocol error (-32601, as on /api/v1/mcp); a tool's failures are results with isError: bad arguments naming the field, internal error with the request id", async () => {
    const unknown = await mcp(t, "tools/call", { name: "drop_everything", arguments: {} });
    expect(unknown.body.error).toMatchObject({ code: -32601, data: { name: "drop_everything" } });
    expect(unknown.body.error.message).toMatch(/^Unknown tool "drop_everything"\. Available tools: /);

    const bad = await mcp(t, "tools/call", {
      name: "get_user_story_requirements",
      arguments: { user_story: "US-ABC" },
    });
    expect(bad.body.result.isError).toBe(true);
    expect(bad.body.result.content[0].text).toContain("user_story");
    expect(bad.body.result.content[0].text).toContain("Invalid user story reference ID format");

    const boom = await mcp(t, "tools/call", { name: "fixture_explode", arguments: {} });
    const requestId = boom.headers.get("x-request-id") as string;
    expect(boom.body.result.isError).toBe(true);
    expect(boom.body.result.content[0].text).toBe(
      `Internal error (request id ${requestId}); the details are in the server log.`,
    );
    expect(
      logLines().some((l) => l.correlationId === requestId && String(l.stack).includes(SECRET_DETAIL)),
    ).toBe(true);
  });
});
