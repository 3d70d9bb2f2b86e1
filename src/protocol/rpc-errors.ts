/**
 * JSON-RPC error objects, built from the one error table (`core/error-table.ts`). Every face sends these
 * exactly as built: the message is the server's own words, never prefixed with "MCP error <code>: " (an
 * SDK client adds that itself, once).
 */
import { ERROR_TABLE, RpcCode } from "../core/error-table.js";
import type { DomainError, FieldError } from "../core/errors.js";

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
  /** The HTTP status `/api/v1/mcp` answers this error with (the MCP faces answer 200, or a stream). */
  status: number;
}

export function rpcError(code: number, message: string, data?: unknown, status = 200): RpcError {
  return data === undefined ? { code, message, status } : { code, message, data, status };
}

/** `data` only when there is something in it. */
function dataOf(details: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(details).length > 0 ? details : undefined;
}

/**
 * DomainError → JSON-RPC error, per the table. An `invalid_input` always carries `data.errors` (possibly
 * empty) so a client can rely on the field; `unavailable` and `internal` carry the correlation id.
 */
export function domainRpcError(error: DomainError, correlationId?: string): RpcError {
  const row = ERROR_TABLE[error.code];
  if (error.code === "invalid_input") {
    return rpcError(
      row.rpc,
      error.message,
      { ...error.details, errors: error.details.errors ?? [] },
      row.rpcStatus,
    );
  }
  if (error.code === "unauthorized") return rpcError(row.rpc, error.message, undefined, row.rpcStatus);
  if (error.code === "internal" || error.code === "unavailable") {
    const data = correlationId === undefined ? dataOf(error.details) : { correlation_id: correlationId };
    return rpcError(row.rpc, error.message, data, row.rpcStatus);
  }
  return rpcError(row.rpc, error.message, dataOf(error.details), row.rpcStatus);
}

/** Params that do not fit a method's schema: -32602 naming each field (`params.arguments`). */
export function invalidParams(method: string, errors: FieldError[]): RpcError {
  const list = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
  return rpcError(RpcCode.InvalidParams, `Invalid params for ${method}: ${list}`, { errors });
}

/** What the client reads about a failure we did not expect; the details go to the log only. */
export function internalMessage(correlationId: string | undefined): string {
  return correlationId === undefined
    ? "Internal error; the details are in the server log."
    : `Internal error (request id ${correlationId}); the details are in the server log.`;
}
