/**
 * The JSON-RPC dispatcher on its own (pure: text in, status and body out) over a small test registry:
 * every envelope case and every row of DESIGN's error table that the dispatcher produces.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { compileRegistries } from "../../../src/protocol/compile.js";
import { dispatchJsonRpc, type JsonRpcReply } from "../../../src/protocol/jsonrpc.js";
import type { OperationEvent } from "../../../src/protocol/operations.js";
import { type TestContext, testRegistry } from "./test-registry.js";

const compiled = compileRegistries([testRegistry()]);

let notes: TestContext["notes"];
let events: OperationEvent[];
let internals: { error: unknown; where: string }[];

beforeEach(() => {
  notes = new Map([["NOTE-001", { reference_id: "NOTE-001", title: "first" }]]);
  events = [];
  internals = [];
});

function send(body: unknown, role: TestContext["role"] = "editor"): Promise<JsonRpcReply> {
  return dispatchJsonRpc(typeof body === "string" ? body : JSON.stringify(body), {
    compiled,
    serverInfo: { name: "reqlix", version: "9.9.9" },
    context: (base) => ({ ...base, role, notes }),
    correlationId: "req-123",
    observe: (e) => events.push(e),
    onInternalError: (error, where) => internals.push({ error, where }),
  });
}

function call(method: string, params?: unknown, id: unknown = 1) {
  return { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
}

function errorOf(reply: JsonRpcReply) {
  const body = reply.body as {
    error?: { code: number; message: string; data?: Record<string, unknown> };
  } | null;
  if (!body?.error) throw new Error(`expected an error, got ${JSON.stringify(reply)}`);
  return body.error;
}

function resultOf(reply: JsonRpcReply): Record<string, unknown> {
  const body = reply.body as { result?: Record<string, unknown> } | null;
  if (!body?.result) throw new Error(`expected a result, got ${JSON.stringify(reply)}`);
  return body.result;
}

describe("envelope", () => {
  it("answers a body that is not JSON with 400 and -32700", async () => {
    const reply = await send("{not json");
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("refuses a batch with 400 and -32600, saying to send one request at a time", async () => {
    const reply = await send([call("ping"), call("ping", undefined, 2)]);
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32600);
    expect(errorOf(reply).message).toContain("batches are not supported");
  });

  it.each([
    ["a string", "hello"],
    ["a number", 42],
    ["null", null],
  ])("refuses %s as the body with -32600", async (_label, body) => {
    const reply = await send(JSON.stringify(body));
    expect(reply.status).toBe(400);
    expect(errorOf(reply).code).toBe(-32600);
  });

  it("requires jsonrpc 2.0 and echoes the id it could read", async () => {
    const reply = await send({ jsonrpc: "1.0", id: 7, method: "ping" });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(errorOf(reply).message).toContain('"jsonrpc" must be "2.0"');
  });

  it("requires a method", async () => {
    const reply = await send({ jsonrpc: "2.0", id: 1 });
    expect(reply.status).toBe(400);
    expect(errorOf(reply).message).toContain('"method" must be a string');
  });

  it.each([null, { a: 1 }, [1], true])("refuses id %j with -32600 and id null", async (id) => {
    const reply = await send({ jsonrpc: "2.0", id, method: "ping" });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("refuses positional params", async () => {
    const reply = await send(call("tools/call", ["get_note"]));
    expect(reply.status).toBe(400);
    expect(errorOf(reply).message).toContain('"params" must be an object');
  });

  it("answers a notification with 202 and no body", async () => {
    const reply = await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(reply).toEqual({ status: 202, body: null });
  });

  it("runs a tools/call notification without answering it, and still observes it", async () => {
    const reply = await send({
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "create_note", arguments: { title: "quiet" } },
    });
    expect(reply).toEqual({ status: 202, body: null });
    expect([...notes.keys()]).toEqual(["NOTE-001", "NOTE-002"]);
    expect(events).toHaveLength(1);
  });

  it("echoes string ids and answers with jsonrpc 2.0", async () => {
    const reply = await send(call("ping", undefined, "abc"));
    expect(reply).toEqual({ status: 200, body: { jsonrpc: "2.0", id: "abc", result: {} } });
  });

  it("answers an unknown method with -32601 naming it and listing the supported ones", async () => {
    const reply = await send(call("tools/destroy"));
    expect(reply.status).toBe(200);
    const error = errorOf(reply);
    expect(error.code).toBe(-32601);
    expect(error.data).toEqual({ method: "tools/destroy" });
    expect(error.message).toContain("tools/call");
  });

  it("does not treat Object.prototype names as methods", async () => {
    for (const method of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(errorOf(await send(call(method))).code).toBe(-32601);
    }
  });
});

describe("methods", () => {
  it("initialize needs no handshake state and negotiates the protocol version", async () => {
    const result = resultOf(await send(call("initialize", { protocolVersion: "2025-06-18" })));
    expect(result).toMatchObject({
      protocolVersion: "2025-06-18",
      serverInfo: { name: "reqlix", version: "9.9.9" },
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: "Test registry: notes with ids like NOTE-001.",
    });
    const unknown = resultOf(await send(call("initialize", { protocolVersion: "1999-01-01" })));
    expect(unknown.protocolVersion).toBe("2025-11-25");
  });

  it("lists tools with their JSON schemas and annotations", async () => {
    const result = resultOf(await send(call("tools/list")));
    const tools = result.tools as {
      name: string;
      inputSchema: { properties: object };
      annotations: object;
    }[];
    expect(tools.map((t) => t.name)).toEqual(["create_note", "get_note", "explode"]);
    expect(tools[1]?.inputSchema.properties).toHaveProperty("note_id");
    expect(tools[1]?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("tools/call returns the MCP CallToolResult: content and structuredContent", async () => {
    const result = resultOf(
      await send(call("tools/call", { name: "create_note", arguments: { title: "second" } })),
    );
    expect(result.structuredContent).toEqual({ reference_id: "NOTE-002", title: "second" });
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ reference_id: "NOTE-002", title: "second" }, null, 2) },
    ]);
    expect(result).not.toHaveProperty("isError");
  });

  it("an unknown tool is -32601 with the name in data", async () => {
    const reply = await send(call("tools/call", { name: "drop_tables", arguments: {} }));
    expect(reply.status).toBe(200);
    const error = errorOf(reply);
    expect(error.code).toBe(-32601);
    expect(error.data).toMatchObject({
      name: "drop_tables",
      available: ["create_note", "get_note", "explode"],
    });
  });

  it("a missing tool name is -32602 naming params.name", async () => {
    const error = errorOf(await send(call("tools/call", {})));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ errors: [{ field: "params.name", message: "Required" }] });
  });

  it("arguments that fail their schema are -32602 with one entry per field", async () => {
    const error = errorOf(
      await send(call("tools/call", { name: "get_note", arguments: { note_id: "US-ABC" } })),
    );
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({
      errors: [{ field: "note_id", message: "Invalid note reference ID format" }],
    });
    expect(error.message).toContain("note_id: Invalid note reference ID format");
    const missing = errorOf(
      await send(call("tools/call", { name: "create_note", arguments: { title: 5, extra: 1 } })),
    );
    expect((missing.data as { errors: { field: string }[] }).errors.map((e) => e.field)).toContain("title");
  });

  it("arguments that are not an object are -32602", async () => {
    const error = errorOf(await send(call("tools/call", { name: "get_note", arguments: "NOTE-001" })));
    expect(error.code).toBe(-32602);
    // The SDK's own request schema says what was wrong.
    expect(error.data).toEqual({
      errors: [{ field: "params.arguments", message: "Invalid input: expected record, received string" }],
    });
  });

  it("not found is -32002 with data.reference_id", async () => {
    const error = errorOf(
      await send(call("tools/call", { name: "get_note", arguments: { note_id: "NOTE-404" } })),
    );
    expect(error).toEqual({
      code: -32002,
      message: "Note not found: NOTE-404",
      data: { reference_id: "NOTE-404" },
    });
  });

  it("a conflict is -32009", async () => {
    const error = errorOf(
      await send(call("tools/call", { name: "create_note", arguments: { title: "first" } })),
    );
    expect(error.code).toBe(-32009);
    expect(error.data).toEqual({ reference_id: "NOTE-001" });
  });

  it("forbidden is HTTP 403 with -32003 and changes nothing", async () => {
    const reply = await send(
      call("tools/call", { name: "create_note", arguments: { title: "nope" } }),
      "viewer",
    );
    expect(reply.status).toBe(403);
    expect(errorOf(reply).code).toBe(-32003);
    expect(notes.size).toBe(1);
  });

  it("an unexpected failure is HTTP 500, -32603 with the correlation id; details only reach the log", async () => {
    const reply = await send(call("tools/call", { name: "explode" }));
    expect(reply.status).toBe(500);
    const error = errorOf(reply);
    expect(error.code).toBe(-32603);
    expect(error.data).toEqual({ correlation_id: "req-123" });
    expect(JSON.stringify(reply.body)).not.toContain("SQLITE");
    expect(internals).toHaveLength(1);
    expect(String(internals[0]?.error)).toContain("SQLITE_CORRUPT");
    expect(internals[0]?.where).toBe("tools/call explode");
  });

  it("resources: templates, read, and -32002 for an unknown URI", async () => {
    const templates = resultOf(await send(call("resources/templates/list")));
    expect(templates.resourceTemplates).toEqual([
      {
        uriTemplate: "note://{note_id}",
        name: "note",
        description: "A note as JSON.",
        mimeType: "application/json",
      },
    ]);
    expect(resultOf(await send(call("resources/list")))).toEqual({ resources: [] });
    const read = resultOf(await send(call("resources/read", { uri: "note://NOTE-001" })));
    expect(read.contents).toEqual([
      { uri: "note://NOTE-001", mimeType: "application/json", text: JSON.stringify(notes.get("NOTE-001")) },
    ]);
    const missing = errorOf(await send(call("resources/read", { uri: "note://NOTE-404" })));
    expect(missing).toMatchObject({ code: -32002, data: { reference_id: "NOTE-404" } });
    const foreign = errorOf(await send(call("resources/read", { uri: "ftp://x" })));
    expect(foreign).toMatchObject({ code: -32002, data: { reference_id: "ftp://x" } });
    expect(foreign.message).toContain("note://{note_id}");
  });

  it("prompts: list, get, a missing argument named, an unknown prompt -32601", async () => {
    const list = resultOf(await send(call("prompts/list")));
    expect(list.prompts).toEqual([
      {
        name: "review_note",
        description: "Review a note.",
        arguments: [{ name: "note_id", description: "The note to review, e.g. NOTE-001", required: true }],
      },
    ]);
    const got = resultOf(
      await send(call("prompts/get", { name: "review_note", arguments: { note_id: "NOTE-001" } })),
    );
    expect(got).toEqual({
      description: "Review of NOTE-001",
      messages: [{ role: "user", content: { type: "text", text: "Review: first" } }],
    });
    const missing = errorOf(await send(call("prompts/get", { name: "review_note" })));
    expect(missing.code).toBe(-32602);
    expect(missing.data).toEqual({
      errors: [{ field: "arguments.note_id", message: "Required: The note to review, e.g. NOTE-001" }],
    });
    const unknown = errorOf(await send(call("prompts/get", { name: "nope" })));
    expect(unknown).toMatchObject({ code: -32601, data: { name: "nope", available: ["review_note"] } });
  });
});

describe("observation (the audit seam)", () => {
  it("reports each tools/call, resources/read and prompts/get once, with ids and never argument values", async () => {
    await send(call("tools/call", { name: "create_note", arguments: { title: "secret title" } }));
    await send(call("tools/call", { name: "get_note", arguments: { note_id: "NOTE-404" } }));
    await send(call("tools/call", { name: "nope" }));
    await send(call("resources/read", { uri: "note://NOTE-001" }));
    await send(call("prompts/get", { name: "review_note" }));
    await send(call("tools/list"));
    expect(events.map(({ durationMs, ...e }) => e)).toEqual([
      { method: "tools/call", target: "create_note", outcome: "ok", referenceId: "NOTE-002" },
      {
        method: "tools/call",
        target: "get_note",
        outcome: "error",
        errorCode: "not_found",
        referenceId: "NOTE-404",
      },
      { method: "tools/call", target: "nope", outcome: "error", errorCode: "unknown_tool" },
      { method: "resources/read", target: "note://NOTE-001", outcome: "ok", referenceId: "NOTE-001" },
      { method: "prompts/get", target: "review_note", outcome: "error", errorCode: "invalid_input" },
    ]);
    expect(JSON.stringify(events)).not.toContain("secret title");
    for (const e of events) expect(e.durationMs).toBeGreaterThanOrEqual(0);
  });
});

describe("malformed resource URIs", () => {
  it("a resource whose match throws on a bad escape is no match: -32002, not an internal error", async () => {
    const base = testRegistry();
    const decoding = compileRegistries([
      {
        ...base,
        resources: [
          {
            uriTemplate: "doc://{name}",
            name: "doc",
            description: "A doc.",
            mimeType: "text/plain",
            match: (uri) =>
              uri.startsWith("doc://") ? { name: decodeURIComponent(uri.slice(6)) } : undefined,
            read: (_p, uri) => [{ uri, mimeType: "text/plain", text: "x" }],
          },
        ],
      },
    ]);
    const reply = await dispatchJsonRpc(JSON.stringify(call("resources/read", { uri: "doc://%E0%A4%A" })), {
      compiled: decoding,
      serverInfo: { name: "reqlix", version: "1" },
      context: (b) => ({ ...b, role: "editor", notes }),
      correlationId: "c",
      observe: (e) => events.push(e),
      onInternalError: (error, where) => internals.push({ error, where }),
    });
    expect(reply.status).toBe(200);
    expect(errorOf(reply)).toMatchObject({ code: -32002, data: { reference_id: "doc://%E0%A4%A" } });
    expect(internals).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ method: "resources/read", errorCode: "not_found" })]);
  });
});
