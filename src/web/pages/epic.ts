/** The epic page: text, fields, its stories and requirements (the tree), history, review, a baseline form. */
import { html } from "hono/html";
import { nextPageLink } from "../forms.js";
import { notice } from "../layout.js";
import { markdown } from "../markdown.js";
import type { PageModule } from "../routes.js";
import { badge, empty, priority, section, when } from "../view.js";
import { commentsSection, fields, historySection, verdictsSection } from "./entity-parts.js";
import { baselineForm } from "./home.js";
import type { EpicTree } from "./shapes.js";
import { epicTree } from "./tree.js";

export const epicPages: PageModule = (pages) => {
  pages.get("/epics/:id", async (p) => {
    const cursor = p.query("cursor");
    const tree = await p.read<EpicTree>("epic_hierarchy", {
      epic_id: p.param("id"),
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    const ref = tree.reference_id;
    const path = `/epics/${encodeURIComponent(ref)}`;
    const [history, comments, verdicts] = await Promise.all([
      historySection(p, ref, path),
      commentsSection(p, ref),
      verdictsSection(p, ref, tree.revision),
    ]);
    const created = p.query("baseline");
    const body = html`<h1><span class="ref">${ref}</span> ${tree.title}</h1>
${created ? notice("ok", html`Baseline <strong>${created}</strong> created.`) : ""}
${p.canEdit ? html`<p><a class="button" href="${path}/edit">Edit</a> <a class="button" href="/stories/new?epic=${encodeURIComponent(ref)}">New user story</a></p>` : ""}
${fields([
  ["Status", badge(tree.status)],
  ["Priority", priority(tree.priority)],
  ["Revision", tree.revision],
  ["Creator", tree.creator_username],
  ["Assignee", tree.assignee_username],
  ["Updated", when(tree.updated_at)],
])}
${section("Description", "description", tree.description.trim() === "" ? empty("No description.") : markdown(tree.description))}
${section("User stories and requirements", "stories", html`${epicTree(tree, {})}${nextPageLink(p.c.req.url, tree.next_cursor)}`)}
${verdicts}
${comments}
${history}
${p.canEdit ? section("Create a baseline of this epic", "baseline", baselineForm(p.csrf, ref)) : ""}`;
    return p.page(`${ref} ${tree.title}`, body, { section: "tree" });
  });
};
