/**
 * `/mcp`: stateless Streamable HTTP (protocol/streamable-http.ts) over the registry compiled once at app
 * build: a request builds nothing but its answer. A request in MCP 2026-07-28's envelope goes to the SDK v2
 * adapter instead (http/mcp-modern.ts). GET (a standalone SSE stream) and DELETE (ending a
 * session) mean nothing without sessions: 405. `/mcp/readonly`, `?toolsets=`, `X-MCP-Toolsets` and
 * `X-MCP-Readonly` choose the connection's tools in both eras (protocol/tool-selection.ts).
 */
import { type Context, Hono } from "hono";
import type { HostedContext } from "../hosted/context.js";
import { handleStreamableHttp, parseBody } from "../protocol/streamable-http.js";
import type { ToolScope } from "../protocol/tool-selection.js";
import type { AppEnv } from "./context.js";
import {
  auditFor,
  compiledFor,
  defaultToolsetsFor,
  type FacesDeps,
  requestScope,
  scopeRefused,
  toolScopeOf,
} from "./faces-common.js";
import { modernMcp } from "./mcp-modern.js";
import { rateLimit } from "./rate-limit.js";
import { requestText } from "./request-text.js";

function methodNotAllowed(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: "Method not allowed: this stateless server takes POST only (no sessions, no GET stream)",
      },
    }),
    { status: 405, headers: { "content-type": "application/json", allow: "POST" } },
  );
}

export function mcpRoute(deps: FacesDeps): Hono<AppEnv> {
  const compiled = compiledFor(deps);
  const audit = auditFor(deps);
  const defaults = defaultToolsetsFor(deps, compiled);
  const serverInfo = { name: "reqlix", version: deps.version ?? "0.0.0" };
  const modern = modernMcp(deps);
  const route = new Hono<AppEnv>();
  if (deps.rateLimiter) route.use("*", rateLimit({ limiter: deps.rateLimiter, logger: deps.logger }));

  // `/readonly`: the same face with no write tool listed or callable (protocol/tool-selection.ts).
  const answer = (readOnlyPath: boolean) => async (c: Context<AppEnv>) => {
    let tools: ToolScope;
    try {
      tools = toolScopeOf(c, compiled, defaults, readOnlyPath);
    } catch (error) {
      return scopeRefused(c, error);
    }
    // Parsed once for both eras' classification and the 2025 adapter.
    const body = parseBody(await requestText(c));
    const modernBody = await modern.modernBody(c.req.raw, body);
    if (modernBody) return modern.serve(c, modernBody.parsed, tools);
    const scope = requestScope(c, deps, audit, "mcp");
    return handleStreamableHttp<HostedContext>(c.req.raw, body, {
      compiled,
      serverInfo,
      toolScope: tools,
      context: scope.context,
      observe: scope.observe,
      correlationId: scope.requestId,
      onInternalError(error, where) {
        scope.logInternal(error, where);
        return undefined;
      },
    });
  };
  route.post("/", answer(false));
  route.post("/readonly", answer(true));

  for (const path of ["/", "/readonly"]) {
    route.get(path, methodNotAllowed);
    route.delete(path, methodNotAllowed);
  }
  return route;
}
