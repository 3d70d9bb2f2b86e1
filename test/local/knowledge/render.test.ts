/** The text of search_docs for each outcome of the local folder search. */
import { describe, expect, it } from "vitest";
import { renderSearchDocs, type SearchDocsOutput } from "../../../src/local/knowledge/render.js";

const base: SearchDocsOutput = {
  docset: "react",
  version: "18.2",
  local_path: "/p/.knowledge/docs/react-18.2/",
  instruction: "Search for 'a' in folder /p/.knowledge/docs/react-18.2/.",
  folder_exists: true,
  matched_on: null,
  matches: [],
  truncated: false,
  files_searched: 3,
};

describe("renderSearchDocs", () => {
  it("REQ-1: without a local folder the text is the instruction alone", () => {
    expect(renderSearchDocs({ ...base, folder_exists: false, files_searched: 0 })).toBe(base.instruction);
  });

  it("says plainly when the whole folder was searched without a match", () => {
    expect(renderSearchDocs(base)).toBe(
      `${base.instruction}\n\nNo line in ${base.local_path} contains any of the keywords or generalized keywords (3 files searched); try other words, or ask the user.`,
    );
  });

  it("does not claim 'no match' when a limit stopped the search", () => {
    const text = renderSearchDocs({ ...base, truncated: true });
    expect(text).toContain("before the search limit was reached");
    expect(text).not.toContain("No line in");
  });

  it("numbers context lines around each match and says when more exist", () => {
    const text = renderSearchDocs({
      ...base,
      matched_on: "generalized_keywords",
      truncated: true,
      matches: [{ path: "a/b.md", line: 9, text: "hit", term: "h", before: ["x", "y"], after: ["z"] }],
    });
    expect(text).toBe(
      `${base.instruction}\n\nAlready searched ${base.local_path} for the generalized keywords (the specific ones found nothing): 1 matching line(s) in 3 file(s) searched; more exist: narrow the keywords or raise max_matches. Paths are relative to that folder.\n\na/b.md:9 (matched "h")\n   7 | x\n   8 | y\n>  9 | hit\n  10 | z`,
    );
  });
});
