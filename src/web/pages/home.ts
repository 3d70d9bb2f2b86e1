/** Workspace home: counts by status, coverage, suspect links, open reviews, recent changes, epics. */
import { html } from "hono/html";
import { csrfField, type Html, notice } from "../layout.js";
import type { PageModule } from "../routes.js";
import { badge, empty, refLink, section, when } from "../view.js";

interface Overview {
  counts: { kind: string; status: string; count: number }[];
  recent: {
    reference_id: string;
    revision: number;
    op: string;
    username: string | null;
    created_at: string;
    change_note: string | null;
    title: string | null;
  }[];
}
interface Summary {
  requirements: number;
  counts: { covered: number; impl_only: number; test_only: number; uncovered: number };
  repositories: { repository: string; commit: string }[];
}
interface Suspects {
  relationships: {
    source_requirement_id: string;
    target_requirement_id: string;
    relationship_type: string;
  }[];
  trace_citations: { reference_id: string; repository: string; file: string; line: number }[];
  next_cursor?: string;
}
interface Reviews {
  reviews: {
    reference_id: string;
    reviewer: string;
    requested_by: string | null;
    status: string;
    requested_at: string;
  }[];
}
interface EpicPage {
  items: { reference_id: string; title: string; status: string }[];
  next_cursor?: string;
}

/** Suspect links on one page of home; `?suspects=<cursor>` shows the next ones. */
const SUSPECTS_SHOWN = 20;

const KINDS: [string, string][] = [
  ["epic", "Epics"],
  ["user_story", "User stories"],
  ["requirement", "Requirements"],
];

export const homePage: PageModule = (pages) => {
  pages.get("/", async (p) => {
    const suspectsCursor = p.query("suspects") || undefined;
    const [overview, summary, suspects, reviews, epics] = await Promise.all([
      p.read<Overview>("workspace_overview", {}),
      p.read<Summary>("trace_summary", {}),
      p.read<Suspects>("list_suspect_links", {
        limit: SUSPECTS_SHOWN,
        ...(suspectsCursor ? { cursor: suspectsCursor } : {}),
      }),
      p.read<Reviews>("list_reviews", { status: "pending" }),
      p.read<EpicPage>("list_epics", { limit: 100 }),
    ]);
    const counts = html`<div class="cards">${KINDS.map(([kind, label]) => {
      const rows = overview.counts.filter((c) => c.kind === kind);
      const total = rows.reduce((n, r) => n + r.count, 0);
      return html`<div class="card"><h3>${label} <span class="num">${total}</span></h3><ul class="plain">${rows.map(
        (r) => html`<li>${badge(r.status)} ${r.count}</li>`,
      )}</ul></div>`;
    })}</div>`;
    const c = summary.counts;
    const coverage =
      summary.repositories.length === 0
        ? empty("No trace scan pushed yet: run `reqlix-mcp trace push` in a repository.")
        : html`<p>${summary.requirements} Draft and Active requirements over ${summary.repositories.length} repositories:</p>
<ul class="plain inline-list"><li>${badge("covered")} ${c.covered}</li><li>${badge("impl only")} ${c.impl_only}</li><li>${badge("test only")} ${c.test_only}</li><li>${badge("uncovered")} ${c.uncovered}</li></ul>`;
    const suspectList =
      suspects.relationships.length + suspects.trace_citations.length === 0
        ? empty("No suspect links.")
        : html`<ul>${suspects.relationships.map(
            (r) =>
              html`<li>${refLink(r.source_requirement_id)} ${r.relationship_type} ${refLink(r.target_requirement_id)}</li>`,
          )}${suspects.trace_citations.map(
            (t) =>
              html`<li>${refLink(t.reference_id)} cited at <code>${t.repository}:${t.file}:${t.line}</code></li>`,
          )}</ul>${moreSuspects(suspects)}`;
    const reviewList =
      reviews.reviews.length === 0
        ? empty("No open reviews.")
        : html`<ul>${reviews.reviews.map(
            (r) =>
              html`<li>${refLink(r.reference_id)} · review by ${r.reviewer}${r.requested_by ? ` for ${r.requested_by}` : ""} · requested ${when(r.requested_at)}</li>`,
          )}</ul>`;
    const recent =
      overview.recent.length === 0
        ? empty("Nothing has changed yet.")
        : html`<ol class="plain changes">${overview.recent.map(
            (r) =>
              html`<li>${when(r.created_at)} ${refLink(r.reference_id, r.title ?? undefined)} <span class="muted">${r.op} r${r.revision} by ${r.username ?? "unknown"}${r.change_note ? html` — ${r.change_note}` : ""}</span></li>`,
          )}</ol>`;
    const epicList =
      epics.items.length === 0
        ? empty("No epics yet.")
        : html`<ul>${epics.items.map((e) => html`<li>${refLink(e.reference_id, e.title)} ${badge(e.status)}</li>`)}</ul>`;
    const created = p.query("baseline");
    return p.page(
      `Workspace ${p.auth.workspaceSlug}`,
      html`<h1>Workspace ${p.auth.workspaceSlug}</h1>
${created ? notice("ok", html`Baseline <strong>${created}</strong> created.`) : ""}
${section("Counts by status", "counts", counts)}
<div class="grid2">
${section("Coverage", "coverage", coverage)}
${section("Suspect links", "suspects", suspectList)}
${section("Open reviews", "reviews", reviewList)}
${section("Epics", "epics", html`${epicList}${p.canEdit ? html`<p><a class="button" href="/epics/new">New epic</a></p>` : ""}`)}
</div>
${section("Recent changes", "recent", recent)}
${p.canEdit ? section("Create a baseline", "baseline", baselineForm(p.csrf)) : ""}`,
      { section: "home" },
    );
  });

  // Create a baseline of the workspace or of one epic (create_baseline); the baselines pages list them.
  pages.post("/baselines", async (p) => {
    const form = await p.form();
    const done = await p.call<{ name: string }>("create_baseline", {
      name: form.name ?? "",
      ...(form.description ? { description: form.description } : {}),
      ...(form.epic_id ? { epic_id: form.epic_id } : {}),
    });
    if (!done.ok) return p.failed(done.error, "Baseline not created");
    const back = form.epic_id ? `/epics/${encodeURIComponent(form.epic_id)}` : "/";
    return p.redirect(`${back}?baseline=${encodeURIComponent(done.value.name)}`);
  });
};

/** How many suspect links are shown and, when more follow, the link to them (the cursor in `suspects`). */
function moreSuspects(page: Suspects): Html {
  if (!page.next_cursor) return html``;
  const shown = page.relationships.length + page.trace_citations.length;
  return html`<p class="muted">Showing ${shown} suspect links; more follow.</p>
<nav class="pager" aria-label="Suspect links pages"><a href="/?suspects=${encodeURIComponent(page.next_cursor)}#suspects" rel="next">More suspect links</a></nav>`;
}

/** The create-baseline form (home: the workspace; epic page: that epic). */
export function baselineForm(csrf: string, epicId?: string): Html {
  return html`<form method="post" action="/baselines" class="stack">${csrfField(csrf)}
${epicId ? html`<input type="hidden" name="epic_id" value="${epicId}">` : ""}
<label for="baseline-name">Name</label><input id="baseline-name" name="name" required maxlength="100" placeholder="release-1.4">
<label for="baseline-description">Description</label><input id="baseline-description" name="description" maxlength="2000">
<button type="submit">Create baseline</button></form>`;
}
