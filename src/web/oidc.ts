/**
 * Sign-in through an upstream OpenID Connect provider (issue 12 item 4) with oauth4webapi (panva; Web
 * APIs only, so the same code runs on Node and Workers): authorization code with PKCE (S256), `state`
 * and `nonce`, the ID token validated by the library. The state, nonce, code verifier and return path
 * live in a short-lived HttpOnly cookie of this browser.
 *
 * The upstream identity signs in only a user who already exists, matched by an email the provider says
 * is verified (`email_verified: true`); it never creates a user or a right. The session then acts like a
 * password session (user-session.ts).
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import * as oauth from "oauth4webapi";
import type { OidcConfig } from "../core/oidc-config.js";
import type { WebDeps, WebEnv } from "./context.js";
import { safeNext } from "./sign-in.js";
import {
  callbackUrl,
  finishUpstreamSignIn,
  OIDC_START,
  providerUnreachable,
  refused,
  savePending,
  takePending,
} from "./upstream.js";

export const OIDC_COOKIE = "rqx_oidc";
export const OIDC_CALLBACK = "/signin/oidc/callback";

export function oidcRoutes(deps: WebDeps & { oidc: OidcConfig }, headers: MiddlewareHandler): Hono<WebEnv> {
  const route = new Hono<WebEnv>();
  const config = deps.oidc;
  const client: oauth.Client = { client_id: config.clientId };
  const auth = oauth.ClientSecretPost(config.clientSecret);
  const insecure = config.allowHttp ? { [oauth.allowInsecureRequests]: true } : {};
  let server: Promise<oauth.AuthorizationServer> | undefined;
  // Discovery once per process or isolate; a failure is not kept, so the next sign-in tries again.
  const discover = () => {
    server ??= (async () => {
      const issuer = new URL(config.issuer);
      const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...insecure });
      return oauth.processDiscoveryResponse(issuer, response);
    })().catch((error) => {
      server = undefined;
      throw error;
    });
    return server;
  };
  const redirectUri = (c: Parameters<typeof callbackUrl>[0]) => callbackUrl(c, deps, OIDC_CALLBACK);

  /** The provider's metadata, or the page saying it cannot be reached (logged for the operator). */
  const discoverOr502 = async (c: Context<WebEnv>) => {
    try {
      return await discover();
    } catch (error) {
      deps.logger.log("warn", "upstream sign-in provider unreachable", {
        requestId: c.get("requestId"),
        provider: "oidc",
        error: error instanceof Error ? error.message : String(error),
      });
      return providerUnreachable(c, config.label);
    }
  };

  route.get(OIDC_START, headers, async (c) => {
    const as = await discoverOr502(c);
    if (as instanceof Response) return as;
    const pending = {
      state: oauth.generateRandomState(),
      nonce: oauth.generateRandomNonce(),
      verifier: oauth.generateRandomCodeVerifier(),
      next: safeNext(c.req.query("next")),
      ...(c.req.query("invite") ? { invite: c.req.query("invite") as string } : {}),
    };
    const target = new URL(as.authorization_endpoint as string);
    target.searchParams.set("client_id", config.clientId);
    target.searchParams.set("redirect_uri", redirectUri(c));
    target.searchParams.set("response_type", "code");
    target.searchParams.set("scope", "openid email");
    target.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(pending.verifier));
    target.searchParams.set("code_challenge_method", "S256");
    target.searchParams.set("state", pending.state);
    target.searchParams.set("nonce", pending.nonce);
    savePending(c, OIDC_COOKIE, pending);
    return c.redirect(target.href, 303);
  });

  route.get(OIDC_CALLBACK, headers, async (c) => {
    const pending = takePending(c, OIDC_COOKIE);
    if (!pending?.nonce)
      return refused(c, "This sign-in was not started here or took too long: start again.", 400);
    const as = await discoverOr502(c);
    if (as instanceof Response) return as;
    let claims: Record<string, unknown> | undefined;
    try {
      const params = oauth.validateAuthResponse(as, client, new URL(c.req.url), pending.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        redirectUri(c),
        pending.verifier,
        insecure,
      );
      const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
        expectedNonce: pending.nonce,
        requireIdToken: true,
      });
      const idToken = oauth.getValidatedIdTokenClaims(result);
      if (!idToken) throw new Error("no ID token");
      claims = { ...idToken };
      // Many providers put the email only in the UserInfo answer: asked for the ID token's subject.
      if (typeof idToken.email !== "string") {
        const info = await oauth.userInfoRequest(as, client, result.access_token, insecure);
        claims = await oauth.processUserInfoResponse(as, client, idToken.sub, info);
      }
    } catch (error) {
      deps.logger.log("info", "upstream sign-in refused", {
        requestId: c.get("requestId"),
        error: error instanceof Error ? error.message : String(error),
      });
      return refused(c, `${config.label} did not confirm the sign-in: start again.`, 400);
    }
    const email = typeof claims?.email === "string" ? claims.email : undefined;
    if (!email || claims?.email_verified !== true) {
      return refused(
        c,
        `${config.label} did not give a verified email address, so no reqlix account can be matched.`,
        403,
      );
    }
    return finishUpstreamSignIn(c, deps, { label: config.label, email, method: "oidc", pending });
  });
  return route;
}
