/**
 * The seam behind both hosted faces of the real app (createTestApp: temp libSQL, real auth): /mcp streams
 * a logging tool's messages over SSE and answers malformed params with -32602; /api/v1/mcp renders the same
 * content blocks, runs a logging tool with nowhere to log, and answers completion/complete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedContext } from "../../src/hosted/context.js";
import { hostedRegistry } from "../../src/hosted/registry.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { MCP_ACCEPT, parseMcpBody } from "../helpers/hosted.js";
import { PNG, seamRegistry } from "./seam-registry.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    registries: [hostedRegistry, seamRegistry<HostedContext>({ completions: true })],
  });
});
afterAll(async () => t?.close());

async function post(path: string, message: unknown, accept?: string) {
  const res = await t.app.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${t.ownerToken}`,
      "mcp-protocol-version": "2025-06-18",
      ...(accept ? { accept } : {}),
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get("content-type"), text };
}

describe("/mcp", () => {
  it("streams a logging tool's messages before its result to a client that accepts SSE", async () => {
    const a = await post(
      "/mcp",
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "chatty", arguments: {} } },
      MCP_ACCEPT,
    );
    expect(a.status).toBe(200);
    expect(a.contentType).toContain("text/event-stream");
    const messages = parseMcpBody(a.contentType, a.text) as {
      method?: string;
      params?: unknown;
      result?: unknown;
    }[];
    expect(messages.filter((m) => m.method === "notifications/message").map((m) => m.params)).toEqual([
      { level: "debug", data: "debug detail" },
      { level: "info", data: { step: 1 }, logger: "seam" },
      { level: "error", data: "something failed" },
    ]);
    expect(messages.at(-1)?.result).toEqual({ content: [{ type: "text", text: "done" }] });
  });

  it("answers a tool that does not log as JSON, and a JSON-only client as JSON (no log messages)", async () => {
    const plain = await post(
      "/mcp",
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "plain_echo", arguments: { tag: "a" } },
      },
      MCP_ACCEPT,
    );
    expect(plain.contentType).toContain("application/json");
    const jsonOnly = await post(
      "/mcp",
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "chatty", arguments: {} } },
      "application/json",
    );
    expect(jsonOnly.contentType).toContain("application/json");
    expect(JSON.parse(jsonOnly.text)).toMatchObject({
      id: 3,
      result: { content: [{ type: "text", text: "done" }] },
    });
  });

  it("tools/call with arguments: 5 → -32602 naming params.arguments (not the SDK's -32603)", async () => {
    const a = await post(
      "/mcp",
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "plain_echo", arguments: 5 } },
      MCP_ACCEPT,
    );
    expect(a.status).toBe(200);
    const [m] = parseMcpBody(a.contentType, a.text) as { error: { code: number; message: string } }[];
    expect(m?.error.code).toBe(-32602);
    expect(m?.error.message).toMatch(/Invalid params for tools\/call: params\.arguments: /);
  });

  it("serves rich content, blobs and image prompts", async () => {
    const call = await post(
      "/mcp",
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "rich_result", arguments: {} } },
      MCP_ACCEPT,
    );
    const [m] = parseMcpBody(call.contentType, call.text) as { result: { content: { type: string }[] } }[];
    expect(m?.result.content.map((c) => c.type)).toEqual([
      "text",
      "image",
      "audio",
      "resource",
      "resource_link",
      "text",
    ]);
    const read = await post(
      "/mcp",
      { jsonrpc: "2.0", id: 6, method: "resources/read", params: { uri: "seam://pixel" } },
      MCP_ACCEPT,
    );
    expect(JSON.parse(read.text).result.contents).toEqual([
      { uri: "seam://pixel", mimeType: "image/png", blob: PNG },
    ]);
  });
});

describe("/api/v1/mcp", () => {
  it("renders the same content blocks as /mcp", async () => {
    const a = await post("/api/v1/mcp", {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "rich_result", arguments: {} },
    });
    expect(a.status).toBe(200);
    const body = JSON.parse(a.text);
    expect(body.result.content[1]).toEqual({ type: "image", data: PNG, mimeType: "image/png" });
    expect(body.result.content[3]).toEqual({
      type: "resource",
      resource: { uri: "seam://pixel", mimeType: "image/png", blob: PNG },
    });
    expect(body.result.structuredContent).toEqual({ caption: "a red pixel" });
  });

  it("runs a logging tool (its messages have no stream here) and answers its result", async () => {
    const a = await post("/api/v1/mcp", {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "chatty", arguments: {} },
    });
    expect(JSON.parse(a.text)).toMatchObject({
      id: 2,
      result: { content: [{ type: "text", text: "done" }] },
    });
  });

  it("declares completions and answers completion/complete like /mcp", async () => {
    const init = await post("/api/v1/mcp", { jsonrpc: "2.0", id: 3, method: "initialize", params: {} });
    expect(JSON.parse(init.text).result.capabilities.completions).toEqual({});
    const c = await post("/api/v1/mcp", {
      jsonrpc: "2.0",
      id: 4,
      method: "completion/complete",
      params: { ref: { type: "ref/prompt", name: "look" }, argument: { name: "colour", value: "g" } },
    });
    expect(JSON.parse(c.text).result.completion).toEqual({
      values: ["green", "known:-"],
      total: 2,
      hasMore: false,
    });
    const bad = await post("/api/v1/mcp", {
      jsonrpc: "2.0",
      id: 5,
      method: "completion/complete",
      params: { ref: { type: "ref/prompt" }, argument: { name: "colour", value: "g" } },
    });
    // The SDK's schema for `ref` is a union: the field named is `params.ref`, as on /mcp.
    expect(JSON.parse(bad.text).error).toMatchObject({
      code: -32602,
      data: { errors: [{ field: "params.ref" }] },
    });
  });
});
