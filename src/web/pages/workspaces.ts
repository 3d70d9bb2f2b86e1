/**
 * Choosing the workspace (issue 12 item 4). A password or invitation session acts in one workspace at a
 * time; a user with several memberships lands here after sign-in and may switch at any time. A switch is
 * a new session (new id, new session token) in the other workspace, and the old one ends. A session
 * opened with a personal access token is bound to the token's workspace and cannot switch.
 */
import { html } from "hono/html";
import { membershipsOfUser, tokenKindOf } from "../../db/credentials.repo.js";
import { csrfField, notice } from "../layout.js";
import type { PageModule } from "../routes.js";
import { safeNext } from "../sign-in.js";
import { openUserSession } from "../user-session.js";

export const workspacePages: PageModule = (pages, deps) => {
  pages.get("/workspaces", async (p) => {
    const next = safeNext(p.query("next"));
    const [all, kind] = await deps.database.read(
      async (ex) =>
        [await membershipsOfUser(ex, p.auth.userId), await tokenKindOf(ex, p.auth.tokenId)] as const,
    );
    const switchable = kind === "session";
    const body = html`<h1>Workspaces</h1>
${
  switchable
    ? html`<p class="muted">You act in one workspace at a time. Choose where to continue.</p>`
    : notice(
        "info",
        "This session was opened with a personal access token: it acts in that token's workspace only. Sign in with your password to switch.",
      )
}
<ul class="workspaces">${all.map(
      (m) =>
        html`<li>${
          switchable && m.workspaceId !== p.auth.workspaceId
            ? html`<form method="post" action="/workspaces" class="inline">${csrfField(p.csrf)}<input type="hidden" name="next" value="${next}"><input type="hidden" name="workspace" value="${m.slug}"><button type="submit">${m.name} (${m.slug})</button></form>`
            : html`<strong>${m.name} (${m.slug})</strong>`
        } <span class="role">${m.role}</span>${
          m.workspaceId === p.auth.workspaceId
            ? html` · current${switchable ? html` · <a href="${next}">continue here</a>` : ""}`
            : ""
        }</li>`,
    )}</ul>`;
    return p.page("Workspaces", body);
  });

  pages.post("/workspaces", async (p) => {
    const form = await p.form();
    const next = safeNext(form.next);
    // Staying where one is needs no new session (and works for a token's session too).
    if (form.workspace === p.auth.workspaceSlug) return p.redirect(next);
    const kind = await deps.database.read((ex) => tokenKindOf(ex, p.auth.tokenId));
    if (kind !== "session") {
      return p.page(
        "Workspaces",
        notice("error", "A session opened with a personal access token cannot switch workspaces."),
        { status: 403 },
      );
    }
    const all = await deps.database.read((ex) => membershipsOfUser(ex, p.auth.userId));
    if (!all.some((m) => m.slug === form.workspace)) {
      return p.page(
        "Workspaces",
        notice("error", `You are not a member of workspace "${form.workspace ?? ""}".`),
        {
          status: 403,
        },
      );
    }
    const opened = await openUserSession(p.c, deps, {
      userId: p.auth.userId,
      method: "password",
      next,
      workspace: form.workspace,
    });
    return p.redirect(opened?.location ?? "/signin");
  });
};
