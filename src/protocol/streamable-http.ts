/**
 * `/mcp`: MCP's Streamable HTTP, stateless, as a Web-standard `Request` → `Response` function over the one
 * implementation of each method (methods.ts). Nothing is built per request but the answer: no SDK server,
 * no transport, no copy of the request.
 *
 * What the transport part decides:
 * - Accept: the answer is JSON unless an SSE stream is useful and accepted — the client accepts
 *   `text/event-stream` and asked for progress (`_meta.progressToken`) or calls a tool that logs to the
 *   client (`ToolDef.logs`), so those notifications reach it before the result. A client that accepts only
 *   JSON (or sends no Accept, or accepts any type) is served JSON; one that accepts neither gets 406.
 * - Content-Type must be JSON (415); the body must be JSON (400, -32700) holding JSON-RPC messages (400,
 *   -32600); a batch is answered as a batch (revisions before 2025-06-18 allow them) and may hold at most
 *   one `initialize`, alone.
 * - `MCP-Protocol-Version`, when sent on a request other than initialize, must be a supported revision (400).
 * - Only notifications (no request): 202 and no body. No sessions: no `Mcp-Session-Id`.
 */
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { type JSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { RpcCode } from "../core/error-table.js";
import type { BaseContext } from "../core/registry.js";
import type { CompiledRegistry } from "./compile.js";
import { mcpResponse } from "./mcp-server.js";
import { plainRequest } from "./message-shape.js";
import { handleMethod, type MethodEnv } from "./methods.js";

/** What the face is given per request: the part of a method's env that does not come from the request. */
export type StreamableHttpOptions<Ctx extends BaseContext> = Pick<
  MethodEnv<Ctx>,
  "compiled" | "serverInfo" | "context" | "observe" | "onInternalError" | "correlationId" | "toolScope"
>;

const MAX_BATCH = 100;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** An HTTP-level refusal, in the JSON-RPC envelope with `id: null`. */
export function httpRefusal(status: number, code: number, message: string, headers?: Record<string, string>) {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

type Request_ = Extract<JSONRPCMessage, { method: string; id: string | number }>;

function isRequest(m: JSONRPCMessage): m is Request_ {
  return "method" in m && "id" in m;
}

/** True when some request carries a progress token or calls a tool that sends log messages. */
function wantsStream<Ctx extends BaseContext>(
  requests: Request_[],
  compiled: CompiledRegistry<Ctx>,
): boolean {
  return requests.some((m) => {
    const params = isObject(m.params) ? m.params : undefined;
    if (isObject(params?._meta) && params._meta.progressToken !== undefined) return true;
    if (m.method !== "tools/call" || typeof params?.name !== "string") return false;
    return compiled.tools.get(params.name)?.def.logs === true;
  });
}

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]?.trim().toLowerCase();
  return type === "application/json";
}

const encoder = new TextEncoder();

function sseEvent(message: JSONRPCMessage): Uint8Array {
  return encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** A body read and parsed once by the route: its JSON value, or `NOT_JSON` when it does not parse. */
export const NOT_JSON: unique symbol = Symbol("not JSON");
export type ParsedBody = { json: unknown } | typeof NOT_JSON;

/** The body as JSON, parsed once: `NOT_JSON` when it is not. */
export function parseBody(text: string): ParsedBody {
  try {
    return { json: JSON.parse(text) };
  } catch {
    return NOT_JSON;
  }
}

/** Serves one POST whose body has already been read as `text` (or parsed: `parseBody`). Never throws. */
export async function handleStreamableHttp<Ctx extends BaseContext>(
  request: Request,
  body: string | ParsedBody,
  options: StreamableHttpOptions<Ctx>,
): Promise<Response> {
  const accept = request.headers.get("accept") ?? "";
  const acceptsSse = accept.includes("text/event-stream");
  const acceptsJson =
    accept.includes("application/json") || accept.includes("*/*") || accept.includes("application/*");
  if (!acceptsSse && !acceptsJson && accept.trim() !== "") {
    return httpRefusal(
      406,
      -32000,
      "Not Acceptable: the client must accept application/json or text/event-stream",
    );
  }
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return httpRefusal(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  }
  const parsedBody = typeof body === "string" ? parseBody(body) : body;
  if (parsedBody === NOT_JSON) {
    return httpRefusal(400, RpcCode.ParseError, "Parse error: the body is not valid JSON");
  }
  const raw = parsedBody.json;
  const batch = Array.isArray(raw);
  const items: unknown[] = batch ? (raw as unknown[]) : [raw];
  if (items.length === 0 || items.length > MAX_BATCH) {
    return httpRefusal(
      400,
      RpcCode.InvalidRequest,
      `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages`,
    );
  }
  const messages: JSONRPCMessage[] = [];
  for (const item of items) {
    // The common request shape needs no schema (message-shape.ts); the rest is the SDK's to judge.
    const plain = plainRequest(item);
    if (plain) {
      messages.push(plain as JSONRPCMessage);
      continue;
    }
    const parsed = JSONRPCMessageSchema.safeParse(item);
    if (!parsed.success) {
      return httpRefusal(
        400,
        RpcCode.InvalidRequest,
        'Invalid Request: expected a JSON-RPC 2.0 message ({"jsonrpc":"2.0","id":…,"method":…})',
      );
    }
    messages.push(parsed.data);
  }
  const initializing = messages.some((m) => "method" in m && m.method === "initialize");
  if (initializing && messages.length > 1) {
    return httpRefusal(400, RpcCode.InvalidRequest, "Invalid Request: initialize must be sent alone");
  }
  const version = request.headers.get("mcp-protocol-version");
  if (!initializing && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return httpRefusal(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  const requests = messages.filter(isRequest);
  if (requests.length === 0) return new Response(null, { status: 202 }); // notifications and responses

  const stream = acceptsSse && wantsStream(requests, options.compiled);
  // Stateless: a setLevel lasts for its own request (a session per request). Object.assign, not
  // `{ ...options, signal, session }`: V8 builds a spread followed by named properties on a slow path;
  // options names none of these fields.
  const envFor = (notify?: MethodEnv<Ctx>["notify"]): MethodEnv<Ctx> => {
    const env: MethodEnv<Ctx> = Object.assign({ signal: request.signal, session: {} }, options);
    if (notify) env.notify = notify;
    return env;
  };
  const answer = async (m: Request_, env: MethodEnv<Ctx>) =>
    mcpResponse(m.id, await handleMethod(m.method, m.params, env));

  if (!stream) {
    const responses = await Promise.all(requests.map((m) => answer(m, envFor())));
    return new Response(JSON.stringify(batch ? responses : responses[0]), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  }

  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let open = true;
  const write = async (message: JSONRPCMessage) => {
    if (!open) return;
    await writer.write(sseEvent(message)).catch(() => {
      open = false; // the client went away; the handlers still finish (and are audited)
    });
  };
  void (async () => {
    await Promise.all(
      requests.map(async (m) => {
        const env = envFor((n) => write({ jsonrpc: "2.0", ...n }));
        await write(await answer(m, env));
      }),
    );
    open = false;
    await writer.close().catch(() => {});
  })();
  return new Response(readable, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform" },
  });
}
