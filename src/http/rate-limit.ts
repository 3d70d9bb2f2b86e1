/**
 * Rate limits: per token on `/mcp` and `/api/v1/mcp` (counted across both faces) and, in a bucket of its
 * own, on the admin API; per client address for requests that fail auth (jsonrpc-api 4.7). Past the limit:
 * HTTP 429 with `Retry-After`; a JSON-RPC error -32029 on the MCP faces (DESIGN's error table), `{error}`
 * with code `rate_limited` on the admin API. The engine is injected: in-process on Node, the Workers
 * binding on Cloudflare.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { IpRange } from "../core/ip-ranges.js";
import { isAccessToken } from "../core/oauth.js";
import { isWellFormedToken } from "../core/tokens.js";
import { bearerValue } from "./auth.js";
import { clientAddress } from "./client-address.js";
import type { AppEnv, Logger, RateLimiter } from "./context.js";
import { errorBody } from "./json-errors.js";

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/**
 * Requests per minute per token on the admin API (REQLIX_ADMIN_RATE_LIMIT): room for a provisioning script
 * (two requests per user: member, token), far below what scripted abuse of a leaked admin token wants.
 */
export const DEFAULT_ADMIN_RATE_LIMIT_PER_MINUTE = 300;

/**
 * `REQLIX_RATE_LIMIT` (or `name`) → requests per minute; unset → the default; anything but a positive
 * integer is refused.
 */
export function parseRateLimit(
  value: string | undefined,
  name = "REQLIX_RATE_LIMIT",
  fallback = DEFAULT_RATE_LIMIT_PER_MINUTE,
): number {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`${name} must be a positive integer (requests per minute), got "${value}"`);
  }
  return n;
}

/** `REQLIX_ADMIN_RATE_LIMIT` → admin API requests per minute per token; default 300. */
export function parseAdminRateLimit(value: string | undefined): number {
  return parseRateLimit(value, "REQLIX_ADMIN_RATE_LIMIT", DEFAULT_ADMIN_RATE_LIMIT_PER_MINUTE);
}

/** The per-token bucket of the MCP faces; `prefix` gives another face (the admin API) its own. */
export function rateLimitKey(c: Context<AppEnv>, prefix = ""): string {
  return `${prefix}token:${c.get("auth").tokenId}`;
}

/** 429 in the shape of `path`'s face: JSON-RPC -32029 on the MCP paths, `{error}` elsewhere. */
export function rateLimitedResponse(retryAfterSeconds: number, path: string): Response {
  const body = errorBody(
    path,
    "rate_limited",
    `Rate limit exceeded. Retry after ${retryAfterSeconds} seconds.`,
    {
      retry_after_seconds: retryAfterSeconds,
    },
  );
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": String(retryAfterSeconds) },
  });
}

/** Per-token limit; mounted after auth. `keyPrefix` separates the admin API's bucket from the MCP faces'. */
export function rateLimit(options: {
  limiter: RateLimiter;
  logger?: Logger;
  keyPrefix?: string;
}): MiddlewareHandler<AppEnv> {
  const { limiter, logger } = options;
  return async function rateLimitMiddleware(c, next) {
    const key = rateLimitKey(c, options.keyPrefix);
    let verdict: Awaited<ReturnType<RateLimiter["hit"]>>;
    try {
      verdict = await limiter.hit(key);
    } catch (error) {
      // A broken limiter must not take the service down with it: let the request through, loudly.
      logger?.log("error", "rate limiter failed; request allowed", {
        requestId: c.get("requestId"),
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      return next();
    }
    if (!verdict.ok) {
      logger?.log("warn", "rate limit exceeded", { requestId: c.get("requestId"), key });
      return rateLimitedResponse(verdict.retryAfterSeconds, c.req.path);
    }
    return next();
  };
}

/**
 * The per-address limit for requests that fail auth (jsonrpc-api 4.7, 4.8), mounted before auth: it counts
 * the requests auth refused (401) per client address; once an address is over the limit (the refusal past
 * it is still a 401), its failing requests get 429 until the engine's Retry-After has passed. A valid token
 * from a blocked address is still served: behind a proxy or NAT one stale client shares its address with
 * the whole team, and authenticated traffic has its own per-token limit (`rateLimit`). So a blocked
 * address's request is refused before auth only when it carries no well-formed token (nothing to look
 * up); one with a token goes through auth, and a refusal becomes a 429.
 */
export function rateLimitFailedAuth(options: {
  limiter: RateLimiter;
  logger?: Logger;
  now?: () => number;
  /** Blocked addresses remembered at most (oldest forgotten first). */
  maxBlocked?: number;
  /** Reverse proxies whose X-Forwarded-For names the client (REQLIX_TRUSTED_PROXIES); none → the peer. */
  trustedProxies?: readonly IpRange[];
}): MiddlewareHandler<AppEnv> {
  const { limiter, logger } = options;
  const now = options.now ?? Date.now;
  const maxBlocked = options.maxBlocked ?? 10_000;
  const trusted = options.trustedProxies ?? [];
  const blockedUntil = new Map<string, number>();
  const secondsBlocked = (key: string): number | undefined => {
    const until = blockedUntil.get(key);
    if (until === undefined) return undefined;
    const wait = until - now();
    if (wait > 0) return Math.ceil(wait / 1000);
    blockedUntil.delete(key);
    return undefined;
  };
  return async function failedAuthLimitMiddleware(c, next) {
    const key = `ip:${clientAddress(c, trusted)}`;
    const blocked = secondsBlocked(key);
    if (blocked !== undefined) {
      const token = bearerValue(c.req.header("authorization"));
      if (token === undefined || !(isWellFormedToken(token) || isAccessToken(token)))
        return rateLimitedResponse(blocked, c.req.path);
      await next();
      if (refusedByAuth(c)) c.res = rateLimitedResponse(secondsBlocked(key) ?? blocked, c.req.path);
      return;
    }
    await next();
    if (!refusedByAuth(c)) return;
    try {
      const verdict = await limiter.hit(key);
      if (!verdict.ok) {
        if (blockedUntil.size >= maxBlocked) blockedUntil.delete(blockedUntil.keys().next().value as string);
        blockedUntil.set(key, now() + verdict.retryAfterSeconds * 1000);
        logger?.log("warn", "too many unauthenticated requests; address blocked", {
          requestId: c.get("requestId"),
          key,
          retryAfterSeconds: verdict.retryAfterSeconds,
        });
      }
    } catch (error) {
      logger?.log("error", "rate limiter failed", { requestId: c.get("requestId"), error: String(error) });
    }
  };
}

/** A 401 that auth gave (a request auth let through has `auth` set, whatever its route answered). */
function refusedByAuth(c: Context<AppEnv>): boolean {
  return c.res.status === 401 && (c.get("auth") as AppEnv["Variables"]["auth"] | undefined) === undefined;
}
