/**
 * OAuth pages (issue 12). `GET /oauth/authorize` behind the web session (a browser not signed in goes to the
 * sign-in page and comes back here): the consent page naming the client, where it sends the browser back,
 * the workspace and the scopes with the role they allow. `POST /oauth/authorize` (CSRF-checked like every
 * form) checks the request again from the form and approves or declines. `/authorized-clients` lists the
 * member's authorized clients in this workspace with revoke.
 */
import { html } from "hono/html";
import { type Scope, scopeRole } from "../../core/oauth.js";
import { minRole } from "../../core/roles.js";
import {
  AUTHORIZE_PARAMS,
  type AuthorizeCheck,
  type AuthorizeDeps,
  type AuthorizeParams,
  approve,
  checkAuthorizeRequest,
  deny,
} from "../../http/oauth-authorize.js";
import { issuerOf } from "../../http/oauth-common.js";
import { listAuthorizedClients, revokeAuthorizedClient } from "../../http/oauth-grants.js";
import type { WebDeps } from "../context.js";
import { csrfField, notice } from "../layout.js";
import type { PageContext } from "../page.js";
import type { PageModule } from "../routes.js";
import { policyWithFormAction } from "../security.js";
import { empty, when } from "../view.js";

const SCOPE_TEXT: Record<Scope, string> = {
  "reqlix:read": "read epics, stories, requirements, criteria, history and docs",
  "reqlix:write": "create, change and delete them",
  "reqlix:admin": "administer the workspace (types, docsets, approval rules)",
};

function authorizeDeps(p: PageContext, deps: WebDeps): AuthorizeDeps {
  return {
    database: deps.database,
    clock: deps.clock ?? (() => new Date()),
    issuer: issuerOf(p.c, deps.publicUrl),
    ...(deps.oauthDocuments ? { documents: deps.oauthDocuments } : {}),
  };
}

async function refused(p: PageContext, check: AuthorizeCheck & { kind: "page" | "redirect" }) {
  if (check.kind === "redirect") return p.redirect(check.location);
  return p.page(
    "Authorization refused",
    html`<h1>This authorization request cannot be used</h1>${notice("error", check.message)}
<p>Nothing was sent to the application. Start the connection again from the application, or ask its maker.</p>`,
    { status: check.status },
  );
}

export const oauthPages: PageModule = (pages, deps) => {
  pages.get("/oauth/authorize", async (p) => {
    const params: AuthorizeParams = {};
    for (const k of AUTHORIZE_PARAMS) {
      const v = p.query(k);
      if (v !== undefined) params[k] = v;
    }
    const check = await checkAuthorizeRequest(authorizeDeps(p, deps), params);
    if (check.kind !== "ok") return refused(p, check);
    const { client, scopes, redirectUri } = check.request;
    const role = minRole(scopeRole(scopes), p.auth.role);
    const fromDocument = client.source === "metadata_document";
    const body = html`<section class="consent stack" aria-labelledby="consent-title">
<h1 id="consent-title">Allow “${client.name}” to use reqlix as you?</h1>
<dl class="facts">
<dt>Application</dt><dd><strong>${client.name}</strong> <span class="muted">(${
      fromDocument
        ? html`identified by its metadata at ${new URL(client.clientId).host}`
        : html`registered itself under this name: check you started this connection`
    })</span></dd>
<dt>Sends you back to</dt><dd><code>${redirectUri}</code></dd>
<dt>Account</dt><dd>${p.auth.username}</dd>
<dt>Workspace</dt><dd>${p.auth.workspaceSlug}</dd>
<dt>Access</dt><dd><ul>${scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_TEXT[s]}</li>`)}</ul>
<p class="hint">It acts with the role <strong>${role}</strong> (the lower of your role, ${p.auth.role}, and what these scopes allow, ${scopeRole(scopes)}).</p></dd>
</dl>
<form method="post" action="/oauth/authorize" class="stack">${csrfField(p.csrf)}
${AUTHORIZE_PARAMS.map((k) =>
  params[k] === undefined ? "" : html`<input type="hidden" name="${k}" value="${params[k]}">`,
)}
<div class="actions"><button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>
<p class="hint">You can revoke it at any time under <a href="/authorized-clients">Connected apps</a>.</p>
</section>`;
    // The consent page must not be framed (CSP frame-ancestors 'none') nor kept by a cache; its form's
    // answer redirects to the client, which form-action must allow (exactly that origin or scheme).
    p.c.header("Cache-Control", "no-store");
    const target = new URL(redirectUri);
    const source = /^https?:$/.test(target.protocol) ? target.origin : target.protocol;
    p.c.header("Content-Security-Policy", policyWithFormAction(source));
    return p.page("Authorize an application", body, { section: "apps" });
  });

  pages.post("/oauth/authorize", async (p) => {
    const form = await p.form();
    const params: AuthorizeParams = {};
    for (const k of AUTHORIZE_PARAMS) if (form[k] !== undefined) params[k] = form[k];
    const ad = authorizeDeps(p, deps);
    const check = await checkAuthorizeRequest(ad, params);
    if (check.kind !== "ok") return refused(p, check);
    if (form.decision !== "approve") return p.redirect(deny(ad, check.request));
    return p.redirect(await approve(ad, check.request, p.auth));
  });

  pages.get("/authorized-clients", async (p) => {
    const grants = await listAuthorizedClients(deps.database, p.auth);
    const body = html`<h1>Connected apps</h1>
<p class="muted">Applications you allowed to act as you (${p.auth.username}) in workspace ${p.auth.workspaceSlug} over OAuth. Revoking one ends its access at once; it has to ask you again.</p>
${
  grants.length === 0
    ? empty("No application is connected to this workspace as you.")
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Application</th><th scope="col">Scopes</th><th scope="col">Authorized</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${grants.map(
        (g) =>
          html`<tr><td>${g.client_name} <span class="muted">${g.client_id}</span></td><td>${g.scope}</td><td>${when(
            g.created_at,
          )}</td><td>${g.last_used_at ? when(g.last_used_at) : "never"}</td><td><form method="post" action="/authorized-clients/${g.id}/revoke" class="inline">${csrfField(p.csrf)}<button type="submit" aria-label="Revoke: ${g.client_name}">Revoke</button></form></td></tr>`,
      )}</tbody></table></div>`
}`;
    return p.page("Connected apps", body, { section: "apps" });
  });

  pages.post("/authorized-clients/:id/revoke", async (p) => {
    const clock = deps.clock ?? (() => new Date());
    await revokeAuthorizedClient(deps, p.auth, Number(p.param("id")), clock().toISOString());
    return p.redirect("/authorized-clients");
  });
};
