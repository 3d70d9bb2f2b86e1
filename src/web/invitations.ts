/**
 * Accepting an invitation (issue 12 item 4): `/invite?code=…` shows the workspace and role; the invited
 * person chooses a username and password (or, when the invited email already has an account, gives that
 * account's password) and is signed in as a member with the invitation's role. The code works once and
 * until it expires; the page is reached without a session, so its form carries the double-submit CSRF
 * value of the sign-in page, and failures count against the address like failed sign-ins.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { html } from "hono/html";
import { isDomainError } from "../core/errors.js";
import { MIN_PASSWORD_LENGTH } from "../core/password.js";
import { acceptInvitationOp, invitationProblem, lookUpInvitation } from "../db/account-ops.js";
import { clientAddress } from "../http/client-address.js";
import { FailureLimits } from "../http/failure-limits.js";
import { MemoryRateLimiter } from "../http/rate-limit-memory.js";
import type { WebDeps, WebEnv } from "./context.js";
import { getCookie, setCookie } from "./cookies.js";
import { CSRF_FIELD, formOf, PRESIGN_COOKIE, sameSecret } from "./csrf.js";
import { layout, notice } from "./layout.js";
import { cookieOptions } from "./session.js";
import { addressKey, DEFAULT_SIGN_IN_LIMIT, presignOf } from "./sign-in.js";
import { joinButtons } from "./upstream.js";
import { openUserSession } from "./user-session.js";

export function invitationRoutes(deps: WebDeps, headers: MiddlewareHandler): Hono<WebEnv> {
  const route = new Hono<WebEnv>();
  const clock = deps.clock ?? (() => new Date());
  const limits = new FailureLimits(
    deps.signInRateLimiter ?? new MemoryRateLimiter({ limit: DEFAULT_SIGN_IN_LIMIT }),
    clock,
  );

  const show = async (c: Context<WebEnv>, code: string, error?: string, status = 200, username = "") => {
    const { invitation, existingUsername } = await lookUpInvitation(deps.database, code);
    const problem = invitationProblem(invitation, clock());
    if (problem || !invitation) {
      const body = html`<section class="signin"><h1>Invitation</h1>${notice("error", problem ?? "")}<p><a href="/signin">Sign in</a></p></section>`;
      return c.html(await layout({ title: "Invitation", body }), (invitation ? 410 : 404) as 200);
    }
    const body = html`<section class="signin">
<h1>Join ${invitation.workspaceName}</h1>
<p>You are invited to workspace <strong>${invitation.workspaceSlug}</strong> as <strong>${invitation.role}</strong> (${invitation.email}).</p>
${error ? notice("error", error) : ""}
<form method="post" action="/invite" class="stack">
<input type="hidden" name="${CSRF_FIELD}" value="${presignOf(c)}">
<input type="hidden" name="code" value="${code}">
${
  existingUsername
    ? html`<p>This email belongs to the account <strong>${existingUsername}</strong>: give its password to join.</p>
<input type="text" name="username" autocomplete="username" value="${existingUsername}" hidden>
<label for="password">Password of ${existingUsername}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`
    : html`<label for="username">Choose a username</label>
<input id="username" name="username" type="text" autocomplete="username" spellcheck="false" autocapitalize="none" required pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}" value="${username}">
<label for="password">Choose a password (at least ${MIN_PASSWORD_LENGTH} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}">
<label for="confirm">The password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}">`
}
<button type="submit">Join ${invitation.workspaceSlug}</button>
</form>
${joinButtons(deps, code)}
</section>`;
    return c.html(await layout({ title: "Invitation", body }), status as 200);
  };

  route.get("/invite", headers, async (c) => show(c, c.req.query("code") ?? ""));

  route.post("/invite", headers, async (c) => {
    const form = await formOf(c);
    const code = form.code ?? "";
    const username = (form.username ?? "").trim();
    const key = addressKey(clientAddress(c, deps.trustedProxies ?? []));
    const blocked = limits.blockedFor(key);
    if (blocked !== undefined) {
      c.header("Retry-After", String(blocked));
      return show(c, code, `Too many failed attempts: wait ${blocked} seconds and try again.`, 429, username);
    }
    if (!sameSecret(form[CSRF_FIELD] ?? "", getCookie(c, PRESIGN_COOKIE) ?? "")) {
      return show(c, code, "This form has expired: it is shown again, fill it in once more.", 403, username);
    }
    if (form.confirm !== undefined && form.confirm !== form.password) {
      return show(c, code, "The two passwords differ: type the same one twice.", 400, username);
    }
    if (username !== "" && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(username)) {
      return show(
        c,
        code,
        "A username is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
        400,
        username,
      );
    }
    try {
      const accepted = await acceptInvitationOp(deps.database, {
        secret: code,
        ...(username ? { username } : {}),
        password: form.password ?? "",
        now: clock(),
      });
      const opened = await openUserSession(c, deps, {
        userId: accepted.userId,
        method: "invitation",
        next: "/",
        workspace: accepted.workspaceId,
      });
      setCookie(c, PRESIGN_COOKIE, "", cookieOptions(c, 0));
      return c.redirect(opened?.location ?? "/", 303);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      await limits.failed(key);
      const detail = error.details.errors?.map((e) => e.message).join("; ");
      const status = { invalid_input: 400, forbidden: 403, conflict: 409 }[error.code as string] ?? 400;
      return show(c, code, detail || error.message, status, username);
    }
  });
  return route;
}
