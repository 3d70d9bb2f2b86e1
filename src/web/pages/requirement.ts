/** The requirement page: text, fields, relationships both ways, traces per repository, history, review. */
import { html } from "hono/html";
import type { Html } from "../layout.js";
import { markdown } from "../markdown.js";
import type { PageModule } from "../routes.js";
import { badge, empty, priority, refLink, section, when } from "../view.js";
import { commentsSection, fields, historySection, verdictsSection } from "./entity-parts.js";
import type { Relationship, RequirementWithLinks, Traces } from "./shapes.js";

function relationshipList(
  links: Relationship[],
  end: "target_requirement_id" | "source_requirement_id",
  verb: (t: string) => string,
): Html {
  if (links.length === 0) return empty("None.");
  return html`<ul class="plain">${links.map(
    (l) =>
      html`<li>${verb(l.relationship_type)} ${refLink(l[end])}${l.suspect ? html` ${badge("suspect")}` : ""}</li>`,
  )}</ul>`;
}

function tracesView(traces: Traces): Html {
  if (traces.repositories.length === 0) return empty("No trace scan cites this requirement yet.");
  return html`<p>${badge(traces.coverage.replace("_", " "))} ${traces.counts.impl} in code, ${traces.counts.test} in tests, ${traces.counts.doc} in docs${traces.counts.suspect ? html`, ${traces.counts.suspect} suspect` : ""}.</p>
${traces.repositories.map(
  (r) => html`<h3>${r.repository} <span class="muted">@ ${r.commit.slice(0, 12)}</span></h3>
${
  r.citations.length === 0
    ? empty("No citation in this repository.")
    : html`<ul class="plain">${r.citations.map(
        (c) =>
          html`<li>${badge(c.kind)} <code>${c.file}:${c.line}</code>${c.test_name ? html` <span class="muted">${c.test_name}</span>` : ""}${c.suspect ? html` ${badge("suspect")} <span class="muted">pinned r${c.revision}</span>` : ""}</li>`,
      )}</ul>`
}${r.citations_not_shown > 0 ? html`<p class="muted">${r.citations_not_shown} more citations not shown.</p>` : ""}
${r.commits.length > 0 ? html`<ul class="plain">${r.commits.map((c) => html`<li><code>${c.sha.slice(0, 10)}</code> ${c.subject}</li>`)}</ul>` : ""}`,
)}`;
}

export const requirementPages: PageModule = (pages) => {
  pages.get("/requirements/:id", async (p) => {
    const id = p.param("id");
    const req = await p.read<RequirementWithLinks>("get_requirement", { requirement_id: id });
    const ref = req.reference_id;
    const path = `/requirements/${encodeURIComponent(ref)}`;
    const [traces, history, comments, verdicts] = await Promise.all([
      p.read<Traces>("get_requirement_traces", { requirement_id: ref }),
      historySection(p, ref, path),
      commentsSection(p, ref),
      verdictsSection(p, ref, req.revision),
    ]);
    const body = html`<p class="muted">${refLink(req.user_story_id)} › <span class="ref">${ref}</span></p>
<h1><span class="ref">${ref}</span> ${req.title}</h1>
${p.canEdit ? html`<p><a class="button" href="${path}/edit">Edit</a></p>` : ""}
${fields([
  ["Status", badge(req.status)],
  ["Priority", priority(req.priority)],
  ["Type", req.type_name],
  ["Coverage", badge(req.coverage.replace("_", " "))],
  ["Revision", req.revision],
  ["Creator", req.creator_username],
  ["Assignee", req.assignee_username],
  ["Updated", when(req.updated_at)],
])}
${section("Description", "description", req.description.trim() === "" ? empty("No description.") : markdown(req.description))}
<div class="grid2">
${section(
  "Relationships: outgoing",
  "outgoing",
  relationshipList(req.relationships.outgoing, "target_requirement_id", (t) => t.replace(/_/g, " ")),
)}
${section(
  "Relationships: incoming",
  "incoming",
  relationshipList(
    req.relationships.incoming,
    "source_requirement_id",
    (t) => `${t.replace(/_/g, " ")} (from)`,
  ),
)}
</div>
${section("Traces", "traces", tracesView(traces))}
${verdicts}
${comments}
${history}`;
    return p.page(`${ref} ${req.title}`, body, { section: "tree" });
  });
};
