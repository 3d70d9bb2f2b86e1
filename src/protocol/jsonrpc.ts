/**
 * `POST /api/v1/mcp`: plain JSON-RPC 2.0 with MCP method names and no handshake, over the same compiled
 * registry as `/mcp`. Pure: text in, `{status, body}` out; the HTTP route only moves bytes. Errors follow
 * DESIGN's table: the HTTP status is 400/401/403/429/500 where the table names one, and 200 for errors the
 * JSON-RPC body describes fully (-32601, -32602, -32002, -32009).
 *
 * Batches are refused (-32600): MCP 2025-06-18 removed JSON-RPC batching, and one HTTP status per request
 * keeps the table's statuses meaningful.
 */
import { RpcCode } from "../core/error-table.js";
import type { BaseContext } from "../core/registry.js";
import type { CompiledRegistry } from "./compile.js";
import { handleMethod, type MethodEnv } from "./methods.js";
import type { Operation, OperationObserver } from "./operations.js";
import type { ToolScope } from "./tool-selection.js";

export type JsonRpcId = string | number;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: JsonRpcId; result: unknown }
  | { jsonrpc: "2.0"; id: JsonRpcId | null; error: JsonRpcErrorObject };

/** What the route sends: a status and, unless it is a notification's 202, one JSON-RPC response. */
export interface JsonRpcReply {
  status: number;
  body: JsonRpcResponse | null;
  headers?: Record<string, string>;
}

/** @deprecated the codes live in core/error-table.ts (`RpcCode`); kept for existing importers. */
export const JsonRpcCode = RpcCode;

export function errorReply(
  status: number,
  code: number,
  message: string,
  data?: unknown,
  id: JsonRpcId | null = null,
  headers?: Record<string, string>,
): JsonRpcReply {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { status, body: { jsonrpc: "2.0", id, error }, ...(headers ? { headers } : {}) };
}

export interface JsonRpcOptions<Ctx extends BaseContext> {
  compiled: CompiledRegistry<Ctx>;
  serverInfo: { name: string; version: string };
  /** The connection's toolsets, read-only mode, role and write scope (tool-selection.ts); absent: every tool. */
  toolScope?: ToolScope;
  /** Builds the handler context (the caller, the database) for this request; `op`: see operations.ts. */
  context(base: BaseContext, op?: Operation): Ctx;
  /** The request id: returned as `data.correlation_id` on internal errors so a log line can be found. */
  correlationId: string;
  signal?: AbortSignal;
  /** Told once about every tools/call, resources/read and prompts/get (the audit trail). */
  observe?: OperationObserver;
  /** Logs a failure that is not a DomainError, with its stack; the client only sees the correlation id. */
  onInternalError(error: unknown, where: string): void;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Parses one HTTP body and answers it. Never throws. */
export async function dispatchJsonRpc<Ctx extends BaseContext>(
  body: string,
  options: JsonRpcOptions<Ctx>,
): Promise<JsonRpcReply> {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return errorReply(400, RpcCode.ParseError, "Parse error: the body is not valid JSON");
  }
  if (Array.isArray(message)) {
    return errorReply(
      400,
      RpcCode.InvalidRequest,
      "Invalid Request: batches are not supported; send one JSON-RPC request per HTTP request",
    );
  }
  if (!isPlainObject(message)) {
    return errorReply(400, RpcCode.InvalidRequest, "Invalid Request: expected a JSON-RPC 2.0 request object");
  }
  const hasId = "id" in message;
  const id = isId(message.id) ? message.id : null;
  const problems: string[] = [];
  if (message.jsonrpc !== "2.0") problems.push('"jsonrpc" must be "2.0"');
  if (typeof message.method !== "string" || message.method.length === 0)
    problems.push('"method" must be a string');
  if (hasId && !isId(message.id)) problems.push('"id" must be a string or a number');
  if ("params" in message && message.params !== undefined && !isPlainObject(message.params)) {
    problems.push('"params" must be an object of named parameters');
  }
  if (problems.length > 0) {
    return errorReply(400, RpcCode.InvalidRequest, `Invalid Request: ${problems.join("; ")}`, undefined, id);
  }
  const method = message.method as string;
  // No stream and no session on this face: no notifications, no logging/setLevel.
  const env: MethodEnv<Ctx> = {
    compiled: options.compiled,
    serverInfo: options.serverInfo,
    context: options.context,
    onInternalError(error, where) {
      options.onInternalError(error, where);
      return undefined;
    },
    correlationId: options.correlationId,
    signal: options.signal ?? new AbortController().signal,
  };
  // Set only when given (exactOptionalPropertyTypes), without a temporary object per request.
  if (options.observe) env.observe = options.observe;
  if (options.toolScope) env.toolScope = options.toolScope;

  if (!hasId) {
    // A notification: never answered (JSON-RPC 2.0 §4.1). MCP's own notifications need nothing from a
    // stateless server; any other method still runs (and is audited), its result discarded.
    if (!method.startsWith("notifications/")) await handleMethod(method, message.params, env);
    return { status: 202, body: null };
  }

  const outcome = await handleMethod(method, message.params, env);
  if (outcome.ok)
    return { status: 200, body: { jsonrpc: "2.0", id: id as JsonRpcId, result: outcome.result } };
  const { error } = outcome;
  return errorReply(error.status, error.code, error.message, error.data, id);
}
