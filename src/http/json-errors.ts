/**
 * Error bodies of the HTTP faces. MCP paths (`/mcp`, `/api/v1/mcp`) answer in the JSON-RPC envelope
 * (`id: null`, DESIGN's error table); the admin API and the rest answer `{ error: { code, message, … } }`.
 */
import type { Context } from "hono";
import type { DomainErrorCode, DomainErrorDetails } from "../core/errors.js";

export const JSONRPC_CODES: Record<DomainErrorCode, number> = {
  invalid_input: -32602,
  not_found: -32002,
  conflict: -32009,
  forbidden: -32003,
  unauthorized: -32001,
  rate_limited: -32029,
  unavailable: -32603,
  internal: -32603,
};

export const HTTP_STATUS: Record<DomainErrorCode, 400 | 401 | 403 | 404 | 409 | 429 | 500 | 503> = {
  invalid_input: 400,
  not_found: 404,
  conflict: 409,
  forbidden: 403,
  unauthorized: 401,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

export function isMcpPath(path: string): boolean {
  return (
    path === "/mcp" || path.startsWith("/mcp/") || path === "/api/v1/mcp" || path.startsWith("/api/v1/mcp/")
  );
}

/** The body for an error on `path`: JSON-RPC envelope on MCP paths, `{error}` elsewhere. */
export function errorBody(
  path: string,
  code: DomainErrorCode | string,
  message: string,
  details: DomainErrorDetails = {},
  jsonRpcCode?: number,
): unknown {
  if (isMcpPath(path)) {
    const rpcCode = jsonRpcCode ?? JSONRPC_CODES[code as DomainErrorCode] ?? -32603;
    const hasData = Object.keys(details).length > 0;
    return {
      jsonrpc: "2.0",
      id: null,
      error: { code: rpcCode, message, ...(hasData ? { data: details } : {}) },
    };
  }
  return { error: { code, message, ...details } };
}

export function errorJson(
  c: Context,
  status: number,
  code: DomainErrorCode | string,
  message: string,
  details: DomainErrorDetails = {},
  jsonRpcCode?: number,
): Response {
  return c.json(errorBody(c.req.path, code, message, details, jsonRpcCode), status as 400);
}
