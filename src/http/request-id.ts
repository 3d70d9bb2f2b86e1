/**
 * Gives every request an id (X-Request-Id on every response, DESIGN) and writes one access-log line per
 * request. A caller's own X-Request-Id is kept when it is short and plain, so ids correlate across proxies;
 * anything else is replaced by a generated id, because the id is echoed, logged and stored in
 * `audit_events.request_id`: a token pasted into the header must not land there in clear.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv, Logger } from "./context.js";

const SAFE_ID = /^[A-Za-z0-9._-]{8,64}$/;
/** 32+ letters and digits mixing both cases: a base62 token body (rqx_ + 43), with or without its prefix. */
const BASE62_RUN = /[A-Za-z0-9]{32,}/g;

/**
 * Whether a client's X-Request-Id may be kept: 8-64 of `[A-Za-z0-9._-]` and not token-shaped (no `rqx_`,
 * no long run of mixed-case letters and digits). Hex ids (nginx's `$request_id`) and UUIDs pass.
 */
export function acceptableRequestId(value: string): boolean {
  if (!SAFE_ID.test(value) || /rqx_/i.test(value)) return false;
  for (const [run] of value.matchAll(BASE62_RUN)) {
    if (/[a-z]/.test(run) && /[A-Z]/.test(run)) return false;
  }
  return true;
}

export function requestId(options: { logger: Logger; clock?: () => Date }): MiddlewareHandler<AppEnv> {
  const { logger } = options;
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header("x-request-id");
    const id = incoming && acceptableRequestId(incoming) ? incoming : crypto.randomUUID();
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
