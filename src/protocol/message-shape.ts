/**
 * The shape almost every MCP request has, recognised without zod (issue 16: on `/mcp` one tools/call was
 * checked by four SDK zod schemas — the v2 classifier's three and the v1 message union — before our own
 * params check; each is a few µs of a read that costs a few hundred).
 *
 * `plainRequest` accepts a subset of what the SDKs' `JSONRPCRequestSchema` accepts (v1 and v2 define it
 * alike: strict `{jsonrpc: "2.0", id: string | integer, method: string, params?: loose object}`), and only
 * when `params` carries no `_meta`: the one part whose checks (progress token, the 2026-07-28 envelope) are
 * worth leaving to the SDK. Anything else is undefined and goes through the SDK's schemas as before, so a
 * fast path never answers differently from the slow one (test/protocol/message-shape.test.ts holds both
 * to the SDKs' own verdicts).
 */

export interface PlainRequest {
  jsonrpc: "2.0";
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The message as a request when it has the plain shape (see above); undefined otherwise. */
export function plainRequest(value: unknown): PlainRequest | undefined {
  if (!isPlainObject(value)) return undefined;
  let keys = 0;
  for (const key in value) {
    if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return undefined;
    keys++;
  }
  const { jsonrpc, id, method, params } = value;
  if (jsonrpc !== "2.0" || typeof method !== "string") return undefined;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (params === undefined) {
    if (keys !== 3) return undefined; // `params` present with no value cannot come from JSON
  } else if (!isPlainObject(params) || "_meta" in params || Object.hasOwn(params, "__proto__")) {
    return undefined; // zod copies params into a new object, where a "__proto__" key does not survive
  }
  return value as unknown as PlainRequest;
}

/**
 * tools/call's params when they have the plain shape of the SDK's `CallToolRequestParamsSchema`: a string
 * `name`, `arguments` absent or an object (without a `__proto__` key, which the schema's copy drops), and
 * neither `_meta` nor `task` (left to the schema). Other keys are ignored, as the schema strips them.
 */
export function plainCallParams(
  params: unknown,
): { name: string; arguments?: Record<string, unknown> } | undefined {
  if (!isPlainObject(params) || typeof params.name !== "string") return undefined;
  if ("_meta" in params || "task" in params) return undefined;
  const args = params.arguments;
  if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, "__proto__"))) return undefined;
  return args === undefined ? { name: params.name } : { name: params.name, arguments: args };
}
