/**
 * Hosted docsets (issue 5 item 3; specs/knowledge-docsets.md): `list_docsets` and `search_docs` answer as
 * the companion's `knowledge` toolset does (same contract, core/docsets*.ts), over the workspace's docsets
 * in libSQL instead of `.knowledge/config.yaml`. Editors register, update and delete docsets and upload
 * their markdown pages; `search_docs` then also returns the best matching stored pages.
 */
import * as z from "zod";
import { DEFAULT_DOCS_ROOT, navigationInstruction } from "../core/docsets.js";
import {
  docsetDefinitionInput,
  docsetNameInput,
  docsetVersionInput,
  listDocsetsInput,
  listDocsetsOutput,
  searchDocsInput,
} from "../core/docsets-schemas.js";
import {
  deleteDocset,
  docsetNotFound,
  type PageHit,
  registerDocset,
  searchPages,
  setDocsRoot,
  updateDocset,
  upsertPages,
  workspaceCatalog,
} from "../db/docsets.repo.js";
import { CREATE, DELETE, hostedTool, READ, UPDATE } from "./access.js";

/** Limits of one upload_docset_pages call; the request body limit (1 MiB) sits just above the batch total. */
export const MAX_PAGES_PER_UPLOAD = 100;
export const MAX_PAGE_CHARS = 200_000;
export const MAX_UPLOAD_CHARS = 900_000;
export const MAX_PAGE_PATH_LENGTH = 300;
export const DEFAULT_MAX_PAGES = 5;
export const MAX_MAX_PAGES = 20;

/** Why `path` is not a safe relative page path, or `undefined` when it is. */
export function pagePathProblem(path: string): string | undefined {
  if (path.length === 0) return "is empty; give the page's path inside the docset, e.g. guide/hooks.md";
  if (path.length > MAX_PAGE_PATH_LENGTH)
    return `is ${path.length} characters long; at most ${MAX_PAGE_PATH_LENGTH} are allowed`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) return "contains control characters";
  if (path.includes("\\"))
    return `"${path}" uses backslashes: separate folders with '/', e.g. guide/hooks.md`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path))
    return `"${path}" is absolute: give it relative to the docset folder, e.g. guide/hooks.md`;
  const segments = path.split("/");
  if (segments.some((s) => s === "." || s === ".."))
    return `"${path}" contains '.' or '..' segments: give a plain path inside the docset, e.g. guide/hooks.md`;
  if (segments.some((s) => s === "")) return `"${path}" has an empty folder name (a doubled or trailing '/')`;
  if (segments.some((s) => s !== s.trim()))
    return `"${path}" has a folder or file name that starts or ends with a space`;
  return undefined;
}

const pagePath = z
  .string()
  .superRefine((path, ctx) => {
    const problem = pagePathProblem(path);
    if (problem) ctx.addIssue({ code: "custom", message: `path ${problem}` });
  })
  .describe("Path of the page inside the docset, '/'-separated and relative, e.g. guide/hooks.md");

const pagesInput = z
  .array(
    z.object({
      path: pagePath,
      content: z
        .string()
        .max(MAX_PAGE_CHARS, {
          error: (issue) =>
            `content of ${String(issue.input).length} characters; at most ${MAX_PAGE_CHARS} per page are allowed: split the page into smaller ones`,
        })
        .describe("The page's markdown; its first heading becomes the title"),
    }),
  )
  .min(1, { error: "empty list; give at least one page {path, content}" })
  .max(MAX_PAGES_PER_UPLOAD, {
    error: (issue) =>
      `${Array.isArray(issue.input) ? issue.input.length : "too many"} pages; at most ${MAX_PAGES_PER_UPLOAD} per call are allowed: upload the rest in further calls`,
  })
  .superRefine((pages, ctx) => {
    const seen = new Map<string, number>();
    let total = 0;
    pages.forEach((page, i) => {
      total += page.content.length;
      const first = seen.get(page.path);
      if (first !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [i, "path"],
          message: `path "${page.path}" is also pages[${first}]: each path once per call`,
        });
      else seen.set(page.path, i);
    });
    if (total > MAX_UPLOAD_CHARS)
      ctx.addIssue({
        code: "custom",
        message: `${total} characters of content in one call; at most ${MAX_UPLOAD_CHARS} are allowed: upload the pages in several calls`,
      });
  });

const storedDocsetOutput = z.object({
  name: z.string(),
  version: z.string(),
  aliases: z.array(z.string()),
  description: z.string().optional(),
  template: z.string().optional().describe("The docset's own template; absent: the default one applies"),
  page_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

const pageHitOutput = z.object({
  path: z.string().describe("Page path inside the docset (and inside local_path)"),
  title: z.string(),
  snippet: z.string().describe("Best matching passage, matches wrapped in ** … **"),
});

const searchDocsOutput = z.object({
  docset: z.string(),
  version: z.string(),
  local_path: z.string(),
  instruction: z.string().describe("Where and how to search; follow it with your own text search tools"),
  matched_on: z
    .enum(["keywords", "generalized_keywords"])
    .nullable()
    .describe(
      "Which keyword list found the stored pages (generalized ones only when the specific ones found none)",
    ),
  pages: z.array(pageHitOutput).describe("Best matching pages stored on the server, best first"),
  mode: z.literal("lexical").describe("How pages were ranked: full-text search (BM25)"),
});

type SearchDocsOutput = z.infer<typeof searchDocsOutput>;

/** REQ-1: the instruction alone when no stored page matched, so the spec's text is the whole answer. */
export function renderHostedSearchDocs(out: SearchDocsOutput): string {
  if (out.pages.length === 0) return out.instruction;
  const which =
    out.matched_on === "generalized_keywords"
      ? "generalized keywords (the specific ones matched no stored page)"
      : "keywords";
  const list = out.pages
    .map((p, i) => `${i + 1}. ${p.path} — ${p.title}\n   ${p.snippet.replace(/\s+/g, " ").trim()}`)
    .join("\n");
  return `${out.instruction}\n\nPages of ${out.docset} ${out.version} stored on the server that match the ${which}, best first (paths are relative to ${out.local_path}; read docset://${out.docset} for the list of pages):\n${list}`;
}

export const listDocsetsTool = hostedTool({
  name: "list_docsets",
  title: "List documentation sets",
  description:
    "List the documentation sets (docsets) registered in this workspace: for each, its name, version, aliases and local_path (the folder that holds its pages). Call this first to learn which names search_docs accepts. Returns {docsets: []} when none are registered.",
  input: listDocsetsInput,
  output: listDocsetsOutput,
  annotations: READ,
  // REQ-2: the same summaries the companion lists.
  handler: async (_input, ctx) => ({
    docsets: (await ctx.database.read((db) => workspaceCatalog(db, ctx.auth.workspaceId))).summaries,
  }),
});

export const searchDocsTool = hostedTool({
  name: "search_docs",
  title: "Search a documentation set",
  description:
    "Find documentation for a library version the team uses. Give a docset name or alias (see list_docsets), specific keywords and broader generalized_keywords. Returns a navigation instruction: which folder to search for which terms, then the broader ones. When pages of the docset are stored on the server, the best matching ones (path, title, snippet) follow the instruction, found by the keywords or, if those match nothing, the generalized keywords.",
  input: searchDocsInput.extend({
    max_pages: z
      .number()
      .int()
      .min(1)
      .max(MAX_MAX_PAGES)
      .default(DEFAULT_MAX_PAGES)
      .describe(`Most stored pages to return (default ${DEFAULT_MAX_PAGES})`),
  }),
  output: searchDocsOutput,
  annotations: READ,
  handler: (input, ctx) =>
    ctx.database.read(async (db): Promise<SearchDocsOutput> => {
      const ws = ctx.auth.workspaceId;
      const catalog = await workspaceCatalog(db, ws);
      const docset = catalog.find(input.docset); // REQ-1: a name or an alias
      if (!docset) throw docsetNotFound(input.docset, catalog.docsets); // lists the available ones
      let pages: PageHit[] = await searchPages(db, ws, docset.name, input.keywords, input.max_pages);
      let matched_on: SearchDocsOutput["matched_on"] = pages.length > 0 ? "keywords" : null;
      if (pages.length === 0) {
        // The instruction's own order: the broader terms only when the specific ones find nothing.
        pages = await searchPages(db, ws, docset.name, input.generalized_keywords, input.max_pages);
        if (pages.length > 0) matched_on = "generalized_keywords";
      }
      return {
        docset: docset.name,
        version: docset.version,
        local_path: docset.local_path,
        instruction: navigationInstruction(docset, input.keywords, input.generalized_keywords),
        matched_on,
        pages,
        mode: "lexical",
      };
    }),
  render: renderHostedSearchDocs,
});

export const registerDocsetTool = hostedTool({
  name: "register_docset",
  title: "Register a documentation set",
  description:
    "Register a documentation set (docset) for this workspace: a lowercase name, the documented version, optional aliases, description and instruction template (as an entry of .knowledge/config.yaml). Every name and alias must pick one docset; a taken one is refused as a conflict. Returns the docset; then add its markdown pages with upload_docset_pages.",
  input: docsetDefinitionInput,
  output: storedDocsetOutput,
  annotations: CREATE,
  handler: (input, ctx) =>
    ctx.database.write((tx) => registerDocset(tx, ctx.auth.workspaceId, input, ctx.now())),
});

export const updateDocsetTool = hostedTool({
  name: "update_docset",
  title: "Update a documentation set",
  description:
    "Change a docset's version, aliases, description or template; fields you omit stay as they are, null clears description or template (the default template applies again). The name stays: to rename, register a new docset. Returns the updated docset.",
  input: z.object({
    docset: docsetNameInput.describe("Name or alias of the docset to change, as listed by list_docsets"),
    version: docsetVersionInput.optional().describe('New documented version, e.g. "19.0"'),
    aliases: docsetDefinitionInput.shape.aliases.describe(
      "The new complete list of aliases ([] removes all)",
    ),
    description: docsetDefinitionInput.shape.description
      .unwrap()
      .nullable()
      .optional()
      .describe("New description; null clears it"),
    template: docsetDefinitionInput.shape.template
      .unwrap()
      .nullable()
      .optional()
      .describe("New instruction template; null returns to the default"),
  }),
  output: storedDocsetOutput,
  annotations: UPDATE,
  handler: ({ docset, ...patch }, ctx) =>
    ctx.database.write((tx) => updateDocset(tx, ctx.auth.workspaceId, docset, patch, ctx.now())),
});

export const uploadDocsetPagesTool = hostedTool({
  name: "upload_docset_pages",
  title: "Upload documentation pages",
  description: `Store markdown pages of a docset on the server, so search_docs can return the best matching ones. A page whose path is already stored is replaced; all pages of one call are stored together or not at all. At most ${MAX_PAGES_PER_UPLOAD} pages and ${MAX_UPLOAD_CHARS} characters per call (${MAX_PAGE_CHARS} per page); send larger docsets in several calls. Returns how many pages were added and replaced.`,
  input: z.object({
    docset: docsetNameInput.describe("Name or alias of the docset, as listed by list_docsets"),
    pages: pagesInput,
  }),
  output: z.object({
    docset: z.string(),
    version: z.string(),
    created: z.number().int(),
    updated: z.number().int(),
    page_count: z.number().int().describe("Pages the docset holds now"),
  }),
  annotations: UPDATE,
  handler: ({ docset, pages }, ctx) =>
    ctx.database.write((tx) => upsertPages(tx, ctx.auth.workspaceId, docset, pages, ctx.now())),
});

export const setDocsRootTool = hostedTool({
  name: "set_docs_root",
  title: "Set the docs root",
  description: `Set where this workspace's docsets live in a working copy (docs_root of .knowledge/config.yaml): every local_path becomes {docs_root}/{name}-{version}/. null returns to the default ${DEFAULT_DOCS_ROOT}. Returns the stored value.`,
  input: z.object({
    docs_root: z
      .string()
      .trim()
      .min(1, { error: "empty docs_root; pass null to return to the default" })
      .max(500)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "docs_root contains control characters" })
      .nullable()
      .describe(
        `Folder of the docsets, relative to the project root or absolute, e.g. docs/vendor; null: ${DEFAULT_DOCS_ROOT}`,
      ),
  }),
  output: z.object({ docs_root: z.string() }),
  annotations: UPDATE,
  handler: async ({ docs_root }, ctx) => ({
    docs_root: await ctx.database.write((tx) => setDocsRoot(tx, ctx.auth.workspaceId, docs_root)),
  }),
});

export const deleteDocsetTool = hostedTool({
  name: "delete_docset",
  title: "Delete a documentation set",
  description:
    "Delete a docset and all of its stored pages from this workspace. Cannot be undone. Returns the docset's name and version and how many pages were removed.",
  input: z.object({
    docset: docsetNameInput.describe("Name or alias of the docset to delete, as listed by list_docsets"),
  }),
  output: z.object({ name: z.string(), version: z.string(), pages_deleted: z.number().int() }),
  annotations: DELETE,
  handler: ({ docset }, ctx) => ctx.database.write((tx) => deleteDocset(tx, ctx.auth.workspaceId, docset)),
});

/** Reads first, then writes; delete last (the generated role suites call tools in this order). */
export const docsetTools = [
  listDocsetsTool,
  searchDocsTool,
  registerDocsetTool,
  updateDocsetTool,
  uploadDocsetPagesTool,
  setDocsRootTool,
  deleteDocsetTool,
];
