/**
 * One error table, one wording: the same mistake gets the same JSON-RPC code, message and data on `/mcp`
 * (seen through the real SDK `Client`, as every SDK-v1-based MCP client sees it) and on `POST /api/v1/mcp`
 * (a plain fetch). The SDK client puts "MCP error <code>: " in front of the server's message once; the
 * server must not have put it there already.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostedServer, startHosted } from "../../helpers/hosted.js";

let server: HostedServer;
let client: Client;

beforeAll(async () => {
  server = await startHosted();
  client = new Client({ name: "same-errors", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${server.ownerToken}` } },
    }),
  );
});
afterAll(async () => {
  await client?.close().catch(() => {});
  await server?.close();
});

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** The error `/api/v1/mcp` answers for one request. */
async function plainError(method: string, params: unknown): Promise<RpcError> {
  const res = await fetch(`${server.url}/api/v1/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.ownerToken}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { error?: RpcError; result?: unknown };
  expect(body.error, `${method} on /api/v1/mcp answered ${JSON.stringify(body)}`).toBeDefined();
  return body.error as RpcError;
}

/** The error the SDK client raises for the same request on `/mcp`. */
async function sdkError(method: string, params: unknown): Promise<McpError> {
  try {
    const result = await client.request({ method, params } as never, CallToolResultSchema.passthrough());
    throw new Error(`${method} on /mcp answered a result: ${JSON.stringify(result)}`);
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
}

async function sameOnBothFaces(method: string, params: unknown): Promise<RpcError> {
  const plain = await plainError(method, params);
  const sdk = await sdkError(method, params);
  expect(sdk.code).toBe(plain.code);
  // The prefix once, from the client; the rest exactly the server's message.
  expect(sdk.message).toBe(`MCP error ${plain.code}: ${plain.message}`);
  expect(plain.message).not.toMatch(/MCP error/);
  expect(sdk.data).toEqual(plain.data);
  return plain;
}

describe("/mcp and /api/v1/mcp answer the same mistake with the same error", () => {
  it("an unknown tool: -32601 naming it and the available tools", async () => {
    const error = await sameOnBothFaces("tools/call", { name: "drop_everything", arguments: {} });
    expect(error.code).toBe(-32601);
    expect(error.message).toMatch(/^Unknown tool "drop_everything"\. Available tools: .*\bget_epic\b/);
    expect(error.data).toMatchObject({ name: "drop_everything" });
  });

  it("an unknown epic: -32002 naming the id (resources/read), and the same text from the tool", async () => {
    const error = await sameOnBothFaces("resources/read", { uri: "epic://EP-999" });
    expect(error.code).toBe(-32002);
    expect(error.message).toMatch(/EP-999/);
    expect(error.data).toMatchObject({ reference_id: "EP-999" });
    // A tool's failure is a result with isError on MCP (the model reads it) and an error on the JSON-RPC
    // face: the same words on both.
    const viaTool = await plainError("tools/call", { name: "get_epic", arguments: { epic_id: "EP-999" } });
    expect(viaTool.code).toBe(-32002);
    const result = await client.callTool({ name: "get_epic", arguments: { epic_id: "EP-999" } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: viaTool.message }]);
  });

  it("a missing prompt argument: -32602 naming the argument", async () => {
    const error = await sameOnBothFaces("prompts/get", { name: "decompose_epic", arguments: {} });
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/epic_id/);
    expect(error.data).toMatchObject({ errors: [expect.objectContaining({ field: "arguments.epic_id" })] });
  });

  it("an unknown prompt: -32601 listing the available prompts", async () => {
    const error = await sameOnBothFaces("prompts/get", { name: "write_my_code", arguments: {} });
    expect(error.code).toBe(-32601);
    expect(error.message).toMatch(
      /^Unknown prompt "write_my_code"\. Available prompts: .*\bdecompose_epic\b/,
    );
  });

  it("an unknown resource: -32002 listing the URI templates", async () => {
    const error = await sameOnBothFaces("resources/read", { uri: "nope://x" });
    expect(error.code).toBe(-32002);
    expect(error.message).toMatch(/^Resource not found: nope:\/\/x\. Known URI templates: .*epic:\/\/\{/);
  });

  it("params of the wrong shape: -32602 naming the field", async () => {
    const error = await sameOnBothFaces("tools/call", { name: "get_epic", arguments: 5 });
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid params for tools\/call: params\.arguments: /);
    expect(error.data).toMatchObject({ errors: [expect.objectContaining({ field: "params.arguments" })] });
  });
});
