/**
 * `POST /api/v1/mcp`: JSON-RPC 2.0 with MCP method names, no handshake (jsonrpc-api requirements 1–8).
 * Auth, Origin/Host checks and the body limit run before this route (app.ts); this route adds the rate
 * limit and hands the body to the pure dispatcher in protocol/jsonrpc.ts.
 */
import { type Context, Hono } from "hono";
import { dispatchJsonRpc } from "../protocol/jsonrpc.js";
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
import { rateLimit } from "./rate-limit.js";
import { requestText } from "./request-text.js";

export function jsonRpcRoute(deps: FacesDeps): Hono<AppEnv> {
  const compiled = compiledFor(deps);
  const audit = auditFor(deps);
  const defaults = defaultToolsetsFor(deps, compiled);
  const serverInfo = { name: "reqlix", version: deps.version ?? "0.0.0" };
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
    const scope = requestScope(c, deps, audit, "jsonrpc");
    const reply = await dispatchJsonRpc(await requestText(c), {
      compiled,
      toolScope: tools,
      serverInfo,
      context: scope.context,
      correlationId: scope.requestId,
      signal: c.req.raw.signal,
      observe: scope.observe,
      onInternalError: scope.logInternal,
    });
    if (reply.body === null) return c.body(null, 202);
    return c.json(reply.body, reply.status as 200, reply.headers);
  };
  route.post("/", answer(false));
  route.post("/readonly", answer(true));

  // jsonrpc-api 1.1: the endpoint is POST only.
  for (const path of ["/", "/readonly"]) {
    route.all(path, (c) =>
      c.json(
        {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: "Invalid Request: use POST with a JSON-RPC 2.0 body" },
        },
        405,
        { Allow: "POST" },
      ),
    );
  }
  return route;
}
