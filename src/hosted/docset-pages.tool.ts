/**
 * list_docset_pages: one documentation set with the paths and titles of its stored pages (the web app's
 * docset page; the same list the docset://{name} resource shows as markdown).
 */
import * as z from "zod";
import { docsetLocalPath } from "../core/docsets.js";
import { docsetNameInput } from "../core/docsets-schemas.js";
import { docsRoot, listPages } from "../db/docsets.repo.js";
import { hostedTool, READ } from "./access.js";
import { MAX_LISTED_PAGES } from "./docsets.resources.js";

export const listDocsetPagesTool = hostedTool({
  name: "list_docset_pages",
  title: "List a docset's pages",
  description:
    "One documentation set (by name or alias, see list_docsets): version, aliases, description, local_path and the stored pages (path and title, by path), at most `limit` of them; page_count says how many there are. Use search_docs to find pages by keyword.",
  input: z.object({
    docset: docsetNameInput.describe("Docset name or alias, as listed by list_docsets (e.g. react)."),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LISTED_PAGES)
      .default(200)
      .describe(`Most pages to list (1–${MAX_LISTED_PAGES}, default 200).`),
  }),
  output: z.object({
    name: z.string(),
    version: z.string(),
    aliases: z.array(z.string()),
    description: z.string().nullable(),
    local_path: z.string(),
    page_count: z.number().int(),
    updated_at: z.string(),
    pages: z.array(z.object({ path: z.string(), title: z.string() })),
  }),
  annotations: READ,
  handler: ({ docset, limit }, ctx) =>
    ctx.database.read(async (db) => {
      const ws = ctx.auth.workspaceId;
      const { docset: d, pages } = await listPages(db, ws, docset, limit);
      return {
        name: d.name,
        version: d.version,
        aliases: d.aliases,
        description: d.description ?? null,
        local_path: docsetLocalPath(await docsRoot(db, ws), d.name, d.version),
        page_count: d.page_count,
        updated_at: d.updated_at,
        pages,
      };
    }),
});
