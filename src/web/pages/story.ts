/** The user story page: text, fields, its requirements and acceptance criteria, history, review. */
import { html } from "hono/html";
import { markdown } from "../markdown.js";
import type { PageModule } from "../routes.js";
import { badge, empty, priority, refLink, section, when } from "../view.js";
import { commentsSection, fields, historySection, verdictsSection } from "./entity-parts.js";
import type { Story } from "./shapes.js";
import { requirementRow } from "./tree.js";

export const storyPages: PageModule = (pages) => {
  pages.get("/stories/:id", async (p) => {
    const story = await p.read<Story>("get_user_story", { user_story_id: p.param("id"), limit: 1000 });
    const ref = story.reference_id;
    const path = `/stories/${encodeURIComponent(ref)}`;
    const [history, comments, verdicts] = await Promise.all([
      historySection(p, ref, path),
      commentsSection(p, ref),
      verdictsSection(p, ref, story.revision),
    ]);
    const q = encodeURIComponent(ref);
    const body = html`<p class="muted">${refLink(story.epic_id)} › <span class="ref">${ref}</span></p>
<h1><span class="ref">${ref}</span> ${story.title}</h1>
${p.canEdit ? html`<p><a class="button" href="${path}/edit">Edit</a> <a class="button" href="/requirements/new?story=${q}">New requirement</a> <a class="button" href="/criteria/new?story=${q}">New acceptance criterion</a></p>` : ""}
${fields([
  ["Status", badge(story.status)],
  ["Priority", priority(story.priority)],
  ["Revision", story.revision],
  ["Creator", story.creator_username],
  ["Assignee", story.assignee_username],
  ["Updated", when(story.updated_at)],
])}
${section("Description", "description", story.description.trim() === "" ? empty("No description.") : markdown(story.description))}
${section("Requirements", "requirements", story.requirements.length === 0 ? empty("No requirements yet.") : html`<ul class="plain">${story.requirements.map(requirementRow)}</ul>`)}
${section(
  "Acceptance criteria",
  "criteria",
  story.acceptance_criteria.length === 0
    ? empty("No acceptance criteria yet.")
    : html`<ul class="plain">${story.acceptance_criteria.map(
        (a) =>
          html`<li><span class="ref">${a.reference_id}</span> ${a.title}${p.canEdit ? html` <a href="/criteria/${encodeURIComponent(a.reference_id)}/edit" aria-label="Edit ${a.reference_id}">edit</a>` : ""}${a.description ? markdown(a.description) : ""}</li>`,
      )}</ul>`,
)}
${verdicts}
${comments}
${history}`;
    return p.page(`${ref} ${story.title}`, body, { section: "tree" });
  });
};
