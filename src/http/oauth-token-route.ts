/**
 * The token endpoint (authorization_code with PKCE S256, refresh_token with rotation) and revocation
 * (RFC 7009), issue 12. Every check of a code or refresh token and its use happen in one write transaction,
 * so a code is exchanged and a refresh token rotated exactly once; a second use is a replay and revokes the
 * whole grant (the refresh-token family, its principal token, every access token). Values exist only in the
 * answers: the rows hold their SHA-256.
 */
import { Hono, type MiddlewareHandler } from "hono";
import {
  ACCESS_PREFIX,
  ACCESS_TOKEN_TTL_MS,
  parseScope,
  pkceMatches,
  REFRESH_PREFIX,
  REFRESH_TOKEN_TTL_MS,
  randomSecret,
  resourceOf,
} from "../core/oauth.js";
import { hashToken } from "../core/tokens.js";
import type { Tx } from "../db/database.js";
import {
  findCredential,
  insertGrantTokens,
  markUsed,
  revokeCredential,
  revokeGrant,
} from "../db/oauth.repo.js";
import { clientAddress } from "./client-address.js";
import type { AppEnv } from "./context.js";
import { FailureLimits } from "./failure-limits.js";
import { authenticateClient, issuerOf, oauthCors, oauthError, oauthForm } from "./oauth-common.js";
import type { OAuthDeps } from "./oauth-route.js";

type Outcome =
  | { ok: true; access: string; refresh: string; scope: string }
  | { ok: false; error: string; description: string };

async function issuePair(tx: Tx, grantId: number, now: Date, scope: string): Promise<Outcome> {
  const access = randomSecret(ACCESS_PREFIX);
  const refresh = randomSecret(REFRESH_PREFIX);
  await insertGrantTokens(tx, grantId, [
    {
      hash: await hashToken(access),
      kind: "access",
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS).toISOString(),
    },
    {
      hash: await hashToken(refresh),
      kind: "refresh",
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS).toISOString(),
    },
  ]);
  return { ok: true, access, refresh, scope };
}

const invalidGrant = (description: string): Outcome => ({ ok: false, error: "invalid_grant", description });

/**
 * Failed requests (a 400 or 401: unknown client, code or refresh token, bad PKCE) counted per client
 * address on the app's limiter; past its limit the address gets 429 with Retry-After, even for a good
 * request, until the wait has passed. The endpoints are unauthenticated and each check runs in a write
 * transaction, so without this one address could keep the database's writer busy with guesses. A client
 * that works fails rarely; the limit (REQLIX_RATE_LIMIT a minute) is far above that.
 */
function failedRequestLimit(deps: OAuthDeps, clock: () => Date): MiddlewareHandler<AppEnv> {
  if (!deps.rateLimiter) return (_c, next) => next();
  const limits = new FailureLimits(deps.rateLimiter, clock);
  const trusted = deps.trustedProxies ?? [];
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return next();
    const key = `oauth-token:ip:${clientAddress(c, trusted)}`;
    const wait = limits.blockedFor(key);
    if (wait !== undefined) {
      c.header("Retry-After", String(wait));
      return oauthError(
        c,
        429,
        "invalid_request",
        `Too many failed token requests from this address: retry after ${wait} seconds.`,
      );
    }
    await next();
    if (c.res.status === 400 || c.res.status === 401) {
      try {
        await limits.failed(key);
      } catch (error) {
        deps.logger.log("error", "rate limiter failed", {
          requestId: c.get("requestId"),
          error: String(error),
        });
      }
    }
  };
}

export function oauthTokenRoutes(deps: OAuthDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const clock = deps.clock ?? (() => new Date());
  const cors = oauthCors();
  const limited = failedRequestLimit(deps, clock);

  route.on(["POST", "OPTIONS"], "/oauth/token", cors, limited, async (c) => {
    const form = await oauthForm(c);
    const twice = Object.keys(form).find((k) => k.endsWith("#twice"));
    if (twice)
      return oauthError(c, 400, "invalid_request", `Parameter ${twice.slice(0, -6)} was sent twice.`);
    const grantType = form.grant_type;
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      return oauthError(
        c,
        400,
        "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token (send the form as application/x-www-form-urlencoded).",
      );
    }
    const checked = await authenticateClient(c, deps.database, form);
    if (!checked.ok) return checked.response;
    const client = checked.client;
    const resource = resourceOf(issuerOf(c, deps.publicUrl));
    if (form.resource !== undefined && form.resource !== resource) {
      return oauthError(c, 400, "invalid_target", `This server issues tokens for ${resource} only.`);
    }
    const now = clock();
    const at = now.toISOString();
    const presented = grantType === "authorization_code" ? form.code : form.refresh_token;
    if (!presented) {
      return oauthError(
        c,
        400,
        "invalid_request",
        grantType === "authorization_code" ? "Send the authorization code." : "Send the refresh_token.",
      );
    }
    if (grantType === "authorization_code" && !form.code_verifier) {
      return oauthError(c, 400, "invalid_request", "PKCE is required: send the code_verifier.");
    }
    const hash = await hashToken(presented);
    let revokedFamily = false;
    const outcome = await deps.database.write(async (tx): Promise<Outcome> => {
      const cred = await findCredential(tx, hash);
      const expectedKind = grantType === "authorization_code" ? "code" : "refresh";
      if (!cred || cred.kind !== expectedKind || cred.clientId !== client.clientId) {
        return invalidGrant(
          grantType === "authorization_code"
            ? "Unknown authorization code for this client."
            : "Unknown refresh token for this client.",
        );
      }
      if (cred.grantRevokedAt !== null || cred.revokedAt !== null) {
        return invalidGrant("This grant was revoked: authorize the client again.");
      }
      if (cred.usedAt !== null || !(await markUsed(tx, cred.tokenRowId, at))) {
        // A replay (RFC 9700 4.14.2, OAuth 2.1 4.3.1): whoever holds the family loses it.
        await revokeGrant(tx, cred.grantId, at);
        revokedFamily = true;
        return invalidGrant(
          grantType === "authorization_code"
            ? "This authorization code was already used: the tokens issued with it are revoked."
            : "This refresh token was already used: the grant is revoked, authorize the client again.",
        );
      }
      if (cred.expiresAt <= at) {
        return invalidGrant(
          grantType === "authorization_code"
            ? "This authorization code has expired (codes live 60 seconds): authorize again."
            : "This refresh token has expired: authorize the client again.",
        );
      }
      if (grantType === "authorization_code") {
        if (form.redirect_uri !== cred.redirectUri) {
          return invalidGrant("redirect_uri differs from the one of the authorization request.");
        }
        if (!(await pkceMatches(form.code_verifier ?? "", cred.codeChallenge ?? ""))) {
          return invalidGrant("code_verifier does not match the code_challenge (PKCE S256).");
        }
      } else if (form.scope !== undefined) {
        const asked = parseScope(form.scope);
        const granted = cred.scope.split(" ");
        if (!asked.ok || !asked.scopes.every((s) => granted.includes(s))) {
          return { ok: false, error: "invalid_scope", description: `The grant covers ${cred.scope} only.` };
        }
      }
      return issuePair(tx, cred.grantId, now, cred.scope);
    });
    if (revokedFamily) deps.tokenCache?.invalidate();
    if (!outcome.ok) return oauthError(c, 400, outcome.error, outcome.description);
    c.header("Cache-Control", "no-store");
    c.header("Pragma", "no-cache");
    return c.json({
      access_token: outcome.access,
      token_type: "Bearer",
      expires_in: Math.floor(ACCESS_TOKEN_TTL_MS / 1000),
      refresh_token: outcome.refresh,
      scope: outcome.scope,
    });
  });

  route.on(["POST", "OPTIONS"], "/oauth/revoke", cors, limited, async (c) => {
    const form = await oauthForm(c);
    const checked = await authenticateClient(c, deps.database, form);
    if (!checked.ok) return checked.response;
    if (!form.token) return oauthError(c, 400, "invalid_request", "Send the token to revoke.");
    const hash = await hashToken(form.token);
    const at = clock().toISOString();
    await deps.database.write(async (tx) => {
      const cred = await findCredential(tx, hash);
      // RFC 7009 2.2: an unknown token, or another client's, is answered 200 all the same.
      if (!cred || cred.clientId !== checked.client.clientId) return;
      if (cred.kind === "access") await revokeCredential(tx, cred.tokenRowId, at);
      else await revokeGrant(tx, cred.grantId, at);
    });
    deps.tokenCache?.invalidate();
    c.header("Cache-Control", "no-store");
    return c.body(null, 200);
  });
  return route;
}
