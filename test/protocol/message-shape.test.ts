/**
 * The zod-free fast paths (src/protocol/message-shape.ts, `plainLegacy` in src/http/mcp-modern.ts) may only
 * answer what the SDKs' own schemas and classifier answer: every message they accept, the SDK accepts the
 * same way. Generated messages (fast-check) plus the edge cases by hand, against v1's and v2's schemas.
 */
import { JSONRPCRequestSchema as V2RequestSchema } from "@modelcontextprotocol/core/internal";
import {
  CallToolRequestSchema,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plainLegacy } from "../../src/http/mcp-modern.js";
import { plainCallParams, plainRequest } from "../../src/protocol/message-shape.js";

const request = (headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
  });

const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 53, -(2 ** 53), 2 ** 53 - 1, -0, 1.5, Number.NaN),
  fc.string(),
  fc.constantFrom("2.0", "1.0", "tools/call", "initialize", "get_epic"),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(
    fc.constantFrom("a", "epic_id", "_meta", "task", "__proto__"),
    fc.oneof(fc.string(), fc.integer()),
    {
      maxKeys: 2,
    },
  ),
);

const params = fc.oneof(
  anyValue,
  fc.record(
    {
      name: fc.oneof(fc.constantFrom("get_epic", "x"), anyValue),
      arguments: fc.oneof(fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), anyValue),
      _meta: fc.oneof(
        fc.constant({ progressToken: 1 }),
        fc.constant({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" }),
        anyValue,
      ),
      task: anyValue,
      protocolVersion: fc.constantFrom("2025-06-18", "2026-07-28"),
      extra: anyValue,
    },
    { requiredKeys: [] },
  ),
);

/** Mostly plain tools/call params, now and then with something else in a part. */
const callParams = fc.record(
  {
    name: fc.oneof({ weight: 5, arbitrary: fc.constantFrom("get_epic", "x") }, anyValue),
    arguments: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.dictionary(fc.oneof(fc.string(), fc.constant("__proto__")), fc.string(), {
          maxKeys: 3,
        }),
      },
      anyValue,
    ),
    _meta: anyValue,
    task: anyValue,
    extra: anyValue,
  },
  { requiredKeys: ["name"] },
);

/** A message: the JSON-RPC keys, each present or not, plus stray ones; stripped of what JSON cannot carry. */
const anyMessage = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), anyValue),
      id: fc.oneof(fc.integer(), fc.string(), anyValue),
      method: fc.oneof(fc.constantFrom("tools/call", "initialize", "ping", "tools/list"), anyValue),
      params,
      result: anyValue,
      error: anyValue,
      extra: anyValue,
    },
    { requiredKeys: [] },
  )
  .map((m) => JSON.parse(JSON.stringify(m)) as unknown);

/** Mostly well-formed requests, each part now and then replaced by something else: the fast path's edge. */
const nearRequest = fc
  .record(
    {
      jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant("2.0") }, anyValue),
      id: fc.oneof({ weight: 3, arbitrary: fc.integer() }, { weight: 2, arbitrary: fc.string() }, anyValue),
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom("tools/call", "initialize", "ping", "tools/list") },
        anyValue,
      ),
      params,
      extra: anyValue,
    },
    { requiredKeys: ["jsonrpc", "id", "method"] },
  )
  .map((m) => JSON.parse(JSON.stringify(m)) as unknown);

const message = fc.oneof(anyMessage, nearRequest);

const headers = fc.constantFrom<Record<string, string>>(
  {},
  { "mcp-protocol-version": "2025-11-25" },
  { "mcp-protocol-version": "2025-06-18" },
  { "mcp-protocol-version": "2026-07-28" },
  { "mcp-protocol-version": " 2026-07-28 " },
  { "mcp-protocol-version": "2099-01-01" },
  { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" },
);

describe("plainRequest", () => {
  it("accepts only what both SDKs' request schemas accept, unchanged", () => {
    let taken = 0;
    fc.assert(
      fc.property(message, (m) => {
        const plain = plainRequest(m);
        if (!plain) return;
        taken++;
        for (const schema of [JSONRPCRequestSchema, V2RequestSchema, JSONRPCMessageSchema]) {
          const parsed = schema.safeParse(m);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toEqual(m);
        }
      }),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(30); // the generator does reach the fast path
  });

  it("takes the request shape clients send, and leaves _meta, extra keys and odd ids to the schema", () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_epic", arguments: {} } };
    expect(plainRequest(call)).toBe(call);
    expect(plainRequest({ jsonrpc: "2.0", id: "a", method: "tools/list" })).toBeDefined();
    expect(
      plainRequest({ ...call, params: { ...call.params, _meta: { progressToken: 1 } } }),
    ).toBeUndefined();
    expect(plainRequest({ ...call, extra: 1 })).toBeUndefined();
    expect(plainRequest({ ...call, id: 1.5 })).toBeUndefined();
    expect(plainRequest({ ...call, id: 2 ** 53 })).toBeUndefined();
    expect(plainRequest({ ...call, params: [] })).toBeUndefined();
    expect(plainRequest({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeUndefined();
    expect(plainRequest([call])).toBeUndefined();
  });
});

describe("plainCallParams", () => {
  it("accepts only what CallToolRequestSchema accepts, with the same name and arguments", () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof(params, callParams), (raw) => {
        const p = JSON.parse(JSON.stringify(raw ?? null)) as unknown;
        const plain = plainCallParams(p);
        if (!plain) return;
        taken++;
        const parsed = CallToolRequestSchema.safeParse({ method: "tools/call", params: p });
        expect(parsed.success).toBe(true);
        expect(parsed.data?.params.name).toBe(plain.name);
        expect(parsed.data?.params.arguments).toEqual(plain.arguments);
      }),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(30);
    expect(plainCallParams({ name: "get_epic", _meta: { progressToken: 1 } })).toBeUndefined();
    expect(plainCallParams({ name: "get_epic", arguments: [] })).toBeUndefined();
    // zod's copy of the arguments drops an own "__proto__" key; the fast path leaves such input to it.
    expect(plainCallParams({ name: "get_epic", arguments: JSON.parse('{"__proto__":"x"}') })).toBeUndefined();
    expect(plainCallParams({ name: "get_epic", extra: 1 })).toEqual({ name: "get_epic" });
  });
});

describe("plainLegacy", () => {
  it("says legacy only where the SDK's classifier says so", async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(message, headers, async (m, h) => {
        if (!plainLegacy(request(h), m)) return;
        taken++;
        expect(await isLegacyRequest(request(h), m)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(10);
  });

  it("takes the 2025 tools/call and initialize, and leaves modern headers and envelopes to the SDK", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_epic" } };
    const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25" } };
    expect(plainLegacy(request({ "mcp-protocol-version": "2025-11-25" }), call)).toBe(true);
    expect(plainLegacy(request(), init)).toBe(true);
    expect(plainLegacy(request({ "mcp-protocol-version": "2026-07-28" }), call)).toBe(false);
    const claim = {
      ...call,
      params: { ...call.params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    };
    expect(plainLegacy(request(), claim)).toBe(false);
    expect(await isLegacyRequest(request(), claim)).toBe(false);
  });
});
