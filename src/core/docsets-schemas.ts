/**
 * The zod shapes of `search_docs` and `list_docsets`, shared by the companion and the hosted server so the
 * two faces accept and describe the same arguments (REQ-1, REQ-2, REQ-7).
 */
import * as z from "zod";
import {
  DOCSET_NAME_PATTERN,
  docsetNameProblem,
  docsetVersionProblem,
  MAX_DOCSET_NAME_LENGTH,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS,
} from "./docsets.js";

export const docsetNameInput = z
  .string()
  .max(MAX_DOCSET_NAME_LENGTH, {
    error: `a docset name has at most ${MAX_DOCSET_NAME_LENGTH} characters; call list_docsets to see the names`,
  })
  .regex(DOCSET_NAME_PATTERN, {
    error: (issue) =>
      `${docsetNameProblem(String(issue.input)) ?? "is not a valid docset name"}. Call list_docsets to see the configured names and aliases.`,
  });

function keywordList(field: string, what: string) {
  return z
    .array(
      z
        .string()
        .trim()
        .min(1, { error: `blank ${what}; give a word or short phrase` })
        .max(MAX_KEYWORD_LENGTH, {
          error: (issue) =>
            `${what} of ${String(issue.input).length} characters; at most ${MAX_KEYWORD_LENGTH} are allowed: use a shorter word or phrase`,
        }),
    )
    .min(1, {
      error: `empty list; give at least one ${what}, e.g. ${field === "keywords" ? '["useEffect"]' : '["hooks"]'}`,
    })
    .max(MAX_KEYWORDS, {
      error: (issue) =>
        `${Array.isArray(issue.input) ? issue.input.length : "too many"} items; at most ${MAX_KEYWORDS} are allowed: keep the most telling ones`,
    });
}

/** Optional companion extras (local folder search) have defaults so a spec-only call stays valid. */
export const DEFAULT_MAX_MATCHES = 20;
export const MAX_MAX_MATCHES = 100;
export const DEFAULT_CONTEXT_LINES = 2;
export const MAX_CONTEXT_LINES = 10;

export const searchDocsInput = z.object({
  docset: docsetNameInput.describe("Docset name or alias, as listed by list_docsets (e.g. react)."),
  keywords: keywordList("keywords", "keyword").describe(
    `Specific terms to look for, most telling first (1 to ${MAX_KEYWORDS}, each at most ${MAX_KEYWORD_LENGTH} characters), e.g. ["useEffect", "cleanup"].`,
  ),
  generalized_keywords: keywordList("generalized_keywords", "generalized keyword").describe(
    `Broader terms to fall back on when the specific ones find nothing (1 to ${MAX_KEYWORDS}), e.g. ["effects", "lifecycle"].`,
  ),
});

export const docsetVersionInput = z.string().superRefine((version, ctx) => {
  const problem = docsetVersionProblem(version);
  if (problem) ctx.addIssue({ code: "custom", message: `version ${problem}` });
});

/**
 * One docset as a caller defines it (the hosted `register_docset`), with the same rules as
 * `.knowledge/config.yaml`: name and aliases `[a-z0-9][a-z0-9._-]*`, a version usable in a folder name.
 */
export const docsetDefinitionInput = z.object({
  name: docsetNameInput.describe("Lowercase docset name, e.g. react"),
  version: docsetVersionInput.describe(
    'Documented version, e.g. "18.2" (part of local_path: {name}-{version}/)',
  ),
  aliases: z.array(docsetNameInput).max(MAX_KEYWORDS).optional().describe("Other names search_docs accepts"),
  description: z.string().trim().min(1).max(1000).optional(),
  template: z
    .string()
    .trim()
    .min(1, { error: "empty template; leave it out to use the default" })
    .max(4000)
    .optional()
    .describe(
      "Instruction template with {keywords}, {generalized_keywords}, {local_path}, {docset}, {version}",
    ),
});

export const docsetSummaryOutput = z.object({
  name: z.string(),
  version: z.string(),
  aliases: z.array(z.string()),
  local_path: z.string().describe("Folder holding this docset's pages: {docs_root}/{name}-{version}/"),
});

export const listDocsetsInput = z.object({});

export const listDocsetsOutput = z.object({
  docsets: z.array(docsetSummaryOutput),
});
