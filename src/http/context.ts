/**
 * The contract between the app's parts: what middleware puts on the Hono context, and what `createApp`
 * receives from an entry (Node or Workers). Entries are thin; everything runtime-specific comes in here.
 */
import type { Role } from "../core/roles.js";

/** Who is calling: set by the auth middleware from a valid personal access token. */
export interface AuthInfo {
  userId: number;
  username: string;
  workspaceId: number;
  workspaceSlug: string;
  /** The member's role in the token's workspace (viewer, editor, admin). */
  role: Role;
  tokenId: number;
  /** The instance owner (first user at bootstrap) may administer every workspace. */
  isOwner: boolean;
}

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
