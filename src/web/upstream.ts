/**
 * What every upstream sign-in (OpenID Connect: oidc.ts; GitHub: github.ts) shares: the buttons on the
 * sign-in and invitation pages, the short-lived cookie that carries a started sign-in (state, PKCE
 * verifier, nonce, return path, invitation) through the provider, the refusal page, and the one rule
 * that turns a provider's verified email into a reqlix session.
 *
 * The rule: with an invitation, the invitation is accepted for that email (account-ops.ts decides whether
 * it joins an existing account or creates one, in one transaction); without one, only an existing user
 * with that email signs in. A provider never creates a right, and nothing else (a display name, a login)
 * is ever matched.
 */
import type { Context } from "hono";
import { html } from "hono/html";
import { isDomainError } from "../core/errors.js";
import { acceptInvitationUpstreamOp } from "../db/account-ops.js";
import { findUserByEmail } from "../db/credentials.repo.js";
import { issuerOf } from "../http/oauth-common.js";
import type { WebDeps, WebEnv } from "./context.js";
import { getCookie, setCookie } from "./cookies.js";
import { type Html, layout, notice } from "./layout.js";
import { cookieOptions } from "./session.js";
import { safeNext } from "./sign-in.js";
import { openUserSession } from "./user-session.js";

export const OIDC_START = "/signin/oidc";
export const GITHUB_START = "/signin/github";

/** A started sign-in, kept in this browser only (HttpOnly, 10 minutes). */
export interface Pending {
  state: string;
  verifier: string;
  /** OpenID Connect only: the ID token must carry it back. */
  nonce?: string;
  next: string;
  /** The invitation code when the sign-in accepts an invitation (invitations.ts "Join with …"). */
  invite?: string;
}

const PENDING_SECONDS = 10 * 60;

export function savePending(c: Context, cookie: string, value: Pending): void {
  const text = btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  setCookie(c, cookie, text, cookieOptions(c, PENDING_SECONDS));
}

/** The started sign-in of this browser, once: the cookie is cleared whatever the outcome. */
export function takePending(c: Context, cookie: string): Pending | undefined {
  const text = getCookie(c, cookie);
  setCookie(c, cookie, "", cookieOptions(c, 0));
  if (!text) return undefined;
  try {
    const value = JSON.parse(atob(text.replace(/-/g, "+").replace(/_/g, "/"))) as Pending;
    return typeof value.state === "string" && typeof value.verifier === "string"
      ? { ...value, next: safeNext(value.next) }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Where the provider sends the browser back: this server's public origin (REQLIX_PUBLIC_URL) + `path`. */
export function callbackUrl(c: Context, deps: WebDeps, path: string): string {
  return `${issuerOf(c, deps.publicUrl)}${path}`;
}

export async function refused(c: Context<WebEnv>, message: string, status: number): Promise<Response> {
  const body = html`<section class="signin"><h1>Sign-in refused</h1>${notice("error", message)}<p><a href="/signin">Back to sign-in</a></p></section>`;
  return c.html(await layout({ title: "Sign-in refused", body }), status as 200);
}

/** The provider (`label`) could not be reached or answered with a failure: the same page for every provider. */
export function providerUnreachable(c: Context<WebEnv>, label: string): Promise<Response> {
  return refused(c, `${label} could not be reached or failed: try again in a moment.`, 502);
}

/** The configured providers, in the order their buttons appear. */
function providers(deps: WebDeps): { label: string; start: string }[] {
  return [
    ...(deps.oidc ? [{ label: deps.oidc.label, start: OIDC_START }] : []),
    ...(deps.github ? [{ label: deps.github.label, start: GITHUB_START }] : []),
  ];
}

/** One "Sign in with …" button per configured provider (the sign-in page). */
export function signInButtons(deps: WebDeps, next: string): Html[] {
  return providers(deps).map(
    (p) =>
      html`<p class="oidc-signin"><a class="button" href="${p.start}?next=${encodeURIComponent(next)}">Sign in with ${p.label}</a></p>`,
  );
}

/** One "Join with …" button per configured provider (the invitation page). */
export function joinButtons(deps: WebDeps, code: string): Html[] {
  return providers(deps).map(
    (p) =>
      html`<p class="oidc-signin"><a class="button" href="${p.start}?invite=${encodeURIComponent(code)}">Join with ${p.label}</a></p>`,
  );
}

/**
 * Opens the session of the user the provider vouched for (`email`, verified by the provider), or answers
 * why not. `method` names the provider on the session token ("oidc", "github").
 */
export async function finishUpstreamSignIn(
  c: Context<WebEnv>,
  deps: WebDeps,
  input: { label: string; email: string; method: string; pending: Pending },
): Promise<Response> {
  const { pending, email, label } = input;
  if (pending.invite) {
    try {
      const joined = await acceptInvitationUpstreamOp(deps.database, {
        secret: pending.invite,
        verifiedEmail: email,
        now: (deps.clock ?? (() => new Date()))(),
      });
      const opened = await openUserSession(c, deps, {
        userId: joined.userId,
        method: input.method,
        next: "/",
        workspace: joined.workspaceId,
      });
      return c.redirect(opened?.location ?? "/", 303);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      return refused(c, error.message, error.code === "forbidden" ? 403 : 409);
    }
  }
  const user = await deps.database.read((ex) => findUserByEmail(ex, email));
  const opened = user
    ? await openUserSession(c, deps, { userId: user.id, method: input.method, next: pending.next })
    : undefined;
  if (!opened) {
    return refused(
      c,
      `No reqlix member has the email ${email}: ask a workspace admin for an invitation, accept it, then sign in with ${label}.`,
      403,
    );
  }
  return c.redirect(opened.location, 303);
}
