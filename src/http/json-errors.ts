/**
 * Error bodies of the HTTP faces. MCP paths (`/mcp`, `/api/v1/mcp`) answer in the JSON-RPC envelope
 * (`id: null`, DESIGN's error table); the admin API and the rest answer `{ error: { code, message, … } }`.
 */
import type { Context } from "hono";
import { ERROR_TABLE, type ErrorRow } from "../core/error-table.js";
import type { DomainErrorCode, DomainErrorDetails } from "../core/errors.js";

/** JSON-RPC code per DomainError code, from the one error table (core/error-table.ts). */
export const JSONRPC_CODES = Object.fromEntries(
  Object.entries(ERROR_TABLE).map(([code, row]) => [code, row.rpc]),
) as Record<DomainErrorCode, number>;

/** HTTP status per DomainError code on the REST-shaped routes, from the one error table. */
export const HTTP_STATUS = Object.fromEntries(
  Object.entries(ERROR_TABLE).map(([code, row]) => [code, row.status]),
) as Record<DomainErrorCode, ErrorRow["status"]>;

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
