/**
 * The audit log (issue 13; admins only: list_audit_events refuses everyone else, shown as 403): filter by
 * user, tool, entity and time, paged newest first. Times in the form are UTC.
 */
import { html } from "hono/html";
import type { AuditRow } from "../../core/audit-event.js";
import { nextPageLink } from "../forms.js";
import type { PageModule } from "../routes.js";
import { badge, empty, hrefOf, when } from "../view.js";

const FILTERS = ["user", "tool", "entity", "since", "until"] as const;

/** `2026-11-25T13:00` from a datetime-local field is read as UTC. */
function utc(value: string): string {
  return /(Z|[+-]\d\d:\d\d)$/.test(value) ? value : `${value.length === 16 ? `${value}:00` : value}Z`;
}

function entityCell(referenceId: string | null) {
  if (!referenceId) return "";
  return /^(EP|US|REQ)-\d+$/.test(referenceId)
    ? html`<a href="${hrefOf(referenceId)}" class="ref">${referenceId}</a>`
    : html`<span class="ref">${referenceId}</span>`;
}

export const auditPage: PageModule = (pages) => {
  pages.get("/audit", async (p) => {
    const values = Object.fromEntries(FILTERS.map((f) => [f, (p.query(f) ?? "").trim()])) as Record<
      (typeof FILTERS)[number],
      string
    >;
    const cursor = p.query("cursor");
    const args = {
      ...(values.user ? { username: values.user } : {}),
      ...(values.tool ? { tool: values.tool } : {}),
      ...(values.entity ? { entity: values.entity } : {}),
      ...(values.since ? { since: utc(values.since) } : {}),
      ...(values.until ? { until: utc(values.until) } : {}),
      limit: 50,
      ...(cursor ? { cursor } : {}),
    };
    const page = await p.read<{ items: AuditRow[]; next_cursor?: string }>("list_audit_events", args);
    const field = (name: (typeof FILTERS)[number], label: string, type = "text") =>
      html`<label>${label}<input type="${type}" name="${name}" value="${values[name]}"${
        type === "datetime-local" ? html` step="1"` : ""
      }></label>`;
    const body = html`<h1>Audit log</h1>
<form method="get" action="/audit" class="filters" aria-label="Filter the audit log">
${field("user", "User")}${field("tool", "Tool")}${field("entity", "Entity")}${field("since", "From (UTC)", "datetime-local")}${field(
  "until",
  "Until (UTC)",
  "datetime-local",
)}
<button type="submit">Filter</button> <a href="/audit">Clear</a></form>
${
  page.items.length === 0
    ? empty("No audit events match.")
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">When (UTC)</th><th scope="col">User</th><th scope="col">Channel</th><th scope="col">Call</th><th scope="col">Entity</th><th scope="col">Outcome</th><th scope="col">ms</th><th scope="col">Request id</th></tr></thead><tbody>${page.items.map(
        (e) =>
          html`<tr><td>${when(e.created_at)}</td><td>${e.username ?? "—"}${
            e.token_id === null ? "" : html` <span class="muted">(token ${e.token_id})</span>`
          }</td><td>${e.channel}</td><td>${e.method}${e.target ? html` <code>${e.target}</code>` : ""}</td><td>${entityCell(e.entity)}</td><td>${badge(e.outcome === "ok" ? "ok" : (e.error_code ?? "error"))}</td><td>${
            e.duration_ms ?? ""
          }</td><td><code>${e.request_id ?? ""}</code></td></tr>`,
      )}</tbody></table></div>`
}
${nextPageLink(p.c.req.url, page.next_cursor)}`;
    return p.page("Audit log", body, { section: "audit" });
  });
};
