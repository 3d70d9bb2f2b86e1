/**
 * The requirements tree: epics → user stories → requirements, one epic at a time (epic_hierarchy, up to
 * 1,000 items a page), filtered by status, priority, type and coverage. The filters narrow what the page
 * shows; the data comes whole from the tool.
 */
import { html } from "hono/html";
import { nextPageLink, PRIORITY_OPTIONS, select } from "../forms.js";
import type { Html } from "../layout.js";
import type { PageModule } from "../routes.js";
import { badge, empty, priority, refLink } from "../view.js";
import {
  COVERAGES,
  type EpicTree,
  type Page,
  REQUIREMENT_STATUSES,
  type Requirement,
  type WorkItem,
} from "./shapes.js";

interface Filters {
  status?: string;
  priority?: string;
  type?: string;
  coverage?: string;
}

function matches(r: Requirement, f: Filters): boolean {
  return (
    (!f.status || r.status === f.status) &&
    (!f.priority || String(r.priority) === f.priority) &&
    (!f.type || r.type_name.toLowerCase() === f.type.toLowerCase()) &&
    (!f.coverage || r.coverage === f.coverage)
  );
}

export function requirementRow(r: Requirement): Html {
  return html`<li class="req">${refLink(r.reference_id, r.title)} ${badge(r.status)} ${priority(r.priority)} <span class="muted">${r.type_name}</span>${r.coverage ? html` ${badge(r.coverage.replace("_", " "))}` : ""}</li>`;
}

export function epicTree(tree: EpicTree, filters: Filters): Html {
  const filtering = Object.values(filters).some(Boolean);
  const stories = tree.user_stories
    .map((s) => ({ ...s, requirements: s.requirements.filter((r) => matches(r, filters)) }))
    .filter((s) => !filtering || s.requirements.length > 0);
  if (stories.length === 0)
    return empty(filtering ? "No requirement matches these filters." : "No user stories yet.");
  return html`<div class="tree"><ul>${stories.map(
    (
      s,
    ) => html`<li><div class="story">${refLink(s.reference_id, s.title)} ${badge(s.status)} <span class="muted">${s.requirements.length} requirements</span></div>
<ul>${s.requirements.map(requirementRow)}</ul></li>`,
  )}</ul></div>`;
}

export const treePage: PageModule = (pages) => {
  pages.get("/tree", async (p) => {
    const epicId = p.query("epic") || undefined;
    const filters: Filters = {
      status: p.query("status") || undefined,
      priority: p.query("priority") || undefined,
      type: p.query("type") || undefined,
      coverage: p.query("coverage") || undefined,
    };
    const [epics, types] = await Promise.all([
      p.read<Page<WorkItem>>("list_epics", { limit: 100 }),
      p.read<{ types: { name: string }[] }>("list_requirement_types", {}),
    ]);
    const cursor = p.query("cursor");
    const tree = epicId
      ? await p.read<EpicTree>("epic_hierarchy", {
          epic_id: epicId,
          limit: 1000,
          ...(cursor ? { cursor } : {}),
        })
      : undefined;
    const form = html`<form method="get" action="/tree" class="filters" data-autosubmit>
${select(
  "epic",
  "Epic",
  epics.items.map((e) => [e.reference_id, `${e.reference_id} ${e.title}`] as [string, string]),
  epicId,
  "Choose an epic",
)}
${select("status", "Status", REQUIREMENT_STATUSES, filters.status, "Any")}
${select("priority", "Priority", PRIORITY_OPTIONS, filters.priority, "Any")}
${select(
  "type",
  "Type",
  types.types.map((t) => t.name),
  filters.type,
  "Any",
)}
${select(
  "coverage",
  "Coverage",
  COVERAGES.map((c) => [c, c.replace("_", " ")] as [string, string]),
  filters.coverage,
  "Any",
)}
<button type="submit">Apply</button></form>`;
    const body = tree
      ? html`<h2>${refLink(tree.reference_id, tree.title)}</h2>${epicTree(tree, filters)}${nextPageLink(p.c.req.url, tree.next_cursor)}`
      : epics.items.length === 0
        ? empty("No epics yet.")
        : html`<ul class="plain">${epics.items.map(
            (e) =>
              html`<li><a href="/tree?epic=${encodeURIComponent(e.reference_id)}"><span class="ref">${e.reference_id}</span> ${e.title}</a> ${badge(e.status)}</li>`,
          )}</ul>`;
    return p.page(
      "Requirements",
      html`<h1>Requirements</h1>${form}${body}${p.canEdit ? html`<p><a class="button" href="/epics/new">New epic</a></p>` : ""}`,
      {
        section: "tree",
      },
    );
  });
};
