/**
 * Field-by-field differences between two snapshots of an entity, with text shown as a word-level diff a
 * model can read: unchanged words as they are, removed words in `[-…-]`, added words in `{+…+}` (git's
 * `--word-diff=plain` notation), long unchanged stretches shortened to their ends.
 */
import { diffWords } from "diff";

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
  /** For text: the word-level diff of `from` → `to`. */
  diff?: string;
}

/** Bookkeeping that changes on every write; the revisions' own numbers and times already say it. */
const BOOKKEEPING = new Set(["revision", "updated_at"]);

/** Keep this many characters of an unchanged stretch on each side of a change. */
const CONTEXT = 80;

export function fieldChanges(
  from: Record<string, unknown> | undefined,
  to: Record<string, unknown> | undefined,
): FieldChange[] {
  const keys = [...new Set([...Object.keys(from ?? {}), ...Object.keys(to ?? {})])];
  const out: FieldChange[] = [];
  for (const field of keys) {
    if (BOOKKEEPING.has(field)) continue;
    const a = from?.[field];
    const b = to?.[field];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    const change: FieldChange = { field, from: a ?? null, to: b ?? null };
    if (typeof a === "string" && typeof b === "string" && isText(field, a, b)) {
      change.diff = wordDiff(a, b);
    }
    out.push(change);
  }
  return out;
}

/** Prose is diffed word by word; short values (a status, a username) are shown whole. */
function isText(field: string, a: string, b: string): boolean {
  return field === "title" || field === "description" || a.length > 60 || b.length > 60;
}

/** `a` → `b` word by word, in `[-removed-]{+added+}` notation, unchanged stretches shortened. */
export function wordDiff(a: string, b: string): string {
  const parts = diffWords(a, b);
  return parts
    .map((p, i) => {
      if (p.removed) return `[-${p.value}-]`;
      if (p.added) return `{+${p.value}+}`;
      return shorten(p.value, i === 0, i === parts.length - 1);
    })
    .join("");
}

function shorten(text: string, first: boolean, last: boolean): string {
  const keepBefore = first ? 0 : CONTEXT;
  const keepAfter = last ? 0 : CONTEXT;
  if (text.length <= keepBefore + keepAfter + 20) return text;
  return `${text.slice(0, keepBefore)}…${text.slice(text.length - keepAfter)}`;
}

/** A readable block for one field change: `title: "a" → "b"`, or the field's word diff. */
export function renderFieldChange(c: FieldChange): string {
  if (c.diff !== undefined) return `${c.field}:\n  ${c.diff.replace(/\n/g, "\n  ")}`;
  return `${c.field}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`;
}
