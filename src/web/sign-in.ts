/**
 * Sign-in (issues 13 and 12 item 4), one page shared by the web app and the OAuth authorization flow
 * (which sends the browser here with `next=`): a username (or email) and password, a pasted personal
 * access token, and the slot `methods` for other ways (an upstream provider). Every form is protected by
 * a double-submit CSRF value; failures are counted per address and per account (http/failure-limits.ts).
 *
 * A wrong password and an unknown user get the same answer after the same work (core/password.ts checks
 * a decoy hash when there is no user). Every sign-in issues a new session id and ends the browser's
 * previous session (session.ts: no fixation).
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { html } from "hono/html";
import { verifyPassword } from "../core/password.js";
import { findSignInUser } from "../db/credentials.repo.js";
import { authenticate } from "../http/auth.js";
import { clientAddress } from "../http/client-address.js";
import { FailureLimits } from "../http/failure-limits.js";
import { MemoryRateLimiter } from "../http/rate-limit-memory.js";
import type { WebDeps, WebEnv } from "./context.js";
import { getCookie, setCookie } from "./cookies.js";
import { CSRF_FIELD, formOf, PRESIGN_COOKIE, sameSecret } from "./csrf.js";
import { knownDevice, trustThisDevice } from "./device-cookie.js";
import { type Html, layout, notice } from "./layout.js";
import {
  closeSession,
  cookieOptions,
  DEFAULT_SESSION_TTL_MS,
  openSession,
  randomId,
  resolveSession,
} from "./session.js";
import { signInButtons } from "./upstream.js";
import { openUserSession } from "./user-session.js";

/** Sign-in attempts per minute per address when the app is given no limiter of its own. */
export const DEFAULT_SIGN_IN_LIMIT = 10;
/** The keys sign-in failures are counted under: per client address (every method) and per account typed. */
export const addressKey = (address: string) => `web-signin:ip:${address}`;
export const accountKey = (login: string) => `web-signin:account:${login.trim().toLowerCase()}`;
export const WRONG_PASSWORD = "Sign-in refused: wrong username or password.";
const MAX_LOGIN_LENGTH = 320;

export interface SignInProps {
  csrf: string;
  next: string;
  error?: string;
  /** What was typed as the username (shown again after a refusal; never the password). */
  login?: string;
  /** Other ways to sign in (rendered under the forms), e.g. an upstream provider's button. */
  methods?: Html[];
}

export function signInPage(props: SignInProps): Html {
  return html`<section class="signin">
<h1>Sign in to reqlix</h1>
${props.error ? notice("error", props.error) : ""}
<form method="post" action="/signin" class="stack">
<input type="hidden" name="${CSRF_FIELD}" value="${props.csrf}">
<input type="hidden" name="next" value="${props.next}">
<input type="hidden" name="method" value="password">
<label for="login">Username or email</label>
<input id="login" name="login" type="text" autocomplete="username" spellcheck="false" autocapitalize="none" required maxlength="${MAX_LOGIN_LENGTH}" value="${props.login ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${props.methods ?? ""}
<section class="token-signin" aria-labelledby="token-heading">
<h2 id="token-heading">Or use a personal access token</h2>
<form method="post" action="/signin" class="stack">
<input type="hidden" name="${CSRF_FIELD}" value="${props.csrf}">
<input type="hidden" name="next" value="${props.next}">
<input type="hidden" name="method" value="token">
<label for="token">Personal access token</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required placeholder="rqx_…" aria-describedby="token-help">
<p id="token-help" class="hint">Paste a token once: the browser keeps a session, never the token. A workspace admin can give you one.</p>
<button type="submit">Sign in with token</button>
</form>
</section>
</section>`;
}

/** Only paths of this site come back after sign-in (no open redirect to another origin). */
export function safeNext(next: string | undefined): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}

/** The pre-sign-in CSRF value of this browser, set when it has none (the double-submit cookie). */
export function presignOf(c: Context<WebEnv>): string {
  let presign = getCookie(c, PRESIGN_COOKIE);
  if (!presign || !/^[A-Za-z0-9_-]{43}$/.test(presign)) {
    presign = randomId();
    setCookie(c, PRESIGN_COOKIE, presign, cookieOptions(c, 60 * 60));
  }
  return presign;
}

export function signInRoutes(deps: WebDeps, headers: MiddlewareHandler): Hono<WebEnv> {
  const route = new Hono<WebEnv>();
  const clock = deps.clock ?? (() => new Date());
  const limits = new FailureLimits(
    deps.signInRateLimiter ?? new MemoryRateLimiter({ limit: DEFAULT_SIGN_IN_LIMIT }),
    clock,
  );
  const sessions = { database: deps.database, clock };

  const show = async (
    c: Context<WebEnv>,
    next: string,
    extra: { error?: string; login?: string } = {},
    status = 200,
  ) => {
    const methods = signInButtons(deps, next);
    const body = signInPage({ csrf: presignOf(c), next, methods, ...extra });
    return c.html(await layout({ title: "Sign in", body }), status as 200);
  };

  route.get("/signin", headers, async (c) => {
    // Shown even to a signed-in browser: signing in again replaces its session (a planted one included).
    return show(c, safeNext(c.req.query("next")));
  });

  route.post("/signin", headers, async (c) => {
    const form = await formOf(c);
    const next = safeNext(form.next);
    // A form without `method` is the older token-only form (scripts post it): a token when one is sent.
    const byPassword = form.method === "password" || (form.method !== "token" && form.token === undefined);
    const login = (form.login ?? "").trim().slice(0, MAX_LOGIN_LENGTH);
    const keys = [addressKey(clientAddress(c, deps.trustedProxies ?? []))];
    // A browser that signed in to this account before is limited on its own key, not the account's.
    const device = byPassword ? await knownDevice(c, deps.database, clock()) : undefined;
    if (byPassword) keys.push(device?.names(login) ? device.key : accountKey(login));
    const blocked = limits.blockedForAny(keys);
    if (blocked !== undefined) {
      c.header("Retry-After", String(blocked));
      return show(
        c,
        next,
        { error: `Too many failed sign-ins: wait ${blocked} seconds and try again.`, login },
        429,
      );
    }
    const presign = getCookie(c, PRESIGN_COOKIE) ?? "";
    if (!sameSecret(form[CSRF_FIELD] ?? "", presign)) {
      return show(
        c,
        next,
        { error: "This form has expired: it is shown again, sign in once more.", login },
        403,
      );
    }
    const refuse = async (reason: string, message: string) => {
      deps.logger.log("info", "web sign-in refused", { requestId: c.get("requestId"), reason });
      for (const key of keys) await limits.failed(key);
      return show(c, next, { error: message, ...(byPassword ? { login } : {}) }, 401);
    };

    if (byPassword) {
      // The same lookup and the same hash work whether the user exists, has a password, or neither.
      const user = await deps.database.read((ex) => findSignInUser(ex, login));
      const ok = await verifyPassword(form.password ?? "", user?.passwordHash);
      if (!ok || !user) return refuse("wrong username or password", WRONG_PASSWORD);
      await trustThisDevice(c, deps.database, user.id, device, clock());
      const opened = await openUserSession(c, deps, { userId: user.id, method: "password", next });
      if (!opened) {
        return show(
          c,
          next,
          { error: "You are not a member of any workspace yet: ask a workspace admin to invite you.", login },
          403,
        );
      }
      setCookie(c, PRESIGN_COOKIE, "", cookieOptions(c, 0));
      return c.redirect(opened.location, 303);
    }

    const result = await authenticate(deps.database, `Bearer ${(form.token ?? "").trim()}`, clock());
    if (!result.ok) return refuse(result.reason, `Sign-in refused. ${result.reason}`);
    await openSession(c, {
      ...sessions,
      auth: result.auth,
      ttlMs: deps.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
    });
    // The pre-sign-in value has done its job; the session's own token protects forms from now on.
    setCookie(c, PRESIGN_COOKIE, "", cookieOptions(c, 0));
    return c.redirect(next, 303);
  });

  route.post("/signout", headers, async (c) => {
    const found = await resolveSession(c, sessions);
    const form = await formOf(c);
    if (found && !sameSecret(form[CSRF_FIELD] ?? "", found.session.csrf)) {
      return c.text("This form did not come from this site: reload the page and try again.", 403);
    }
    await closeSession(c, sessions);
    return c.redirect("/signin", 303);
  });
  return route;
}
