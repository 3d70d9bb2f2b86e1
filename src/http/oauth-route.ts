/**
 * OAuth discovery and registration (issue 12): RFC 8414 authorization-server metadata, RFC 9728
 * protected-resource metadata (at `/.well-known/oauth-protected-resource`, and suffixed with the resource's
 * path `/mcp` as clients build it), and Dynamic Client Registration (RFC 7591) for clients that do not
 * publish a client ID metadata document. Registrations are counted per address when the app has a limiter.
 */
import { Hono } from "hono";
import {
  authorizationServerMetadata,
  checkClientMetadata,
  DCR_CLIENT_PREFIX,
  protectedResourceMetadata,
  randomSecret,
  SECRET_PREFIX,
} from "../core/oauth.js";
import { hashToken } from "../core/tokens.js";
import { saveClient } from "../db/oauth.repo.js";
import { clientAddress } from "./client-address.js";
import type { AppDeps, AppEnv } from "./context.js";
import { issuerOf, oauthCors, oauthError } from "./oauth-common.js";

export type OAuthDeps = Pick<
  AppDeps,
  "database" | "logger" | "clock" | "rateLimiter" | "trustedProxies" | "tokenCache"
> & {
  /** The public base URL when a proxy hides it (REQLIX_PUBLIC_URL); default: the request's origin. */
  publicUrl?: string;
};

export const OAUTH_DISCOVERY_PATHS = [
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-protected-resource/api/v1/mcp",
];

export function oauthRoutes(deps: OAuthDeps): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  const clock = deps.clock ?? (() => new Date());
  const cors = oauthCors();

  route.on(["GET", "OPTIONS"], "/.well-known/oauth-authorization-server", cors, (c) =>
    c.json(authorizationServerMetadata(issuerOf(c, deps.publicUrl))),
  );
  for (const path of OAUTH_DISCOVERY_PATHS.slice(1)) {
    route.on(["GET", "OPTIONS"], path, cors, (c) =>
      c.json(protectedResourceMetadata(issuerOf(c, deps.publicUrl))),
    );
  }

  route.on(["POST", "OPTIONS"], "/oauth/register", cors, async (c) => {
    if (deps.rateLimiter) {
      const key = `oauth-register:ip:${clientAddress(c, deps.trustedProxies ?? [])}`;
      const verdict = await deps.rateLimiter.hit(key);
      if (!verdict.ok) {
        c.header("Retry-After", String(verdict.retryAfterSeconds));
        return oauthError(
          c,
          429,
          "invalid_request",
          "Too many registrations from this address: wait and retry.",
        );
      }
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return oauthError(
        c,
        400,
        "invalid_client_metadata",
        "The body must be a JSON object of client metadata.",
      );
    }
    // RFC 7591 2: without the field a client authenticates with a secret; MCP clients send "none".
    const checked = checkClientMetadata(body, "client_secret_basic");
    if (!checked.ok) {
      const code = checked.error.startsWith("redirect_uri")
        ? "invalid_redirect_uri"
        : "invalid_client_metadata";
      return oauthError(c, 400, code, checked.error);
    }
    const metadata = checked.metadata;
    const clientId = randomSecret(DCR_CLIENT_PREFIX);
    const secret = metadata.token_endpoint_auth_method === "none" ? undefined : randomSecret(SECRET_PREFIX);
    const now = clock();
    await deps.database.write(async (tx) =>
      saveClient(
        tx,
        {
          clientId,
          secretHash: secret ? await hashToken(secret) : null,
          source: "registration",
          name: metadata.client_name ?? "Unnamed client",
          redirectUris: metadata.redirect_uris,
          authMethod: metadata.token_endpoint_auth_method,
          metadata: { ...metadata },
        },
        now.toISOString(),
      ),
    );
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        ...metadata,
        client_id: clientId,
        client_id_issued_at: Math.floor(now.getTime() / 1000),
        ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      },
      201,
    );
  });
  return route;
}
