/**
 * `/mcp` for MCP 2026-07-28 beside the older revisions. The SDK v2's own classifier (`isLegacyRequest`)
 * decides per request: a request carrying the 2026-07-28 envelope (`_meta` with
 * `io.modelcontextprotocol/protocolVersion`, or a modern `MCP-Protocol-Version` header) goes to the v2
 * handler, which checks the envelope and the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers
 * against the body before any server is built; everything else (initialize and the 2025 era) stays on the
 * legacy adapter. One handler per app; each request builds a fresh v2 `Server` over the compiled registry,
 * behind the same auth, rate limit, audit and request scope as the legacy path.
 */
import { createMcpHandler, isLegacyRequest, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import type { HostedContext } from "../hosted/context.js";
import { plainRequest } from "../protocol/message-shape.js";
import {
  createModernServer,
  type ModernServerConfig,
  NO_INPUT_VALIDATION,
} from "../protocol/modern/server.js";
import { HEADER_MISMATCH, paramHeaderMismatch } from "../protocol/param-headers.js";
import { ephemeralStateKey, stateKeyFrom } from "../protocol/request-state.js";
import { NOT_JSON, type ParsedBody } from "../protocol/streamable-http.js";
import type { ToolScope } from "../protocol/tool-selection.js";
import type { AppEnv } from "./context.js";
import { auditFor, compiledFor, type FacesDeps, type RequestScope, requestScope } from "./faces-common.js";

export interface ModernMcp {
  /**
   * The parsed body when the request belongs to the 2026-07-28 path; undefined for every other request
   * (a body that is not JSON included: the 2025 path answers it with -32700, as before).
   */
  modernBody(request: Request, body: ParsedBody): Promise<{ parsed: unknown } | undefined>;
  /** `tools`: the connection's tool scope (toolsets, read-only, role, write scope), as on the 2025 path. */
  serve(c: Context<AppEnv>, parsed: unknown, tools: ToolScope): Promise<Response>;
}

const LEGACY_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * What the SDK's classifier says of the common 2025 request without running its three zod schemas: a
 * request of the plain shape (protocol/message-shape.ts: no `_meta`, hence no envelope claim) under no
 * `MCP-Protocol-Version` or a 2025-era one is legacy (`classifyRequestBody`: no claim and no modern header).
 * False means "ask the SDK", never "modern" (test/protocol/message-shape.test.ts checks it against
 * `isLegacyRequest`).
 */
export function plainLegacy(request: Request, parsed: unknown): boolean {
  if (plainRequest(parsed) === undefined) return false;
  const version = request.headers.get("mcp-protocol-version");
  return version === null || LEGACY_VERSIONS.has(version);
}

export function modernMcp(deps: FacesDeps): ModernMcp {
  // One validator for every per-request server; the SDK would otherwise build its default (ajv) per request.
  const jsonSchemaValidator: ModernServerConfig<HostedContext>["jsonSchemaValidator"] =
    deps.jsonSchemaValidator ?? NO_INPUT_VALIDATION;
  const compiled = compiledFor(deps);
  const audit = auditFor(deps);
  const serverInfo = { name: "reqlix", version: deps.version ?? "0.0.0" };
  const clock = deps.clock;
  // Derived once per app, on first use (Web Crypto is asynchronous).
  let stateKey: Promise<CryptoKey> | undefined;
  const key = () =>
    (stateKey ??= deps.requestStateSecret ? stateKeyFrom(deps.requestStateSecret) : ephemeralStateKey());
  // The factory is called with the very Request handed to fetch; the request's scope hangs on it.
  const scopes = new WeakMap<Request, { scope: RequestScope; tools: ToolScope; caller: string }>();
  const handler = createMcpHandler(
    ({ requestInfo }) => {
      const found = requestInfo ? scopes.get(requestInfo) : undefined;
      if (!found) throw new Error("modern /mcp: no request scope for this request");
      const { scope, tools, caller } = found;
      return createModernServer<HostedContext>({
        compiled,
        serverInfo,
        toolScope: tools,
        context: scope.context,
        observe: scope.observe,
        correlationId: scope.requestId,
        onInternalError(error, where) {
          scope.logInternal(error, where);
          return `Internal error (request id ${scope.requestId}); the details are in the server log.`;
        },
        jsonSchemaValidator,
        inputState: {
          key: key(),
          caller,
          ...(clock ? { now: () => clock().getTime() } : {}),
        },
      });
    },
    {
      legacy: "reject",
      onerror(error) {
        // Refused requests (bad envelope, header mismatch) are the client's mistake: logged, not alarmed.
        deps.logger.log("info", "mcp 2026-07-28 request refused or failed", { error: error.message });
      },
    },
  );

  /** A tools/call whose `Mcp-Param-*` headers disagree with its arguments: the JSON-RPC error body. */
  function headerMismatch(parsed: unknown, headers: Headers) {
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { id, method, params } = parsed as {
      id?: unknown;
      method?: unknown;
      params?: Record<string, unknown>;
    };
    if (method !== "tools/call" || typeof params?.name !== "string") return undefined;
    const tool = compiled.tools.get(params.name);
    const mismatch = tool && paramHeaderMismatch(tool.def, params.arguments, headers);
    if (!mismatch) return undefined;
    return { jsonrpc: "2.0", id: id ?? null, error: { code: HEADER_MISMATCH, ...mismatch } };
  }

  return {
    async modernBody(request, body) {
      if (body === NOT_JSON) return undefined;
      const parsed = body.json;
      if (plainLegacy(request, parsed)) return undefined;
      return (await isLegacyRequest(request, parsed)) ? undefined : { parsed };
    },
    async serve(c, parsed, tools) {
      const mismatch = headerMismatch(parsed, c.req.raw.headers);
      if (mismatch) return c.json(mismatch, 400);
      const scope = requestScope(c, deps, audit, "mcp");
      const request = c.req.raw;
      const auth = c.get("auth");
      // A requestState is good only for the credential that was asked (protocol/request-state.ts).
      const caller = `workspace ${auth.workspaceId} user ${auth.userId} token ${auth.tokenId}`;
      scopes.set(request, { scope, tools, caller });
      return handler.fetch(request, { parsedBody: parsed });
    },
  };
}
