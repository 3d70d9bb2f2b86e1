/**
 * `docset://{name}` (DESIGN resource URIs): a docset as markdown for people and models: version, aliases,
 * local_path, description, template, and the list of its stored pages. Names and aliases both work.
 */
import { DOCSET_NAME_PATTERN, docsetLocalPath } from "../core/docsets.js";
import { DomainError } from "../core/errors.js";
import type { ResourceDef } from "../core/registry.js";
import { docsRoot, listPages, workspaceCatalog } from "../db/docsets.repo.js";
import type { HostedContext } from "./context.js";

const MARKDOWN = "text/markdown";
/** Pages listed in one read; the rest are counted, so the resource stays a readable size. */
export const MAX_LISTED_PAGES = 1000;
const PATTERN = /^docset:\/\/([^/?#]+)$/i;

function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
}

export const docsetResource: ResourceDef<HostedContext> = {
  uriTemplate: "docset://{name}",
  name: "docset",
  title: "Docset",
  description:
    "A documentation set as markdown: version, aliases, local_path, description, template and the list of its stored pages (path and title). {name} is a docset name or alias.",
  mimeType: MARKDOWN,
  match(uri) {
    const m = PATTERN.exec(uri);
    if (!m) return undefined;
    try {
      return { name: decodeURIComponent(m[1] as string) };
    } catch {
      return undefined; // a malformed %-escape names no docset
    }
  },
  async read(params, uri, ctx) {
    const key = params.name ?? "";
    if (!DOCSET_NAME_PATTERN.test(key))
      throw DomainError.notFound(
        `Resource not found: ${uri} ("${key}" is not a docset name; call list_docsets for the names).`,
        key,
      );
    const ws = ctx.auth.workspaceId;
    const { docset, pages, root } = await ctx.database.read(async (db) => ({
      ...(await listPages(db, ws, key, MAX_LISTED_PAGES)),
      root: await docsRoot(db, ws),
    }));
    const lines = [
      `# ${docset.name} ${docset.version}`,
      "",
      `- aliases: ${docset.aliases.length > 0 ? docset.aliases.join(", ") : "none"}`,
      `- local_path: ${docsetLocalPath(root, docset.name, docset.version)}`,
      `- pages stored: ${docset.page_count}`,
      `- updated: ${docset.updated_at}`,
    ];
    if (docset.description) lines.push("", docset.description);
    lines.push(
      "",
      "## Template",
      "",
      docset.template ?? "The default template (search_docs shows it rendered).",
    );
    lines.push("", "## Pages", "");
    if (pages.length === 0) lines.push("No pages stored yet: add them with upload_docset_pages.");
    else {
      lines.push(
        "| Path | Title |",
        "|---|---|",
        ...pages.map((p) => `| ${cell(p.path)} | ${cell(p.title)} |`),
      );
      if (docset.page_count > pages.length)
        lines.push("", `… and ${docset.page_count - pages.length} more; search_docs finds pages by keyword.`);
    }
    return [{ uri, mimeType: MARKDOWN, text: `${lines.join("\n")}\n` }];
  },
  async list(ctx) {
    const catalog = await ctx.database.read((db) => workspaceCatalog(db, ctx.auth.workspaceId));
    return catalog.docsets.map((d) => ({
      uri: `docset://${d.name}`,
      name: `${d.name} ${d.version}`,
      ...(d.description ? { description: d.description } : {}),
      mimeType: MARKDOWN,
    }));
  },
};

export const docsetResources: ResourceDef<HostedContext>[] = [docsetResource];
