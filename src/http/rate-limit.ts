/**
 * Rate limits for `/mcp` and `/api/v1/mcp`: per token when the caller is authenticated, per client IP when not
 * (jsonrpc-api 4.7). Past the limit: HTTP 429 with `Retry-After` and a JSON-RPC error -32029, the same on both
 * faces (DESIGN's error table). The engine is injected: in-process on Node, the Workers binding on Cloudflare.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, Logger, RateLimiter } from "./context.js";

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/** `REQLIX_RATE_LIMIT` → requests per minute; unset → the default; anything but a positive integer is refused. */
export function parseRateLimit(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_RATE_LIMIT_PER_MINUTE;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`REQLIX_RATE_LIMIT must be a positive integer (requests per minute), got "${value}"`);
  }
  return n;
}

/**
 * The caller's address. On Node the socket's peer address (a client-sent header must not choose its own
 * bucket); on Workers `CF-Connecting-IP`, which Cloudflare sets and clients cannot override.
 */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  if (incoming) return incoming.socket?.remoteAddress ?? "unknown";
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

export function rateLimitKey(c: Context<AppEnv>): string {
  const auth = c.get("auth") as AppEnv["Variables"]["auth"] | undefined;
  return auth ? `token:${auth.tokenId}` : `ip:${clientAddress(c)}`;
}

export function rateLimitedResponse(retryAfterSeconds: number): Response {
  const body = {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: -32029,
      message: `Rate limit exceeded. Retry after ${retryAfterSeconds} seconds.`,
      data: { retry_after_seconds: retryAfterSeconds },
    },
  };
  return new Response(JSON.stringify(body), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": String(retryAfterSeconds) },
  });
}

export function rateLimit(options: { limiter: RateLimiter; logger?: Logger }): MiddlewareHandler<AppEnv> {
  const { limiter, logger } = options;
  return async function rateLimitMiddleware(c, next) {
    const key = rateLimitKey(c);
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
      return rateLimitedResponse(verdict.retryAfterSeconds);
    }
    return next();
  };
}

/**
 * The per-IP limit for unauthenticated callers (jsonrpc-api 4.7, 4.8): mounted before auth, it counts the
 * requests that auth refused (401) per client address; once an address is over the limit (the refusal past
 * it is still a 401), its requests are refused with 429 before auth runs, until the engine's Retry-After has
 * passed. A valid token from a blocked address waits too: the address, not the token, earned the block. Authenticated traffic is
 * limited per token by `rateLimit` and never counts here.
 */
export function rateLimitFailedAuth(options: {
  limiter: RateLimiter;
  logger?: Logger;
  now?: () => number;
  /** Blocked addresses remembered at most (oldest forgotten first). */
  maxBlocked?: number;
}): MiddlewareHandler<AppEnv> {
  const { limiter, logger } = options;
  const now = options.now ?? Date.now;
  const maxBlocked = options.maxBlocked ?? 10_000;
  const blockedUntil = new Map<string, number>();
  return async function failedAuthLimitMiddleware(c, next) {
    const key = `ip:${clientAddress(c)}`;
    const until = blockedUntil.get(key);
    if (until !== undefined) {
      const wait = until - now();
      if (wait > 0) return rateLimitedResponse(Math.ceil(wait / 1000));
      blockedUntil.delete(key);
    }
    await next();
    if (c.res.status !== 401) return;
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
