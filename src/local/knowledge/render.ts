/**
 * The text the model reads for `search_docs`: the navigation instruction first (REQ-1: exactly the rendered
 * template when nothing was searched), then any lines the companion found in the local folder.
 */
import type { FolderMatch } from "./folder-search.js";

export interface SearchDocsOutput {
  docset: string;
  version: string;
  local_path: string;
  instruction: string;
  folder_exists: boolean;
  matched_on: "keywords" | "generalized_keywords" | null;
  matches: FolderMatch[];
  truncated: boolean;
  files_searched: number;
}

function block(match: FolderMatch): string {
  const first = match.line - match.before.length;
  const width = String(match.line + match.after.length).length;
  const row = (n: number, text: string, mark: string) => `${mark} ${String(n).padStart(width)} | ${text}`;
  return [
    `${match.path}:${match.line} (matched "${match.term}")`,
    ...match.before.map((text, i) => row(first + i, text, " ")),
    row(match.line, match.text, ">"),
    ...match.after.map((text, i) => row(match.line + 1 + i, text, " ")),
  ].join("\n");
}

export function renderSearchDocs(output: SearchDocsOutput): string {
  if (!output.folder_exists) return output.instruction;
  if (output.matches.length === 0 && output.truncated) {
    // A budget (size, files, time) stopped the search: "nothing found" would be a claim we cannot make.
    return `${output.instruction}\n\nSearched ${output.files_searched} file(s) in ${output.local_path} before the search limit was reached, without a match; search the rest with your own tools as described above.`;
  }
  if (output.matches.length === 0) {
    return `${output.instruction}\n\nNo line in ${output.local_path} contains any of the keywords or generalized keywords (${output.files_searched} files searched); try other words, or ask the user.`;
  }
  const which =
    output.matched_on === "generalized_keywords"
      ? "generalized keywords (the specific ones found nothing)"
      : "keywords";
  const more = output.truncated ? "; more exist: narrow the keywords or raise max_matches" : "";
  const head = `Already searched ${output.local_path} for the ${which}: ${output.matches.length} matching line(s) in ${output.files_searched} file(s) searched${more}. Paths are relative to that folder.`;
  return `${output.instruction}\n\n${head}\n\n${output.matches.map(block).join("\n\n")}`;
}
