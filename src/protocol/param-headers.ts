/**
 * Tool arguments mirrored into HTTP headers (MCP 2026-07-28 Streamable HTTP, SEP-2243): a tool declares
 * them in the registry (`ToolDef.headers`: argument → header name), `tools/list` shows them as
 * `x-mcp-header` on the property, the client sends `Mcp-Param-<Name>: <value>` (or
 * `=?base64?<Base64 of the UTF-8 value>?=` for a value a header cannot hold), and the server refuses a
 * request whose header is missing, badly encoded or disagrees with the body: HTTP 400 with -32020
 * (HeaderMismatch), the revision's code for every header that contradicts the body. The SDK does this only
 * for its high-level McpServer; the registry adapter does it here, from registry data.
 */
import type { BaseContext, ToolDef } from "../core/registry.js";

/** RFC 9110 token: what a header name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SENTINEL_START = "=?base64?";
const SENTINEL_END = "?=";
export const HEADER_MISMATCH = -32020;

/**
 * Checks a tool's declarations when the registry is compiled and returns the listed input schema with
 * `x-mcp-header` on each mirrored property. A declaration the spec does not allow fails the build.
 */
export function withHeaderDeclarations<Ctx extends BaseContext>(
  // biome-ignore lint/suspicious/noExplicitAny: any tool of the registry
  def: ToolDef<Ctx, any, any>,
  inputSchema: Record<string, unknown>,
): Record<string, unknown> {
  if (!def.headers) return inputSchema;
  const properties = { ...(inputSchema.properties as Record<string, Record<string, unknown>>) };
  const seen = new Set<string>();
  for (const [argument, header] of Object.entries(def.headers)) {
    const where = `Tool ${def.name}: header-mirrored argument ${argument}`;
    const property = properties[argument];
    if (!property) throw new Error(`${where} is not one of its arguments`);
    if (!["string", "integer", "boolean"].includes(String(property.type)))
      throw new Error(
        `${where} must be a string, integer or boolean (SEP-2243), is ${String(property.type)}`,
      );
    if (!TOKEN.test(header)) throw new Error(`${where}: "${header}" is not an HTTP header name`);
    if (seen.has(header.toLowerCase())) throw new Error(`${where}: header ${header} is declared twice`);
    seen.add(header.toLowerCase());
    properties[argument] = { ...property, "x-mcp-header": header };
  }
  return { ...inputSchema, properties };
}

/** A header that contradicts the body: what to answer (HTTP 400, -32020). */
export interface HeaderMismatch {
  message: string;
  data: { mismatch: { header: string; body: string } };
}

/** The first `Mcp-Param-*` header of this call that is missing, badly encoded or disagrees; else undefined. */
export function paramHeaderMismatch<Ctx extends BaseContext>(
  // biome-ignore lint/suspicious/noExplicitAny: any tool of the registry
  def: ToolDef<Ctx, any, any>,
  args: unknown,
  headers: Headers,
): HeaderMismatch | undefined {
  if (!def.headers) return undefined;
  const body = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  for (const [argument, name] of Object.entries(def.headers)) {
    const value = body[argument];
    // Only a value the body carries is mirrored; a present header without one is ignored (SEP-2243).
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") continue;
    const header = `Mcp-Param-${name}`;
    const refuse = (why: string): HeaderMismatch => ({
      message: `Bad Request: the ${header} header ${why}; send the argument ${argument} in both, equal (long or non-ASCII values as =?base64?…?=).`,
      data: { mismatch: { header, body: `${argument}=${JSON.stringify(value)}` } },
    });
    const sent = headers.get(header);
    if (sent === null) return refuse(`is missing, but the body carries ${argument}`);
    const decoded = decodeParam(sent);
    if (decoded === undefined)
      return refuse("carries a =?base64?…?= value that is not canonical Base64 of UTF-8");
    const equal =
      typeof value === "number" && /^-?\d+(\.\d+)?$/.test(decoded)
        ? Number(decoded) === value
        : decoded === String(value);
    if (!equal) return refuse(`says ${JSON.stringify(decoded)}, the body ${JSON.stringify(value)}`);
  }
  return undefined;
}

/** A header value as sent: Base64 inside the sentinel, literal otherwise; undefined when undecodable. */
function decodeParam(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END))) return value;
  const b64 = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (!BASE64.test(b64)) return undefined;
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
