/**
 * Index prefixes (G.F.4, G.IR.3 step 4). The exact rule, also written in the README:
 *
 * 1. Name → words. A chapter named `reqlix_<rest>` is a tool chapter and only `<rest>` is used (G.F.4).
 *    The words are the maximal runs of letters and digits (any script), upper-cased, with their digits
 *    dropped — G.F.4 asks for first *letters* — and words left empty dropped:
 *    `General Requirements` → GENERAL, REQUIREMENTS; `reqlix_get_instructions` → GET, INSTRUCTIONS;
 *    category `code_quality` → CODE, QUALITY; `123test` → TEST; `2024 Roadmap` → ROADMAP.
 * 2. Candidates, shortest first:
 *    a. initials of the first k words, k growing to all the words. An ordinary name starts at k = 1
 *       (`General Requirements` → G, then GR); a tool chapter starts with all its initials
 *       (`reqlix_get_instructions` → GI, the spec's own example).
 *    b. all the initials, then the remaining letters of the last word added one at a time, skipping the
 *       vowels A E I O U (`get_chapters`: GC → GCH; `get_requirement`: GR → GRQ; `glossary`: G → GL).
 *    c. the first initial followed by 2, 3, 4, … (always ends).
 *    A name with no letter at all is refused (it has no first letter to take).
 * 3. The prefix is the first candidate not already taken (compared case-insensitively): for a chapter,
 *    by the chapter prefixes that requirements of the same category file already carry; for a category,
 *    by the category prefixes that requirement headings of the other category files already carry.
 * 4. A prefix is assigned once, when the first requirement of that chapter (or category) is inserted,
 *    and is then read back from the file's requirement headings: it is never recomputed from the current
 *    set of names (DESIGN), so adding `glossary` beside `general` never changes G.G.1.
 *
 * This reproduces the spec's examples (general/General Requirements → G.G, general/reqlix_get_instructions
 * → G.GI, testing/Unit Tests → T.U) and, inserted in the spec's order, ten of the eleven chapter prefixes
 * of the spec file itself; its `Requirements Storage Format` → F is an editorial choice no letter rule
 * yields (this rule gives R).
 */

import { DomainError } from "../../core/errors.js";

const VOWELS = new Set(["A", "E", "I", "O", "U"]);
const TOOL_CHAPTER = "reqlix_";

function words(name: string): string[][] {
  const runs = name.match(/[\p{L}\p{N}]+/gu) ?? [];
  // Array.from splits by code point, so a letter outside the BMP stays whole.
  return runs
    .map((w) => Array.from(w.toUpperCase()).filter((c) => /\p{L}/u.test(c)))
    .filter((w) => w.length > 0);
}

function noLetter(name: string, kind: "chapter" | "category"): DomainError {
  const example = kind === "category" ? `release_${name}` : `Release ${name}`;
  return DomainError.invalid(
    `The ${kind} "${name}" has no letter: an index prefix is made of the first letter(s) of the ${kind} name (G.F.4), so the name needs at least one letter. Choose a name with a letter, e.g. "${example}".`,
  );
}

/** Candidate prefixes for a name, shortest first (steps 1–2 above). Infinite; take what you need. */
export function* prefixCandidates(name: string, kind: "chapter" | "category"): Generator<string> {
  const tool = kind === "chapter" && name.startsWith(TOOL_CHAPTER) && name.length > TOOL_CHAPTER.length;
  const ws = words(tool ? name.slice(TOOL_CHAPTER.length) : name);
  if (ws.length === 0) throw noLetter(name, kind);
  const initials = ws.map((w) => w[0] as string);
  const seen = new Set<string>();
  const emit = function* (candidate: string) {
    if (!seen.has(candidate)) {
      seen.add(candidate);
      yield candidate;
    }
  };
  for (let k = tool ? initials.length : 1; k <= initials.length; k++)
    yield* emit(initials.slice(0, k).join(""));
  let grown = initials.join("");
  for (const letter of (ws[ws.length - 1] as string[]).slice(1)) {
    if (VOWELS.has(letter)) continue;
    grown += letter;
    yield* emit(grown);
  }
  for (let n = 2; ; n++) yield* emit(`${initials[0]}${n}`);
}

/** The first candidate not in `taken` (case-insensitive). */
export function uniquePrefix(name: string, kind: "chapter" | "category", taken: Iterable<string>): string {
  const used = new Set<string>();
  for (const t of taken) used.add(t.toUpperCase());
  for (const candidate of prefixCandidates(name, kind)) {
    if (!used.has(candidate.toUpperCase())) return candidate;
  }
  /* c8 ignore next */
  throw new Error("unreachable: the candidate sequence is infinite");
}
