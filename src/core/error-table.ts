/**
 * The one error table (docs/ARCHITECTURE.md, "Errors"): each DomainError code → its JSON-RPC code, the HTTP
 * status of the plain JSON-RPC face (`POST /api/v1/mcp`: 200 where the JSON-RPC body says everything, the
 * table's status where HTTP has a word for it), and the HTTP status of the REST-shaped routes (admin API,
 * interchange, web). Every face reads it; none keeps its own copy.
 */
import type { DomainErrorCode } from "./errors.js";

export interface ErrorRow {
  /** JSON-RPC error code on every MCP face (`/mcp`, stdio, `/api/v1/mcp`). */
  rpc: number;
  /** HTTP status of a JSON-RPC error answer on `/api/v1/mcp` (and of an HTTP-level refusal on `/mcp`). */
  rpcStatus: 200 | 401 | 403 | 429 | 500 | 503;
  /** HTTP status on the REST-shaped routes (admin API, interchange, web pages). */
  status: 400 | 401 | 403 | 404 | 409 | 429 | 500 | 503;
}

export const ERROR_TABLE: Readonly<Record<DomainErrorCode, ErrorRow>> = {
  invalid_input: { rpc: -32602, rpcStatus: 200, status: 400 },
  not_found: { rpc: -32002, rpcStatus: 200, status: 404 },
  conflict: { rpc: -32009, rpcStatus: 200, status: 409 },
  forbidden: { rpc: -32003, rpcStatus: 403, status: 403 },
  unauthorized: { rpc: -32001, rpcStatus: 401, status: 401 },
  rate_limited: { rpc: -32029, rpcStatus: 429, status: 429 },
  unavailable: { rpc: -32603, rpcStatus: 503, status: 503 },
  internal: { rpc: -32603, rpcStatus: 500, status: 500 },
};

/** JSON-RPC 2.0's own codes and MCP's, for the errors no DomainError stands behind. */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  Unauthorized: -32001,
  NotFound: -32002,
  Forbidden: -32003,
  Conflict: -32009,
  RateLimited: -32029,
} as const;
