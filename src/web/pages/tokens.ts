/**
 * My tokens (issue 13): the signed-in member's own personal access tokens, through list_my_tokens,
 * create_my_token and revoke_my_token. A new token's value is on the page that answers the create form
 * only (Cache-Control: no-store; never stored in clear, so a reload or a later visit cannot show it).
 * Revoking the token this session was opened with ends the session (it acts through its token).
 */
import { html } from "hono/html";
import type { DomainError } from "../../core/errors.js";
import { ROLES, roleAtLeast } from "../../core/roles.js";
import { nextPageLink } from "../forms.js";
import { csrfField, type Html, notice } from "../layout.js";
import type { PageContext } from "../page.js";
import { statusOf } from "../page.js";
import type { PageModule } from "../routes.js";
import { badge, empty, when } from "../view.js";

interface OwnToken {
  id: number;
  name: string;
  role_ceiling: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  current: boolean;
}

/** Tokens on one page; the "Next page" link carries list_my_tokens' cursor. */
const TOKENS_SHOWN = 20;

interface NewToken {
  id: number;
  name: string;
  token: string;
}

function state(t: OwnToken, now: string): Html {
  if (t.revoked_at) return html`${badge("revoked")} ${when(t.revoked_at)}`;
  if (t.expires_at && t.expires_at <= now) return badge("expired");
  return badge("active");
}

function revokeForm(p: PageContext, t: OwnToken): Html {
  if (t.revoked_at) return html``;
  const label = t.current ? "Revoke (ends this session)" : "Revoke";
  return html`<form method="post" action="/tokens/${t.id}/revoke" class="inline">${csrfField(p.csrf)}<button type="submit" aria-label="${label}: ${t.name}">${label}</button></form>`;
}

async function render(
  p: PageContext,
  extra: { created?: NewToken; error?: DomainError; form?: Record<string, string> } = {},
): Promise<Response> {
  // The newest page after a create (the new token is first); a GET may carry the cursor of a later page.
  const cursor = extra.created || extra.error ? undefined : p.query("cursor") || undefined;
  const { tokens, next_cursor } = await p.read<{ tokens: OwnToken[]; next_cursor?: string }>(
    "list_my_tokens",
    { limit: TOKENS_SHOWN, ...(cursor ? { cursor } : {}) },
  );
  const now = new Date().toISOString();
  const form = extra.form ?? {};
  const roles = ROLES.filter((r) => roleAtLeast(p.auth.role, r));
  const created = extra.created;
  const body = html`<h1>My tokens</h1>
<p class="muted">Personal access tokens let assistants and scripts act as you (${p.auth.username}) in workspace ${p.auth.workspaceSlug}, over MCP or JSON-RPC.</p>
${
  created
    ? html`<div class="notice ok" role="status"><label for="new-token">Your new token “${created.name}”</label>
<input id="new-token" class="secret" type="text" readonly value="${created.token}" autocomplete="off" spellcheck="false" aria-describedby="new-token-hint">
<p id="new-token-hint" class="hint">Copy it now (select it, then Ctrl+C or ⌘C): it is shown this once only and cannot be shown again. Whoever holds it acts as you; revoke it below if it leaks.</p></div>`
    : ""
}
${extra.error ? notice("error", extra.error.message) : ""}
<section aria-labelledby="new-token-title"><h2 id="new-token-title">Create a token</h2>
<form method="post" action="/tokens" class="stack">${csrfField(p.csrf)}
<label for="f-name">Name (what it is for)</label><input id="f-name" name="name" required maxlength="100" value="${form.name ?? ""}" placeholder="laptop">
<label for="f-expires">Expires after (days, 1–365; empty: never)</label><input id="f-expires" name="expires_in_days" type="number" min="1" max="365" value="${form.expires_in_days ?? ""}">
<label for="f-role">Role ceiling</label><select id="f-role" name="role"><option value="">as this session’s token</option>${roles.map(
    (r) => html`<option value="${r}"${form.role === r ? html` selected` : ""}>${r}</option>`,
  )}</select>
<button type="submit">Create token</button></form></section>
<section aria-labelledby="tokens-title"><h2 id="tokens-title">Your tokens</h2>
${
  tokens.length === 0
    ? empty("You have no tokens in this workspace.")
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Role ceiling</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${tokens.map(
        (t) =>
          html`<tr><td>${t.name}${t.current ? html` <span class="muted">(this session)</span>` : ""}</td><td>${
            t.role_ceiling ?? "—"
          }</td><td>${when(t.created_at)}</td><td>${t.last_used_at ? when(t.last_used_at) : "never"}</td><td>${
            t.expires_at ? when(t.expires_at) : "never"
          }</td><td>${state(t, now)}</td><td>${revokeForm(p, t)}</td></tr>`,
      )}</tbody></table></div>`
}${
  next_cursor
    ? html`<p class="muted">Showing the ${cursor ? "next" : "newest"} ${tokens.length} tokens; older ones are on the next page.</p>${nextPageLink(new URL("/tokens", p.c.req.url).href, next_cursor)}`
    : ""
}</section>`;
  // The answer to a create holds the secret: never kept by any cache (also the default of every page).
  p.c.header("Cache-Control", "no-store");
  return p.page("My tokens", body, {
    section: "tokens",
    ...(extra.error ? { status: statusOf(extra.error) } : {}),
  });
}

export const tokenPages: PageModule = (pages) => {
  pages.get("/tokens", (p) => render(p));

  pages.post("/tokens", async (p) => {
    const form = await p.form();
    const days = (form.expires_in_days ?? "").trim();
    const done = await p.call<NewToken>("create_my_token", {
      name: form.name ?? "",
      ...(days ? { expires_in_days: Number(days) } : {}),
      ...(form.role ? { role: form.role } : {}),
    });
    return done.ok ? render(p, { created: done.value }) : render(p, { error: done.error, form });
  });

  pages.post("/tokens/:id/revoke", async (p) => {
    const id = Number(p.param("id"));
    const done = await p.call<OwnToken>("revoke_my_token", { token_id: id });
    if (!done.ok) return p.failed(done.error, "Token not revoked");
    // This session acted through that token: it has ended with it.
    return p.redirect(done.value.current ? "/signin" : "/tokens");
  });
};
