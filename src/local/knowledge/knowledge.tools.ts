/**
 * The companion's `knowledge` toolset: `list_docsets` and `search_docs` over `.knowledge/config.yaml`
 * (specs/knowledge-docsets.md). The contract (names, local_path, template, keyword limits) lives in
 * core/docsets*.ts so the hosted docsets answer the same; this file adds the file system: discovery and
 * reload (config-store.ts) and the local folder search (folder-search.ts).
 */
import { statSync } from "node:fs";
import * as z from "zod";
import { navigationInstruction } from "../../core/docsets.js";
import {
  DEFAULT_CONTEXT_LINES,
  DEFAULT_MAX_MATCHES,
  listDocsetsInput,
  listDocsetsOutput,
  MAX_CONTEXT_LINES,
  MAX_MAX_MATCHES,
  searchDocsInput,
} from "../../core/docsets-schemas.js";
import { defineTool, type Registry } from "../../core/registry.js";
import type { LocalContext, LocalEnvironment } from "../context.js";
import { KnowledgeConfigStore } from "./config-store.js";
import { type FolderSearchResult, searchFolder } from "./folder-search.js";
import { renderSearchDocs, type SearchDocsOutput } from "./render.js";

const localSearchInput = searchDocsInput.extend({
  max_matches: z
    .number()
    .int()
    .min(1)
    .max(MAX_MAX_MATCHES)
    .default(DEFAULT_MAX_MATCHES)
    .describe(`Most matching lines to return from the local docset folder (default ${DEFAULT_MAX_MATCHES}).`),
  context_lines: z
    .number()
    .int()
    .min(0)
    .max(MAX_CONTEXT_LINES)
    .default(DEFAULT_CONTEXT_LINES)
    .describe(`Lines of context before and after each match (default ${DEFAULT_CONTEXT_LINES}).`),
});

const folderMatchOutput = z.object({
  path: z.string().describe("File path relative to local_path"),
  line: z.number().int(),
  text: z.string(),
  term: z.string(),
  before: z.array(z.string()),
  after: z.array(z.string()),
});

const searchDocsOutput = z.object({
  docset: z.string(),
  version: z.string(),
  local_path: z.string(),
  instruction: z.string().describe("Where and how to search; follow it with your own text search tools"),
  folder_exists: z
    .boolean()
    .describe("Whether local_path exists on this machine (only then were matches searched)"),
  matched_on: z
    .enum(["keywords", "generalized_keywords"])
    .nullable()
    .describe(
      "Which keyword list produced the matches (generalized ones are tried when the specific ones find nothing)",
    ),
  matches: z.array(folderMatchOutput),
  truncated: z.boolean().describe("More matching lines exist than were returned"),
  files_searched: z.number().int(),
});

function folderExists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

export function knowledgeRegistry(env: LocalEnvironment): Registry<LocalContext> {
  const store = new KnowledgeConfigStore(env.cwd, env.log);
  // REQ-3: look for the configuration at start; a missing or broken one is logged, never fatal.
  const initial = store.current();
  if (initial.kind === "missing") env.log("knowledge: no .knowledge/config.yaml yet", { cwd: env.cwd });
  else if (initial.kind === "error") env.log("knowledge: configuration has problems", { path: initial.path });

  const listDocsets = defineTool({
    name: "list_docsets",
    title: "List documentation sets",
    description:
      "List the documentation sets (docsets) configured for this project in .knowledge/config.yaml: for each, its name, version, aliases and local_path (the folder that holds its pages). Call this first to learn which names search_docs accepts. Returns {docsets: []} when none are configured.",
    input: listDocsetsInput,
    output: listDocsetsOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    handler: () => ({ docsets: store.catalog().summaries }), // REQ-2
  });

  const searchDocs = defineTool({
    name: "search_docs",
    title: "Search a documentation set",
    description:
      "Find documentation for a library version this project uses. Give a docset name or alias (see list_docsets), specific keywords and broader generalized_keywords. Returns a navigation instruction: which folder to search for which terms, then the broader ones. When that folder exists on this machine the tool has already searched it (case-insensitive, keywords first, generalized_keywords if those find nothing) and the matching lines with context follow the instruction; open those files for the full text.",
    input: localSearchInput,
    output: searchDocsOutput,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    async handler(input, ctx): Promise<SearchDocsOutput> {
      const docset = store.catalog().get(input.docset); // REQ-1: unknown → lists the available ones
      const instruction = navigationInstruction(docset, input.keywords, input.generalized_keywords);
      const output: SearchDocsOutput = {
        docset: docset.name,
        version: docset.version,
        local_path: docset.local_path,
        instruction,
        folder_exists: folderExists(docset.local_path),
        matched_on: null,
        matches: [],
        truncated: false,
        files_searched: 0,
      };
      if (!output.folder_exists) return output;
      const options = {
        maxMatches: input.max_matches,
        contextLines: input.context_lines,
        signal: ctx.signal,
      };
      let found: FolderSearchResult = await searchFolder(docset.local_path, {
        ...options,
        terms: input.keywords,
      });
      let files = found.files_searched;
      let truncated = found.truncated;
      if (found.matches.length > 0) output.matched_on = "keywords";
      else {
        // The instruction's own order: the broader terms only when the specific ones find nothing.
        found = await searchFolder(docset.local_path, { ...options, terms: input.generalized_keywords });
        files = Math.max(files, found.files_searched);
        truncated ||= found.truncated; // a cut-short first pass means "nothing found" is not certain
        if (found.matches.length > 0) output.matched_on = "generalized_keywords";
      }
      output.matches = found.matches;
      output.truncated = truncated;
      output.files_searched = files;
      return output;
    },
    render: renderSearchDocs,
  });

  return {
    name: "knowledge",
    tools: [listDocsets, searchDocs],
    instructions:
      "knowledge: documentation sets for the libraries this project uses, configured in .knowledge/config.yaml. Call list_docsets to see them, then search_docs with a docset name, specific keywords and broader generalized_keywords.",
  };
}
