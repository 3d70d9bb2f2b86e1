/**
 * Sign-in with GitHub or GitHub Enterprise Server (issue 12 item 4). GitHub's OAuth apps are OAuth 2.0,
 * not OpenID Connect: no discovery, no ID token. So the endpoints are GitHub's documented ones, the
 * authorization-code flow (state, PKCE S256, client secret, JSON answer) runs through oauth4webapi as
 * the OIDC sign-in does (Web APIs only: Node and Workers), and who signed in comes from the REST API:
 * `GET /user` (the account's numeric id, which unlike the login never changes: it names the account in
 * a refusal's log line) and `GET /user/emails`, of which only the primary address, and only when GitHub
 * marks it verified, is used.
 *
 * The email then goes through the same rule as OpenID Connect (upstream.ts): an existing user with that
 * email, or the invitation being accepted; never a user or a right made from a GitHub login or name (like
 * OIDC's subject, the id is not stored: the rule needs only the verified email). The access token lives
 * for this one request: it is read, used for the two API calls and dropped, never stored or logged, and
 * neither is the client secret.
 */
import { Hono, type MiddlewareHandler } from "hono";
import * as oauth from "oauth4webapi";
import type { GitHubConfig } from "../core/github-config.js";
import type { WebDeps, WebEnv } from "./context.js";
import { safeNext } from "./sign-in.js";
import {
  callbackUrl,
  finishUpstreamSignIn,
  GITHUB_START,
  type Pending,
  providerUnreachable,
  refused,
  savePending,
  takePending,
} from "./upstream.js";

export const GITHUB_COOKIE = "rqx_github";
export const GITHUB_CALLBACK = "/signin/github/callback";
/** What reqlix asks of the account: the profile (its id) and the email addresses (`GET /user/emails`). */
export const GITHUB_SCOPES = "read:user user:email";
const TIMEOUT_MS = 10_000;

/** GitHub did not answer, or answered with a server error: the person can only try again later. */
class Unreachable extends Error {}

interface GitHubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

/** An OAuth error code (`bad_verification_code`, `access_denied`, …), only when it looks like one. */
function errorCode(value: unknown): string | undefined {
  const code = (value as { error?: unknown } | undefined)?.error;
  return typeof code === "string" && /^[a-z_]{1,64}$/.test(code) ? code : undefined;
}

export function githubRoutes(
  deps: WebDeps & { github: GitHubConfig },
  headers: MiddlewareHandler,
): Hono<WebEnv> {
  const route = new Hono<WebEnv>();
  const config = deps.github;
  const as: oauth.AuthorizationServer = {
    issuer: config.baseUrl,
    authorization_endpoint: `${config.baseUrl}/login/oauth/authorize`,
    token_endpoint: `${config.baseUrl}/login/oauth/access_token`,
  };
  const client: oauth.Client = { client_id: config.clientId };
  const auth = oauth.ClientSecretPost(config.clientSecret);
  const options = {
    ...(config.allowHttp ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: () => AbortSignal.timeout(TIMEOUT_MS),
  };
  const redirectUri = (c: Parameters<typeof callbackUrl>[0]) => callbackUrl(c, deps, GITHUB_CALLBACK);

  /** A REST API answer; the token goes in the header only, and no message names it. */
  const api = async (path: string, token: string): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${config.apiUrl}${path}`, {
        headers: {
          accept: "application/vnd.github+json",
          authorization: `Bearer ${token}`,
          "x-github-api-version": "2022-11-28",
          // GitHub refuses API requests without a User-Agent.
          "user-agent": "reqlix",
        },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new Unreachable(`GET ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (response.status >= 500) throw new Unreachable(`GET ${path} answered ${response.status}`);
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
    return response.json();
  };

  /** Code → access token → the account's id and verified primary email; the token goes out of scope here. */
  const identify = async (pending: Pending, url: URL, redirect: string) => {
    const params = oauth.validateAuthResponse(as, client, url, pending.state);
    let response: Response;
    try {
      response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        redirect,
        pending.verifier,
        options,
      );
    } catch (error) {
      throw new Unreachable(`token endpoint: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (response.status >= 500) throw new Unreachable(`token endpoint answered ${response.status}`);
    // GitHub answers a refused exchange (wrong verifier, used or expired code, wrong client secret) with
    // 200 and an `error` member: its code is what an operator needs in the log.
    const refusal = errorCode(
      await response
        .clone()
        .json()
        .catch(() => undefined),
    );
    if (refusal) throw new Error(`the token endpoint refused the code: ${refusal}`);
    const token = (await oauth.processAuthorizationCodeResponse(as, client, response)).access_token;
    const user = (await api("/user", token)) as { id?: unknown };
    if (typeof user?.id !== "number" || !Number.isSafeInteger(user.id) || user.id <= 0) {
      throw new Error("GET /user gave no numeric account id");
    }
    const emails = await api("/user/emails", token);
    const primary = Array.isArray(emails)
      ? (emails as GitHubEmail[]).find((e) => e && e.primary === true)
      : undefined;
    const email =
      primary && primary.verified === true && typeof primary.email === "string" ? primary.email : undefined;
    return { id: user.id, email };
  };

  route.get(GITHUB_START, headers, async (c) => {
    const pending: Pending = {
      state: oauth.generateRandomState(),
      verifier: oauth.generateRandomCodeVerifier(),
      next: safeNext(c.req.query("next")),
      ...(c.req.query("invite") ? { invite: c.req.query("invite") as string } : {}),
    };
    const target = new URL(as.authorization_endpoint as string);
    target.searchParams.set("client_id", config.clientId);
    target.searchParams.set("redirect_uri", redirectUri(c));
    target.searchParams.set("scope", GITHUB_SCOPES);
    target.searchParams.set("state", pending.state);
    target.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(pending.verifier));
    target.searchParams.set("code_challenge_method", "S256");
    savePending(c, GITHUB_COOKIE, pending);
    return c.redirect(target.href, 303);
  });

  route.get(GITHUB_CALLBACK, headers, async (c) => {
    const pending = takePending(c, GITHUB_COOKIE);
    if (!pending) return refused(c, "This sign-in was not started here or took too long: start again.", 400);
    let identity: { id: number; email: string | undefined };
    try {
      identity = await identify(pending, new URL(c.req.url), redirectUri(c));
    } catch (error) {
      deps.logger.log("info", "upstream sign-in refused", {
        requestId: c.get("requestId"),
        provider: "github",
        error: error instanceof Error ? error.message : String(error),
        ...(error instanceof oauth.AuthorizationResponseError ? { upstreamError: errorCode(error) } : {}),
      });
      if (error instanceof Unreachable) {
        return providerUnreachable(c, config.label);
      }
      if (error instanceof oauth.AuthorizationResponseError && error.error === "access_denied") {
        return refused(c, `You did not allow reqlix on ${config.label}, so you are not signed in.`, 403);
      }
      return refused(c, `${config.label} did not confirm the sign-in: start again.`, 400);
    }
    if (!identity.email) {
      deps.logger.log("info", "upstream sign-in refused", {
        requestId: c.get("requestId"),
        provider: "github",
        githubUserId: identity.id,
        error: "no verified primary email",
      });
      return refused(
        c,
        `${config.label} did not give a verified primary email address, so no reqlix account can be matched: verify it in your ${config.label} email settings, then start again.`,
        403,
      );
    }
    return finishUpstreamSignIn(c, deps, {
      label: config.label,
      email: identity.email,
      method: "github",
      pending,
    });
  });
  return route;
}
