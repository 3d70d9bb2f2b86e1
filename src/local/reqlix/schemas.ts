/**
 * Tool parameters and their limits (G.P.1). A value that breaks them fails validation before the handler
 * runs and comes back as `{"success":false,"error":"…"}` naming the field (G.P.2, G.C.6).
 */
import * as z from "zod";
import { CATEGORY_NAME, categoryNameProblem } from "./paths.js";

function str(field: string, max: number, what: string) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? `required: ${what}` : `must be a string: ${what}`),
    })
    .min(1, { error: `must not be empty: ${what}` })
    .max(max, {
      error: (issue) =>
        `too long: at most ${max} characters, got ${typeof issue.input === "string" ? issue.input.length : "more"}. Shorten ${field}.`,
    });
}

/** Chapter names and titles are one line of text (they become a heading). */
function oneLine(field: string, max: number, what: string) {
  return (
    str(field, max, what)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
      .refine((s) => !/[\u0000-\u001f\u007f\u2028\u2029]/.test(s), {
        error: `must be a single line without line breaks, tabs or control characters (it becomes a markdown heading). Fix ${field}.`,
      })
      .refine((s) => s.trim() === s, { error: `must not start or end with spaces. Trim ${field}.` })
  );
}

export const projectRoot = str(
  "project_root",
  1000,
  "path to the project root directory (absolute, existing)",
).describe("Absolute path to the project root directory.");

export const operationDescription = str(
  "operation_description",
  10000,
  "brief description of the operation you intend to perform",
).describe("Brief description of the operation that LLM intends to perform.");

export const category = str("category", 100, 'category key, e.g. "general" or "testing"')
  .refine((s) => CATEGORY_NAME.test(s) && s !== "agents", {
    error: (issue) => categoryNameProblem(String(issue.input)),
  })
  .describe('Category key (e.g., "general", "testing"): lower-case letters, digits and underscores.');

export const chapter = oneLine("chapter", 100, 'chapter name, e.g. "General Requirements"').describe(
  'Chapter name (e.g., "General Requirements", "Unit Tests"). Matched exactly, including case.',
);

export const index = str("index", 10, 'requirement index, e.g. "G.G.1"').describe(
  'Requirement index (e.g., "G.G.1", "T.U.2").',
);

export const text = str("text", 10000, "requirement text (body content)").describe(
  "Requirement text (body content). Markdown; use ### or deeper for headings inside it.",
);

export const title = oneLine("title", 100, "requirement title: a concise name for the requirement");

export const base = { project_root: projectRoot, operation_description: operationDescription };

export const indexOrIndices = z
  .union(
    [
      index,
      z
        .array(index, { error: "must be a string or an array of strings" })
        .min(1, { error: "the array of indices must not be empty" })
        .max(100, { error: "at most 100 indices per call; split the list" }),
    ],
    {
      error: (issue) => {
        const input = issue.input;
        if (input === undefined)
          return 'required: requirement index (e.g. "G.G.1"), or an array of up to 100 indices';
        if (typeof input === "string" && input.length > 10) {
          return `too long: at most 10 characters, got ${input.length}. Shorten index.`;
        }
        return 'must be an index (a string of 1 to 10 characters, e.g. "G.G.1") or an array of 1 to 100 such indices';
      },
    },
  )
  .describe(
    'Requirement index (e.g., "G.G.1", "T.U.2"), or an array of up to 100 indices to read several requirements in one call.',
  );
