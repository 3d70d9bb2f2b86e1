/** Search: the same full-text search as search_requirements, with its filters, paged by its cursor. */
import { html } from "hono/html";
import { nextPageLink, PRIORITY_OPTIONS, select } from "../forms.js";
import type { PageModule } from "../routes.js";
import { badge, empty, priority, refLink } from "../view.js";
import { REQUIREMENT_STATUSES } from "./shapes.js";

interface Hits {
  items: {
    reference_id: string;
    title: string;
    snippet: string;
    status: string;
    priority: number;
    type_name: string;
    user_story_id: string;
  }[];
  next_cursor?: string;
}

export const searchPage: PageModule = (pages) => {
  pages.get("/search", async (p) => {
    const q = (p.query("q") ?? "").trim();
    const status = p.query("status") || undefined;
    const prio = p.query("priority") || undefined;
    const cursor = p.query("cursor") || undefined;
    const form = html`<form method="get" action="/search" class="filters" role="search">
<label for="q">Search requirements<input id="q" name="q" type="search" value="${q}" required></label>
${select("status", "Status", REQUIREMENT_STATUSES, status, "Any")}
${select("priority", "Priority", PRIORITY_OPTIONS, prio, "Any")}
<button type="submit">Search</button></form>`;
    let results = html``;
    if (q !== "") {
      const found = await p.call<Hits>("search_requirements", {
        query: q,
        limit: 20,
        ...(status ? { status } : {}),
        ...(prio ? { priority: Number(prio) } : {}),
        ...(cursor ? { cursor } : {}),
      });
      if (!found.ok) return p.failed(found.error, "Search");
      results =
        found.value.items.length === 0
          ? empty("Nothing found.")
          : html`<ol class="plain results">${found.value.items.map(
              (h) =>
                html`<li>${refLink(h.reference_id, h.title)} ${badge(h.status)} ${priority(h.priority)} <span class="muted">${h.type_name} · ${h.user_story_id}</span><br><span class="muted">${h.snippet}</span></li>`,
            )}</ol>${nextPageLink(p.c.req.url, found.value.next_cursor)}`;
    }
    return p.page(q ? `Search: ${q}` : "Search", html`<h1>Search</h1>${form}${results}`, {
      section: "search",
    });
  });
};
