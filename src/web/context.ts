/**
 * What the web app (issue 13) adds to the app's contract: its Hono env (the signed-in session next to the
 * caller's AuthInfo) and the deps it reads. Everything it shows or changes goes through the hosted registry
 * (tools.ts), with the session's AuthInfo, so roles, audit and revisions apply exactly as on the MCP faces.
 */
import type { GitHubConfig } from "../core/github-config.js";
import type { OidcConfig } from "../core/oidc-config.js";
import type { AppDeps, AppVariables, RateLimiter } from "../http/context.js";
import type { FacesDeps } from "../http/faces-common.js";

export interface WebSession {
  /** The session id from the cookie (never stored; the table holds its hash). */
  id: string;
  /** The synchronizer token every form of this session carries (derived from the id: csrf.ts). */
  csrf: string;
}

export interface WebVariables extends AppVariables {
  session: WebSession;
}

export type WebEnv = { Variables: WebVariables };

/**
 * Serves the static files (CSS, the script bundle) under `/assets/`. Node passes a file handler
 * (web/node-assets.ts); on Workers the `[assets]` binding answers those paths before the Worker runs.
 */
export type AssetHandler = (path: string, request: Request) => Promise<Response | undefined>;

export interface WebDeps extends FacesDeps, Pick<AppDeps, "trustedProxies" | "publicUrl" | "oauthDocuments"> {
  /** Counts sign-in attempts per client address; default: 10 a minute, in this process. */
  signInRateLimiter?: RateLimiter;
  assets?: AssetHandler;
  /** Session lifetime; default 12 hours (never beyond the token's own expiry). */
  sessionTtlMs?: number;
  /** An upstream OpenID Connect provider offered on the sign-in page (REQLIX_OIDC_*: core/oidc-config.ts). */
  oidc?: OidcConfig;
  /** Sign-in with GitHub or GitHub Enterprise Server (REQLIX_GITHUB_*: core/github-config.ts). */
  github?: GitHubConfig;
}
