/**
 * Documentation sets (issue 13): the list (list_docsets) and one docset with its stored pages
 * (list_docset_pages), searchable by keyword (search_docs, the same lexical search assistants use).
 */
import { html } from "hono/html";
import { notice } from "../layout.js";
import type { PageModule } from "../routes.js";
import { empty, when } from "../view.js";

interface Summary {
  name: string;
  version: string;
  aliases: string[];
  local_path: string;
}

interface Docset extends Summary {
  description: string | null;
  page_count: number;
  updated_at: string;
  pages: { path: string; title: string }[];
}

interface Search {
  matched_on: string | null;
  pages: { path: string; title: string; snippet: string }[];
}

const docsetHref = (name: string) => `/docsets/${encodeURIComponent(name)}`;

/** A snippet marks its matches with ** … **: shown as <mark>, everything else as text. */
function snippet(text: string) {
  return text
    .split("**")
    .map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : html`${part.replace(/\s+/g, " ")}`));
}

export const docsetPages: PageModule = (pages) => {
  pages.get("/docsets", async (p) => {
    const { docsets } = await p.read<{ docsets: Summary[] }>("list_docsets", {});
    const body = html`<h1>Documentation sets</h1>
<p class="muted">The library documentation this workspace keeps for its assistants (search_docs).</p>
${
  docsets.length === 0
    ? empty("No documentation sets are registered.")
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Version</th><th scope="col">Aliases</th><th scope="col">Folder</th></tr></thead><tbody>${docsets.map(
        (d) =>
          html`<tr><td><a href="${docsetHref(d.name)}">${d.name}</a></td><td>${d.version}</td><td>${
            d.aliases.join(", ") || "—"
          }</td><td><code>${d.local_path}</code></td></tr>`,
      )}</tbody></table></div>`
}`;
    return p.page("Documentation sets", body, { section: "docsets" });
  });

  pages.get("/docsets/:name", async (p) => {
    const d = await p.read<Docset>("list_docset_pages", { docset: p.param("name"), limit: 1000 });
    const q = (p.query("q") ?? "").trim();
    let results = html``;
    if (q !== "") {
      const words = q.split(/\s+/).slice(0, 10);
      const found = await p.call<Search>("search_docs", {
        docset: d.name,
        keywords: words,
        generalized_keywords: words,
      });
      results = !found.ok
        ? notice("error", found.error.message)
        : found.value.pages.length === 0
          ? empty(`No stored page matches “${q}”.`)
          : html`<ol>${found.value.pages.map(
              (hit) =>
                html`<li><strong>${hit.title}</strong> <code>${hit.path}</code><p>${snippet(hit.snippet)}</p></li>`,
            )}</ol>`;
    }
    const body = html`<p class="muted"><a href="/docsets">← Documentation sets</a></p>
<h1>${d.name} ${d.version}</h1>
<dl class="fields"><dt>Aliases</dt><dd>${d.aliases.join(", ") || "—"}</dd><dt>Folder</dt><dd><code>${d.local_path}</code></dd><dt>Pages</dt><dd>${
      d.page_count
    }</dd><dt>Updated</dt><dd>${when(d.updated_at)}</dd><dt>Description</dt><dd>${d.description ?? "—"}</dd></dl>
<form method="get" action="${docsetHref(d.name)}" class="filters" role="search"><label>Search the pages<input type="search" name="q" value="${q}"></label><button type="submit">Search</button></form>
${results}
<h2>Pages</h2>
${
  d.pages.length === 0
    ? empty("No pages stored yet.")
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Path</th><th scope="col">Title</th></tr></thead><tbody>${d.pages.map(
        (page) => html`<tr><td><code>${page.path}</code></td><td>${page.title}</td></tr>`,
      )}</tbody></table></div>${
        d.page_count > d.pages.length
          ? html`<p class="muted">… and ${d.page_count - d.pages.length} more: search finds them.</p>`
          : ""
      }`
}`;
    return p.page(`${d.name} ${d.version}`, body, { section: "docsets" });
  });
};
