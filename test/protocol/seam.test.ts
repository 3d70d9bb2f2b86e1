/**
 * The registry seam through the real SDK Client (in-memory transport, the same createMcpServer the stdio
 * companion and /mcp use): rich tool content, binary resources, image and resource prompt messages, log
 * messages honouring logging/setLevel, completion, and -32602 for params of the wrong shape.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { BaseContext } from "../../src/core/registry.js";
import { compileRegistries } from "../../src/protocol/compile.js";
import { createMcpServer } from "../../src/protocol/mcp-server.js";
import { MANY, PNG, seamRegistry } from "./seam-registry.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function serverFor(completions: boolean) {
  return createMcpServer<BaseContext>({
    name: "seam",
    version: "1.0.0",
    compiled: compileRegistries([seamRegistry<BaseContext>({ completions })]),
    context: (base) => base,
  });
}

async function connect(completions = true): Promise<Client> {
  const server = serverFor(completions);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "seam-test", version: "1.0.0" });
  await client.connect(b);
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

/** Raw JSON-RPC, so params the SDK Client would never send can be sent. */
async function raw(message: Record<string, unknown>): Promise<JSONRPCMessage> {
  const server = serverFor(true);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  closers.push(() => server.close());
  const answer = new Promise<JSONRPCMessage>((resolve) => {
    b.onmessage = resolve;
  });
  await b.start();
  await b.send({ jsonrpc: "2.0", id: 7, ...message } as JSONRPCMessage);
  return answer;
}

describe("tool results", () => {
  it("a tool whose render returns content items answers them as MCP content blocks, in order", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "rich_result", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: "text", text: "a red pixel" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "seam://pixel", mimeType: "image/png", blob: PNG } },
      { type: "resource_link", uri: "seam://pixel", name: "pixel", mimeType: "image/png" },
      { type: "text", text: "end" },
    ]);
    // The handler's plain data is still the structured content (the tool declares an output schema).
    expect(result.structuredContent).toEqual({ caption: "a red pixel" });
  });

  it("a text-only tool is unchanged: one JSON text block plus structured content", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "plain_echo", arguments: { tag: "x" } });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ tag: "x" }, null, 2) }]);
    expect(result.structuredContent).toEqual({ tag: "x" });
  });
});

describe("resources and prompts", () => {
  it("a resource may be binary: blob (base64) instead of text", async () => {
    const client = await connect();
    const read = await client.readResource({ uri: "seam://pixel" });
    expect(read.contents).toEqual([{ uri: "seam://pixel", mimeType: "image/png", blob: PNG }]);
  });

  it("prompt messages carry image, embedded-resource and text content", async () => {
    const client = await connect();
    const prompt = await client.getPrompt({ name: "look", arguments: { colour: "red" } });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
      {
        role: "user",
        content: {
          type: "resource",
          resource: { uri: "seam://note", mimeType: "text/plain", text: "colour red" },
        },
      },
      { role: "assistant", content: { type: "text", text: "I see it." } },
    ]);
  });
});

describe("log messages from a tool", () => {
  it("reach the client as notifications/message; without setLevel every level does", async () => {
    const client = await connect();
    const seen: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.push(n.params);
    });
    const result = await client.callTool({ name: "chatty", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([
      { level: "debug", data: "debug detail" },
      { level: "info", data: { step: 1 }, logger: "seam" },
      { level: "error", data: "something failed" },
    ]);
  });

  it("honour logging/setLevel for the rest of the connection (warning lets only error through)", async () => {
    const client = await connect();
    const seen: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      seen.push(n.params.level);
    });
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "chatty", arguments: {} });
    await client.callTool({ name: "chatty", arguments: {} });
    expect(seen).toEqual(["error", "error"]);
  });
});

describe("completion", () => {
  it("declares `completions` only when some prompt or template completes", async () => {
    expect((await connect(true)).getServerCapabilities()?.completions).toEqual({});
    const without = await connect(false);
    expect(without.getServerCapabilities()?.completions).toBeUndefined();
    await expect(
      without.complete({
        ref: { type: "ref/prompt", name: "look" },
        argument: { name: "colour", value: "r" },
      }),
    ).rejects.toThrow(/-32601|Method not found/);
  });

  it("a prompt argument: values from the hook, with the arguments already known", async () => {
    const client = await connect();
    const r = await client.complete({
      ref: { type: "ref/prompt", name: "look" },
      argument: { name: "colour", value: "r" },
      context: { arguments: { shade: "dark" } },
    });
    expect(r.completion).toEqual({ values: ["red", "rose", "known:dark"], total: 3, hasMore: false });
  });

  it("a template variable: at most 100 values, with total and hasMore", async () => {
    const client = await connect();
    const r = await client.complete({
      ref: { type: "ref/resource", uri: "seam://items/{item}" },
      argument: { name: "item", value: "item-" },
    });
    expect(r.completion.values).toEqual(MANY.slice(0, 100));
    expect(r.completion.total).toBe(150);
    expect(r.completion.hasMore).toBe(true);
  });

  it("a definition without a hook answers no values; an unknown prompt or template is -32602", async () => {
    const client = await connect();
    const r = await client.complete({
      ref: { type: "ref/prompt", name: "bare" },
      argument: { name: "x", value: "" },
    });
    expect(r.completion).toEqual({ values: [], total: 0, hasMore: false });
    await expect(
      client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } }),
    ).rejects.toThrow(/-32602.*Unknown prompt "nope"/);
    await expect(
      client.complete({
        ref: { type: "ref/resource", uri: "seam://other/{x}" },
        argument: { name: "x", value: "" },
      }),
    ).rejects.toThrow(/-32602.*Unknown resource template "seam:\/\/other\/\{x\}".*seam:\/\/items\/\{item\}/);
  });
});

describe("params of the wrong shape are -32602 naming the field (DESIGN's error table), never -32603", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["tools/call", { name: "plain_echo", arguments: 5 }, /params\.arguments/],
    ["tools/call", { arguments: {} }, /params\.name/],
    ["prompts/get", { name: "look", arguments: { colour: 5 } }, /params\.arguments\.colour/],
    ["resources/read", { uri: 42 }, /params\.uri/],
    ["initialize", { protocolVersion: 5 }, /params\.protocolVersion/],
    ["logging/setLevel", { level: "loud" }, /params\.level/],
    [
      "completion/complete",
      { ref: { type: "ref/prompt" }, argument: { name: "x", value: "" } },
      /params\.ref/,
    ],
  ];
  for (const [method, params, field] of cases) {
    it(`${method} ${JSON.stringify(params)}`, async () => {
      const answer = (await raw({ method, params })) as {
        id: number;
        error?: { code: number; message: string; data?: unknown };
      };
      expect(answer.id).toBe(7);
      expect(answer.error?.code).toBe(-32602);
      expect(answer.error?.message).toMatch(
        new RegExp(`^(MCP error -32602: )?Invalid params for ${method.replace("/", "\\/")}: `),
      );
      expect(answer.error?.message).toMatch(field);
      expect(answer.error?.message).not.toMatch(/"code":/); // not zod's JSON dump
      expect(
        (answer.error?.data as { errors?: { field: string }[] } | undefined)?.errors?.some((e) =>
          field.test(e.field),
        ),
      ).toBe(true);
    });
  }

  it("a well-formed request on the same path still works (ping, tools/call)", async () => {
    expect(await raw({ method: "ping" })).toMatchObject({ id: 7, result: {} });
    const call = (await raw({
      method: "tools/call",
      params: { name: "plain_echo", arguments: { tag: "t" } },
    })) as unknown as {
      result: { structuredContent: unknown };
    };
    expect(call.result.structuredContent).toEqual({ tag: "t" });
  });
});
