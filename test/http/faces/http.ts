/** Small helpers for calling the two faces of a test app with `app.request()`. */
import type { TestApp } from "../../helpers/app.js";
import { MCP_ACCEPT, parseMcpBody } from "../../helpers/hosted.js";

export interface RpcAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field in tests
  body: any;
}

export async function rpcRaw(
  t: TestApp,
  body: string,
  options: { token?: string | null; path?: string; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> {
  const token = options.token === undefined ? t.ownerToken : options.token;
  const res = await t.app.request(options.path ?? "/api/v1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...options.headers,
    },
    body,
  });
  const text = await res.text();
  let parsed: unknown = null;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

let nextId = 1;

/** One JSON-RPC request on /api/v1/mcp. */
export function rpc(t: TestApp, method: string, params?: unknown, token?: string | null): Promise<RpcAnswer> {
  const message = { jsonrpc: "2.0", id: nextId++, method, ...(params === undefined ? {} : { params }) };
  return rpcRaw(t, JSON.stringify(message), { token });
}

/** One JSON-RPC request on /mcp (stateless: no initialize needed); returns the single response message. */
export async function mcp(
  t: TestApp,
  method: string,
  params?: unknown,
  token?: string | null,
  headers: Record<string, string> = {},
): Promise<RpcAnswer> {
  const message = { jsonrpc: "2.0", id: nextId++, method, ...(params === undefined ? {} : { params }) };
  const tok = token === undefined ? t.ownerToken : token;
  const res = await t.app.request("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: MCP_ACCEPT,
      "mcp-protocol-version": "2025-11-25",
      ...(tok ? { authorization: `Bearer ${tok}` } : {}),
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  const messages = res.status === 202 ? [] : parseMcpBody(res.headers.get("content-type"), text);
  return { status: res.status, headers: res.headers, text, body: messages[messages.length - 1] ?? null };
}

/** `tools/call` on either face: the JSON-RPC answer (result or error). */
export function callTool(
  t: TestApp,
  face: "jsonrpc" | "mcp",
  name: string,
  args: Record<string, unknown>,
  token?: string,
): Promise<RpcAnswer> {
  return (face === "jsonrpc" ? rpc : mcp)(t, "tools/call", { name, arguments: args }, token);
}
