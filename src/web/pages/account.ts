/**
 * Changing one's password (issue 12 item 4): the current password, then the new one twice. The change
 * ends every other session of the user (every browser, every workspace) and keeps this one. A user
 * without a password gets one from an invitation or from the admin CLI, not here: a session opened with
 * a token (perhaps one with a role ceiling) must not turn into a password for the whole account.
 */
import { html } from "hono/html";
import { hashPassword, passwordProblem, verifyPassword } from "../../core/password.js";
import { hashToken } from "../../core/tokens.js";
import { findSignInUser, revokeUserSessions, setPasswordHash } from "../../db/credentials.repo.js";
import { csrfField, notice } from "../layout.js";
import type { PageContext } from "../page.js";
import type { PageModule } from "../routes.js";

function form(p: PageContext, message?: { kind: "error" | "ok"; text: string }) {
  return html`<h1>Password</h1>
${message ? notice(message.kind, message.text) : ""}
<form method="post" action="/account/password" class="stack">
${csrfField(p.csrf)}
<input type="text" name="username" autocomplete="username" value="${p.auth.username}" hidden>
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="new">New password (at least 10 characters)</label>
<input id="new" name="new" type="password" autocomplete="new-password" required minlength="10">
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="10">
<button type="submit">Change password</button>
</form>
<p class="hint">Changing it signs you out everywhere else.</p>`;
}

export const accountPages: PageModule = (pages, deps) => {
  const clock = deps.clock ?? (() => new Date());
  pages.get("/account/password", async (p) =>
    p.page(
      "Password",
      form(
        p,
        p.query("changed")
          ? { kind: "ok", text: "Password changed. Your other sessions have ended." }
          : undefined,
      ),
    ),
  );

  pages.post("/account/password", async (p) => {
    const sent = await p.form();
    const user = await deps.database.read((ex) => findSignInUser(ex, p.auth.username));
    if (!user?.passwordHash) {
      return p.page(
        "Password",
        form(p, {
          kind: "error",
          text: "Your account has no password yet: an instance admin sets the first one (npm run admin -- set-password).",
        }),
        { status: 409 },
      );
    }
    if (!(await verifyPassword(sent.current ?? "", user.passwordHash))) {
      return p.page("Password", form(p, { kind: "error", text: "The current password is wrong." }), {
        status: 403,
      });
    }
    const problem =
      sent.new !== sent.confirm
        ? "The two new passwords differ: type the same one twice."
        : passwordProblem(sent.new ?? "");
    if (problem) return p.page("Password", form(p, { kind: "error", text: problem }), { status: 400 });
    const hash = await hashPassword(sent.new ?? "");
    const at = clock().toISOString();
    const keep = { idHash: await hashToken(p.c.get("session").id), tokenId: p.auth.tokenId };
    await deps.database.write(async (tx) => {
      await setPasswordHash(tx, user.id, hash, at);
      await revokeUserSessions(tx, user.id, at, keep);
    });
    return p.redirect("/account/password?changed=1");
  });
};
