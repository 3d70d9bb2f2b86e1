/**
 * Sign-in (issue 13): paste a personal access token once; it is checked exactly as a Bearer token is
 * (http/auth.ts) and opens a session (session.ts). The page is one component with a slot for other
 * sign-in methods (the OAuth issue adds its button there). The form is protected by a double-submit CSRF
 * value; failed attempts are counted per client address through the RateLimiter seam, and an address past
 * the limit is refused for the limiter's Retry-After.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { html } from "hono/html";
import { authenticate } from "../http/auth.js";
import { clientAddress } from "../http/client-address.js";
import type { RateLimiter } from "../http/context.js";
import { MemoryRateLimiter } from "../http/rate-limit-memory.js";
import type { WebDeps, WebEnv } from "./context.js";
import { getCookie, setCookie } from "./cookies.js";
import { CSRF_FIELD, formOf, PRESIGN_COOKIE, sameSecret } from "./csrf.js";
import { type Html, layout, notice } from "./layout.js";
import {
  closeSession,
  cookieOptions,
  DEFAULT_SESSION_TTL_MS,
  openSession,
  randomId,
  resolveSession,
} from "./session.js";

/** Sign-in attempts per minute per address when the app is given no limiter of its own. */
export const DEFAULT_SIGN_IN_LIMIT = 10;

export interface SignInProps {
  csrf: string;
  next: string;
  error?: string;
  /** Other ways to sign in (rendered under the token form), e.g. an OAuth button. */
  methods?: Html[];
}

export function signInPage(props: SignInProps): Html {
  return html`<section class="signin">
<h1>Sign in to reqlix</h1>
${props.error ? notice("error", props.error) : ""}
<form method="post" action="/signin" class="stack">
<input type="hidden" name="${CSRF_FIELD}" value="${props.csrf}">
<input type="hidden" name="next" value="${props.next}">
<label for="token">Personal access token</label>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required placeholder="rqx_…" aria-describedby="token-help">
<p id="token-help" class="hint">Paste a token once: the browser keeps a session, never the token. A workspace admin can give you one.</p>
<button type="submit">Sign in</button>
</form>
${props.methods ?? ""}
</section>`;
}

/** Only paths of this site come back after sign-in (no open redirect to another origin). */
export function safeNext(next: string | undefined): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}

export function signInRoutes(deps: WebDeps, headers: MiddlewareHandler): Hono<WebEnv> {
  const route = new Hono<WebEnv>();
  const clock = deps.clock ?? (() => new Date());
  const limiter: RateLimiter =
    deps.signInRateLimiter ?? new MemoryRateLimiter({ limit: DEFAULT_SIGN_IN_LIMIT });
  const sessions = { database: deps.database, clock };
  // Failed sign-ins are counted per address; past the limit the address is refused (even a right token)
  // until the limiter's Retry-After has passed. Successful sign-ins cost nothing.
  const blockedUntil = new Map<string, number>();
  const blockedFor = (key: string): number | undefined => {
    const until = blockedUntil.get(key);
    if (until === undefined) return undefined;
    const wait = until - clock().getTime();
    if (wait > 0) return Math.ceil(wait / 1000);
    blockedUntil.delete(key);
    return undefined;
  };
  const countFailure = async (key: string) => {
    const verdict = await limiter.hit(key);
    if (verdict.ok) return;
    if (blockedUntil.size >= 10_000) blockedUntil.delete(blockedUntil.keys().next().value as string);
    blockedUntil.set(key, clock().getTime() + verdict.retryAfterSeconds * 1000);
  };

  const show = async (c: Context<WebEnv>, next: string, error?: string, status = 200) => {
    let presign = getCookie(c, PRESIGN_COOKIE);
    if (!presign || !/^[A-Za-z0-9_-]{43}$/.test(presign)) {
      presign = randomId();
      setCookie(c, PRESIGN_COOKIE, presign, cookieOptions(c, 60 * 60));
    }
    const body = signInPage({ csrf: presign, next, ...(error ? { error } : {}) });
    return c.html(await layout({ title: "Sign in", body }), status as 200);
  };

  route.get("/signin", headers, async (c) => {
    // Shown even to a signed-in browser: signing in again replaces its session (a planted one included).
    return show(c, safeNext(c.req.query("next")));
  });

  route.post("/signin", headers, async (c) => {
    const form = await formOf(c);
    const next = safeNext(form.next);
    const key = `web-signin:ip:${clientAddress(c, deps.trustedProxies ?? [])}`;
    const blocked = blockedFor(key);
    if (blocked !== undefined) {
      c.header("Retry-After", String(blocked));
      return show(c, next, `Too many failed sign-ins: wait ${blocked} seconds and try again.`, 429);
    }
    const presign = getCookie(c, PRESIGN_COOKIE) ?? "";
    if (!sameSecret(form[CSRF_FIELD] ?? "", presign)) {
      return show(c, next, "This form has expired: it is shown again, paste your token once more.", 403);
    }
    const now = clock();
    const result = await authenticate(deps.database, `Bearer ${(form.token ?? "").trim()}`, now);
    if (!result.ok) {
      deps.logger.log("info", "web sign-in refused", {
        requestId: c.get("requestId"),
        reason: result.reason,
      });
      await countFailure(key);
      return show(c, next, `Sign-in refused. ${result.reason}`, 401);
    }
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
