/**
 * Baselines (issue 13): the list, one baseline as it was frozen (paged), and the diff between a baseline
 * and now or another baseline (paged). Through list_baselines, get_baseline and diff_baseline only; a
 * baseline is made on the home page (POST /baselines, create_baseline).
 */
import { html } from "hono/html";
import { nextPageLink } from "../forms.js";
import type { Html } from "../layout.js";
import type { PageModule } from "../routes.js";
import { badge, empty, refLink, when } from "../view.js";
import { changeValue } from "./entity-parts.js";

interface Baseline {
  name: string;
  description: string;
  epic_id: string | null;
  creator_username: string | null;
  created_at: string;
  entry_count: number;
}

interface FrozenEntity {
  entity_kind: string;
  reference_id: string;
  revision: number;
  snapshot: Record<string, unknown>;
}

interface EntityChange {
  entity_kind: string;
  reference_id: string;
  change: "added" | "removed" | "changed";
  from_revision: number | null;
  to_revision: number | null;
  changes?: { field: string; from: unknown; to: unknown }[];
  snapshot?: Record<string, unknown>;
}

interface BaselineDiff {
  from: string;
  to: string;
  counts: { added: number; removed: number; changed: number };
  items: EntityChange[];
  next_cursor?: string;
}

const baselineHref = (name: string) => `/baselines/${encodeURIComponent(name)}`;
const diffHref = (from: string, to?: string) =>
  `/baseline-diff?from=${encodeURIComponent(from)}${to ? `&to=${encodeURIComponent(to)}` : ""}`;

/** A relationship's reference (`REQ-001 depends_on REQ-002`) is not a page: its ends are. */
function entityRef(kind: string, referenceId: string): Html {
  if (kind !== "relationship") return refLink(referenceId);
  const [source, type, target] = referenceId.split(" ");
  return source && type && target
    ? html`${refLink(source)} <span class="muted">${type}</span> ${refLink(target)}`
    : html`${referenceId}`;
}

const titleOf = (snapshot: Record<string, unknown> | undefined) =>
  typeof snapshot?.title === "string" ? snapshot.title : "";

function scope(b: Baseline): Html {
  return b.epic_id ? html`epic ${refLink(b.epic_id)}` : html`whole workspace`;
}

function compareForm(baselines: Baseline[], from?: string, to?: string): Html {
  return html`<form method="get" action="/baseline-diff" class="filters">
<label>Compare baseline<select name="from" required>${baselines.map(
    (b) => html`<option value="${b.name}"${b.name === from ? " selected" : ""}>${b.name}</option>`,
  )}</select></label>
<label>with<select name="to"><option value="">now</option>${baselines.map(
    (b) => html`<option value="${b.name}"${b.name === to ? " selected" : ""}>baseline ${b.name}</option>`,
  )}</select></label>
<button type="submit">Compare</button></form>`;
}

export const baselinePages: PageModule = (pages) => {
  pages.get("/baselines", async (p) => {
    const { baselines } = await p.read<{ baselines: Baseline[] }>("list_baselines", {});
    const body = html`<h1>Baselines</h1>
<p class="muted">A baseline freezes the revision of every entity in the workspace or in one epic, e.g. at a release. Make one on the <a href="/">home page</a>.</p>
${
  baselines.length === 0
    ? empty("No baselines yet.")
    : html`${compareForm(baselines)}<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Entities</th><th scope="col">Made by</th><th scope="col">When</th><th scope="col">Description</th><th scope="col">Compare</th></tr></thead><tbody>${baselines.map(
        (b) =>
          html`<tr><td><a href="${baselineHref(b.name)}">${b.name}</a></td><td>${scope(b)}</td><td>${b.entry_count}</td><td>${
            b.creator_username ?? "—"
          }</td><td>${when(b.created_at)}</td><td>${b.description}</td><td><a href="${diffHref(b.name)}">Changes since</a></td></tr>`,
      )}</tbody></table></div>`
}`;
    return p.page("Baselines", body, { section: "baselines" });
  });

  pages.get("/baselines/:name", async (p) => {
    const cursor = p.query("cursor");
    const b = await p.read<Baseline & { items: FrozenEntity[]; next_cursor?: string }>("get_baseline", {
      name: p.param("name"),
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    const body = html`<p class="muted"><a href="/baselines">← Baselines</a></p>
<h1>Baseline ${b.name}</h1>
<dl class="fields"><dt>Scope</dt><dd>${scope(b)}</dd><dt>Entities</dt><dd>${b.entry_count}</dd><dt>Made by</dt><dd>${
      b.creator_username ?? "—"
    }</dd><dt>When</dt><dd>${when(b.created_at)}</dd><dt>Description</dt><dd>${b.description || "—"}</dd></dl>
<p><a href="${diffHref(b.name)}">What changed since this baseline</a></p>
<h2>As it was${cursor ? " (continued)" : ""}</h2>
${
  b.items.length === 0
    ? empty("This baseline froze nothing.")
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Kind</th><th scope="col">Entity</th><th scope="col">Revision</th><th scope="col">Title then</th></tr></thead><tbody>${b.items.map(
        (e) =>
          html`<tr><td>${e.entity_kind.replace(/_/g, " ")}</td><td>${entityRef(e.entity_kind, e.reference_id)}</td><td>${e.revision}</td><td>${titleOf(e.snapshot)}</td></tr>`,
      )}</tbody></table></div>`
}
${nextPageLink(p.c.req.url, b.next_cursor)}`;
    return p.page(`Baseline ${b.name}`, body, { section: "baselines" });
  });

  pages.get("/baseline-diff", async (p) => {
    const from = p.query("from") ?? "";
    const to = p.query("to") || undefined;
    const cursor = p.query("cursor");
    const [{ baselines }, diff] = await Promise.all([
      p.read<{ baselines: Baseline[] }>("list_baselines", {}),
      p.read<BaselineDiff>("diff_baseline", {
        from,
        ...(to ? { to } : {}),
        limit: 100,
        ...(cursor ? { cursor } : {}),
      }),
    ]);
    const against = to ? html`baseline <a href="${baselineHref(to)}">${to}</a>` : html`now`;
    const body = html`<p class="muted"><a href="/baselines">← Baselines</a></p>
<h1>Changes from baseline ${diff.from} to ${to ? `baseline ${to}` : "now"}</h1>
${compareForm(baselines, from, to)}
<p>From <a href="${baselineHref(diff.from)}">${diff.from}</a> to ${against}: ${diff.counts.changed} changed, ${diff.counts.added} added, ${diff.counts.removed} removed.</p>
${
  diff.items.length === 0
    ? empty("Nothing changed.")
    : html`<ol class="plain">${diff.items.map(
        (item) =>
          html`<li class="comment"><h2>${badge(item.change)} ${item.entity_kind.replace(/_/g, " ")} ${entityRef(
            item.entity_kind,
            item.reference_id,
          )} <span class="muted">${
            item.change === "changed"
              ? `revision ${item.from_revision} → ${item.to_revision}`
              : item.change === "added"
                ? `revision ${item.to_revision}`
                : `was revision ${item.from_revision}`
          }</span></h2>${
            item.changes && item.changes.length > 0
              ? html`<div class="table-wrap"><table><thead><tr><th scope="col">Field</th><th scope="col">Change</th></tr></thead><tbody>${item.changes.map(
                  (c) => html`<tr><th scope="row">${c.field}</th><td>${changeValue(c.from, c.to)}</td></tr>`,
                )}</tbody></table></div>`
              : titleOf(item.snapshot)
                ? html`<p>${titleOf(item.snapshot)}</p>`
                : ""
          }</li>`,
      )}</ol>`
}
${nextPageLink(p.c.req.url, diff.next_cursor)}`;
    return p.page(`Changes since ${diff.from}`, body, { section: "baselines" });
  });
};
