/**
 * Bearer personal access tokens (DESIGN, jsonrpc spec 4): looked up by SHA-256 hash. Missing, malformed,
 * unknown, expired or revoked → 401 with `WWW-Authenticate: Bearer realm="reqlix"` (JSON-RPC -32001 on
 * MCP paths). A valid token acts as its user in its workspace with the member's role (capped by the
 * token's role ceiling).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AuthInfo } from "../core/auth-info.js";
import { isAccessToken, resourceMetadataUrl, resourceOf } from "../core/oauth.js";
import { carriesOwnerPowers } from "../core/owner-powers.js";
import { minRole } from "../core/roles.js";
import { hashToken, isWellFormedToken } from "../core/tokens.js";
import type { Database } from "../db/database.js";
import { type AccessPrincipal, findAccessPrincipal } from "../db/oauth.repo.js";
import { findTokenByHash, type TokenPrincipal, touchTokenLastUsed } from "../db/tokens.repo.js";
import type { AppEnv, Logger } from "./context.js";
import { errorJson } from "./json-errors.js";
import type { TokenCache } from "./token-cache.js";

export { carriesOwnerPowers };

/** last_used_at is written at most this often per token, so reads do not turn into writes. */
export const LAST_USED_THROTTLE_MS = 60_000;
export const WWW_AUTHENTICATE = 'Bearer realm="reqlix"';

/** The 401 challenge of the MCP faces: where a client finds how to get a token (RFC 9728 5.1). */
export function bearerChallenge(issuer: string): string {
  return `Bearer realm="reqlix", resource_metadata="${resourceMetadataUrl(issuer)}"`;
}

export type AuthResult =
  | { ok: true; auth: AuthInfo; touch: boolean; token: string }
  | { ok: false; reason: string };

/** What a token's principal may do, before we know which credential carried it. */
export type PrincipalResult = { ok: true; auth: AuthInfo; touch: boolean } | { ok: false; reason: string };

/** The value of a `Bearer <value>` Authorization header; undefined for any other shape. */
export function bearerValue(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec((header ?? "").trim());
  return m?.[1];
}

/** Checks an Authorization header value; the reason says what was wrong without echoing the token. */
export async function authenticate(
  database: Database,
  header: string | undefined,
  now: Date,
  cache?: TokenCache,
  /** The RFC 8707 resource this path is (`<issuer>/mcp`); absent: OAuth access tokens are not accepted. */
  resource?: string,
): Promise<AuthResult> {
  if (header === undefined || header.trim() === "") {
    return { ok: false, reason: "Missing Authorization header: send `Authorization: Bearer rqx_…`." };
  }
  const token = bearerValue(header);
  if (token === undefined) return { ok: false, reason: "Authorization header must be `Bearer <token>`." };
  if (isAccessToken(token)) return authenticateAccessToken(database, token, now, cache, resource);
  if (!isWellFormedToken(token)) {
    return {
      ok: false,
      reason: "Malformed token: a reqlix token is rqx_ followed by at least 32 letters or digits.",
    };
  }
  let found = cache?.get(token, now.getTime());
  if (!found) {
    const generation = cache?.generation ?? 0;
    found = await database.read(async (db) => findTokenByHash(db, await hashToken(token)));
    // Only a token that is usable now is kept (its expiry is still checked on every hit, below).
    if (found && cache && found.revokedAt === null && found.memberRole !== null) {
      cache.set(token, found, now.getTime(), generation);
    }
  }
  const result = principalAuth(found, now);
  return result.ok ? { ...result, token } : result;
}

/**
 * An OAuth access token (issue 12): known by its hash, neither revoked nor expired, issued for this
 * resource (RFC 8707), then the checks of its grant's principal token (membership, role capped by the
 * scope). It never carries instance-wide owner powers.
 */
async function authenticateAccessToken(
  database: Database,
  token: string,
  now: Date,
  cache: TokenCache | undefined,
  resource: string | undefined,
): Promise<AuthResult> {
  if (resource === undefined) {
    return {
      ok: false,
      reason:
        "OAuth access tokens are accepted on /mcp and /api/v1/mcp only: use a personal access token here.",
    };
  }
  let found = cache?.get(token, now.getTime()) as AccessPrincipal | undefined;
  if (!found) {
    const generation = cache?.generation ?? 0;
    found = await database.read(async (db) => findAccessPrincipal(db, await hashToken(token)));
    if (found && cache && found.accessRevokedAt === null && found.grantRevokedAt === null) {
      cache.set(token, found, now.getTime(), generation);
    }
  }
  if (!found) return { ok: false, reason: "Unknown OAuth access token: authorize the client again." };
  if (found.accessRevokedAt !== null || found.grantRevokedAt !== null) {
    return { ok: false, reason: "This OAuth access token was revoked: authorize the client again." };
  }
  if (found.accessExpiresAt <= now.toISOString()) {
    return { ok: false, reason: "This OAuth access token has expired: use the refresh token for a new one." };
  }
  if (found.resource !== resource) {
    return {
      ok: false,
      reason: `This OAuth access token was issued for the resource ${found.resource}, not ${resource}.`,
    };
  }
  const result = principalAuth(found, now);
  if (!result.ok) return result;
  return { ...result, auth: { ...result.auth, isOwner: false, oauthScopes: found.scope.split(" ") }, token };
}

/**
 * The checks every credential that acts through a token passes (a PAT, or a web session opened with one):
 * known, not revoked, not expired, its user still a member; the role capped by the token's ceiling.
 */
export function principalAuth(found: TokenPrincipal | undefined, now: Date): PrincipalResult {
  if (!found) return { ok: false, reason: "Unknown token: ask a workspace admin for a new one." };
  if (found.revokedAt !== null)
    return { ok: false, reason: "This token was revoked: ask a workspace admin for a new one." };
  if (found.expiresAt !== null && found.expiresAt <= now.toISOString()) {
    return {
      ok: false,
      reason: `This token expired at ${found.expiresAt}: ask a workspace admin for a new one.`,
    };
  }
  if (found.memberRole === null) {
    return {
      ok: false,
      reason: `The token's user is no longer a member of workspace "${found.workspaceSlug}".`,
    };
  }
  const role = found.roleCeiling ? minRole(found.memberRole, found.roleCeiling) : found.memberRole;
  const touch =
    found.lastUsedAt === null || now.getTime() - Date.parse(found.lastUsedAt) >= LAST_USED_THROTTLE_MS;
  return {
    ok: true,
    touch,
    auth: {
      userId: found.userId,
      username: found.username,
      workspaceId: found.workspaceId,
      workspaceSlug: found.workspaceSlug,
      role,
      tokenId: found.tokenId,
      isOwner: carriesOwnerPowers(found),
    },
  };
}

export function requireToken(options: {
  database: Database;
  logger: Logger;
  clock?: () => Date;
  /** Node: one per process (token-cache.ts); none on Workers and by default (every request looks up). */
  tokenCache?: TokenCache;
  /**
   * The MCP faces: the OAuth issuer of this request. OAuth access tokens bound to `<issuer>/mcp` are
   * accepted, and every 401 points at the protected-resource metadata (RFC 9728).
   */
  oauthIssuer?: (c: Context<AppEnv>) => string;
}): MiddlewareHandler<AppEnv> {
  const { database, logger, tokenCache, oauthIssuer } = options;
  const clock = options.clock ?? (() => new Date());
  return async function authMiddleware(c, next) {
    const now = clock();
    const issuer = oauthIssuer?.(c);
    const result = await authenticate(
      database,
      c.req.header("authorization"),
      now,
      tokenCache,
      issuer === undefined ? undefined : resourceOf(issuer),
    );
    if (!result.ok) {
      logger.log("info", "unauthorized", {
        requestId: c.get("requestId"),
        path: c.req.path,
        reason: result.reason,
      });
      c.header("WWW-Authenticate", issuer === undefined ? WWW_AUTHENTICATE : bearerChallenge(issuer));
      return errorJson(c, 401, "unauthorized", `Unauthorized: ${result.reason}`);
    }
    c.set("auth", result.auth);
    if (result.touch) {
      try {
        await database.write((tx) => touchTokenLastUsed(tx, result.auth.tokenId, now.toISOString()));
        tokenCache?.used(result.token, now.toISOString());
      } catch (err) {
        // Bookkeeping only: the request itself is authenticated, so it goes on.
        logger.log("warn", "could not record token use", { requestId: c.get("requestId"), error: err });
      }
    }
    await next();
  };
}
