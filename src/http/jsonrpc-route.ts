/**
 * `POST /api/v1/mcp`: JSON-RPC 2.0 with MCP method names, no handshake (jsonrpc-api requirements 1–8).
 * Auth, Origin/Host checks and the body limit run before this route (app.ts); this route adds the rate
 * limit and hands the body to the pure dispatcher in protocol/jsonrpc.ts.
 */
import { Hono } from "hono";
import { dispatchJsonRpc } from "../protocol/jsonrpc.js";
import type { AppEnv } from "./context.js";
import { auditFor, compiledFor, type FacesDeps, requestScope } from "./faces-common.js";
import { rateLimit } from "./rate-limit.js";

export function jsonRpcRoute(deps: FacesDeps): Hono<AppEnv> {
  const compiled = compiledFor(deps);
  const audit = auditFor(deps);
  const serverInfo = { name: "reqlix", version: deps.version ?? "0.0.0" };
  const route = new Hono<AppEnv>();
  if (deps.rateLimiter) route.use("*", rateLimit({ limiter: deps.rateLimiter, logger: deps.logger }));

  route.post("/", async (c) => {
    const scope = requestScope(c, deps, audit, "jsonrpc");
    const reply = await dispatchJsonRpc(await c.req.text(), {
      compiled,
      serverInfo,
      context: scope.context,
      correlationId: scope.requestId,
      signal: c.req.raw.signal,
      observe: scope.observe,
      onInternalError: scope.logInternal,
    });
    if (reply.body === null) return c.body(null, 202);
    return c.json(reply.body, reply.status as 200, reply.headers);
  });

  // jsonrpc-api 1.1: the endpoint is POST only.
  route.all("/", (c) =>
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
  return route;
}
