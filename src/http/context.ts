/**
 * The contract between the app's parts: what middleware puts on the Hono context, and what `createApp`
 * receives from an entry (Node or Workers). Entries are thin; everything runtime-specific comes in here.
 */
import type { IpRange } from "../core/ip-ranges.js";
import type { Database } from "../db/database.js";
import type { TokenCache } from "./token-cache.js";

/** @deprecated AuthInfo lives in core/auth-info.ts: import it from there (kept so open branches still build). */
export type { AuthInfo } from "../core/auth-info.js";

import type { AuthInfo } from "../core/auth-info.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

/** JSON-lines logger. Implementations redact anything that looks like a token (`rqx_…`, Bearer values). */
export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

/** One interface, two engines (Workers Rate Limiting binding; in-process on Node). */
export interface RateLimiter {
  /** Counts one request for `key`; `ok: false` with the seconds to wait when over the limit. */
  hit(key: string): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }>;
}

export interface AppVariables {
  requestId: string;
  /** Present after the auth middleware on protected routes. */
  auth: AuthInfo;
}

export type AppEnv = { Variables: AppVariables };

/** What an entry (Node, Worker, tests) gives `createApp`: everything runtime-specific. */
export interface AppDeps {
  database: Database;
  logger: Logger;
  /** Reported by /healthz and the MCP server info. */
  version: string;
  /**
   * Browser origins allowed to call /mcp and /api/v1/mcp besides localhost (e.g. `https://app.example.com`).
   * A request with any other Origin gets 403 (DNS-rebinding protection).
   */
  allowedOrigins?: string[];
  /**
   * When set, the Host header of /mcp and /api/v1/mcp must be localhost or one of these names. Set it when
   * the server listens on a loopback address (Node default); leave it unset behind a public hostname.
   */
  allowedHosts?: string[];
  /**
   * Counts requests on /mcp and /api/v1/mcp per token, and requests that fail auth per client address;
   * none → no limit.
   */
  rateLimiter?: RateLimiter;
  /** Counts admin API requests per token (keys `admin:token:N`); none → `rateLimiter`, if any. */
  adminRateLimiter?: RateLimiter;
  /**
   * Reverse proxies (REQLIX_TRUSTED_PROXIES) whose X-Forwarded-For names the client for the per-address
   * limit; none → the socket's peer (Node) or CF-Connecting-IP (Workers).
   */
  trustedProxies?: IpRange[];
  /** Injected clock (tests, token expiry, audit times). Default: the system clock. */
  clock?: () => Date;
  /** Largest request body accepted; default 1 MiB (larger → 413). */
  maxBodyBytes?: number;
  /**
   * Caches token lookups for a moment (token-cache.ts); the admin API empties it on every change of tokens,
   * members or roles. Node passes one; Workers none (isolates could not invalidate each other's).
   */
  tokenCache?: TokenCache;
  /** Largest trace push (`POST /api/v1/traces`) accepted; default 64 MiB (larger → 413). */
  maxTraceBodyBytes?: number;
  /** Largest import (`POST /api/v1/import`) accepted; default 128 MiB (larger → 413). */
  maxImportBodyBytes?: number;
  /**
   * The public base URL (REQLIX_PUBLIC_URL), the OAuth issuer; tokens are bound to `<it>/mcp`. Default: the
   * request's own origin.
   */
  publicUrl?: string;
  /** How client ID metadata documents are fetched (tests allow loopback; http/oauth-client-document.ts). */
  oauthDocuments?: import("./oauth-client-document.js").DocumentOptions;
}
