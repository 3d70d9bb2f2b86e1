/**
 * createApp(deps) → the one Hono app served by Node (src/node.ts) and Workers (src/worker.ts).
 *
 * Middleware order (issue 2): request id (X-Request-Id on every response, access log) → body limit 1 MiB
 * (413; 64 MiB on the trace push) → Origin/Host check on the MCP faces (DNS rebinding) → per-address limit
 * on failed auth → auth (Bearer PAT) on the MCP faces, the admin API and the trace push → routes. Per-token
 * rate limits are applied by the MCP face routes and the admin route themselves. Then the web app (src/web/,
 * its own sessions, CSRF and headers per route). One onError.
 */
import { Hono } from "hono";
import { adminRoute } from "./http/admin-route.js";
import { requireToken } from "./http/auth.js";
import { limitBody } from "./http/body-limit.js";
import type { AppDeps, AppEnv } from "./http/context.js";
import { healthRoute } from "./http/health-route.js";
import {
  DEFAULT_MAX_IMPORT_BODY_BYTES,
  EXPORT_PATH,
  IMPORT_PATH,
  interchangeRoutes,
} from "./http/interchange-route.js";
import { errorJson } from "./http/json-errors.js";
import { jsonRpcRoute } from "./http/jsonrpc-route.js";
import { mcpRoute } from "./http/mcp-route.js";
import { issuerOf } from "./http/oauth-common.js";
import { oauthRoutes } from "./http/oauth-route.js";
import { oauthTokenRoutes } from "./http/oauth-token-route.js";
import { onError } from "./http/on-error.js";
import { originCheck } from "./http/origin-check.js";
import { rateLimitFailedAuth } from "./http/rate-limit.js";
import { requestId } from "./http/request-id.js";
import { DEFAULT_MAX_TRACE_BODY_BYTES, TRACES_PATH, tracesRoute } from "./http/traces-route.js";
import type { WebDeps } from "./web/context.js";
import { webRoutes } from "./web/routes.js";

type FaceDeps = Parameters<typeof mcpRoute>[0] & Parameters<typeof jsonRpcRoute>[0];
/** AppDeps, plus whatever else the MCP faces accept (e.g. the Worker's JSON-schema validator). */
export type CreateAppDeps = AppDeps &
  Omit<FaceDeps, keyof AppDeps> &
  Pick<WebDeps, "signInRateLimiter" | "assets" | "sessionTtlMs" | "oidc" | "github">;

// `/x/*` also matches `/x` in Hono; listing both `/x` and `/x/*` would run each middleware twice on `/x`.
const MCP_PATHS = ["/mcp/*", "/api/v1/mcp/*"];
const PROTECTED_PATHS = [...MCP_PATHS, "/api/v1/admin/*", TRACES_PATH, EXPORT_PATH, IMPORT_PATH];

export function createApp(deps: CreateAppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use("*", requestId({ logger: deps.logger }));
  // A trace push carries up to ~100,000 citations (~20 MB): its own cap instead of the general one.
  const generalLimit = limitBody(deps.maxBodyBytes);
  const traceLimit = limitBody(deps.maxTraceBodyBytes ?? DEFAULT_MAX_TRACE_BODY_BYTES);
  // An import carries a whole file (a 100 MB ReqIF export): its own cap too.
  const importLimit = limitBody(deps.maxImportBodyBytes ?? DEFAULT_MAX_IMPORT_BODY_BYTES);
  app.use("*", (c, next) =>
    c.req.path === TRACES_PATH
      ? traceLimit(c, next)
      : c.req.path === IMPORT_PATH
        ? importLimit(c, next)
        : generalLimit(c, next),
  );
  const checkOrigin = originCheck({
    ...(deps.allowedOrigins ? { allowedOrigins: deps.allowedOrigins } : {}),
    ...(deps.allowedHosts ? { allowedHosts: deps.allowedHosts } : {}),
    logger: deps.logger,
  });
  for (const path of MCP_PATHS) app.use(path, checkOrigin);
  // Per-address limit for callers that fail auth (per-token limits run inside the routes).
  if (deps.rateLimiter) {
    const failedAuth = rateLimitFailedAuth({
      limiter: deps.rateLimiter,
      logger: deps.logger,
      ...(deps.trustedProxies ? { trustedProxies: deps.trustedProxies } : {}),
    });
    for (const path of PROTECTED_PATHS) app.use(path, failedAuth);
  }
  const auth = requireToken({
    database: deps.database,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.tokenCache ? { tokenCache: deps.tokenCache } : {}),
  });
  // The MCP faces also take OAuth access tokens bound to `<issuer>/mcp`; their 401s name the metadata.
  const mcpAuth = requireToken({
    database: deps.database,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.tokenCache ? { tokenCache: deps.tokenCache } : {}),
    oauthIssuer: (c) => issuerOf(c, deps.publicUrl),
  });
  for (const path of PROTECTED_PATHS) app.use(path, MCP_PATHS.includes(path) ? mcpAuth : auth);

  app.route("/", healthRoute(deps));
  app.route("/", oauthRoutes(deps));
  app.route("/", oauthTokenRoutes(deps));
  app.route("/api/v1/admin", adminRoute(deps));
  app.route(TRACES_PATH, tracesRoute(deps));
  app.route("/", interchangeRoutes(deps));
  app.route("/mcp", mcpRoute(deps));
  app.route("/api/v1/mcp", jsonRpcRoute(deps));
  // The web app (issue 13): its own routes only, so API and unknown paths keep their JSON answers.
  app.route("/", webRoutes(deps) as unknown as Hono<AppEnv>);

  app.notFound((c) =>
    errorJson(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}. See the README for the API.`),
  );
  app.onError(onError(deps.logger));
  return app;
}
