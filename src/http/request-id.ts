/**
 * Gives every request an id (X-Request-Id on every response, DESIGN) and writes one access-log line per
 * request. A caller's own X-Request-Id is kept when it is short and plain, so ids correlate across proxies.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv, Logger } from "./context.js";

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestId(options: { logger: Logger; clock?: () => Date }): MiddlewareHandler<AppEnv> {
  const { logger } = options;
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header("x-request-id");
    const id = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", id);
    const started = performance.now();
    await next();
    try {
      c.res.headers.set("X-Request-Id", id);
    } catch {
      // Some responses (e.g. proxied fetches) have immutable headers: copy once to add ours.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("X-Request-Id", id);
    }
    const auth = c.get("auth") as AppEnv["Variables"]["auth"] | undefined;
    logger.log(c.res.status >= 500 ? "error" : "info", "request", {
      requestId: id,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      ...(auth ? { user: auth.username, workspace: auth.workspaceSlug, tokenId: auth.tokenId } : {}),
    });
  };
}
