/**
 * A requirement's revision: how many times its text has been set. It is kept as the last line of the
 * requirement's body, `<!-- rev: N -->` (an HTML comment: invisible when the markdown is rendered), written
 * by reqlix_update_requirement when the text changes. A requirement without the line is at revision 1, so
 * inserting writes nothing extra. Code pins a citation to a revision (`G.GI.3@2`); the trace tools flag
 * pins older than the current revision.
 */

import { normalizeBody } from "./markdown.js";

const MARKER = /\n*[ \t]*<!--[ \t]*rev:[ \t]*(\d+)[ \t]*-->[ \t]*$/;

/** The body without its revision line, and the revision (1 when there is none). Input: normalized LF body. */
export function splitRevision(body: string): { text: string; revision: number } {
  const m = MARKER.exec(body);
  if (!m) return { text: body, revision: 1 };
  const revision = Number(m[1]);
  return {
    // Only the blank lines withRevision put before the marker go: a trailing space of the text is text.
    text: normalizeBody(body.slice(0, m.index)),
    revision: Number.isSafeInteger(revision) && revision >= 1 ? revision : 1,
  };
}

/** The body to store: the text, then (from revision 2) a blank line and the revision line. */
export function withRevision(text: string, revision: number): string {
  return revision <= 1 ? text : `${text}\n\n<!-- rev: ${revision} -->`;
}

/** The revision after an update from `old` (a stored body) to `text` (revision lines stripped). */
export function nextRevision(
  old: string,
  text: string,
): { text: string; revision: number; changed: boolean } {
  const before = splitRevision(old);
  const after = splitRevision(text).text;
  const changed = after !== before.text;
  return { text: after, revision: changed ? before.revision + 1 : before.revision, changed };
}
