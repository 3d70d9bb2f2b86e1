/**
 * The snapshot a `reqlix-mcp trace` push sends to `POST /api/v1/traces` (schema 1): which reference ids
 * one commit of one repository cites, where, and in which commit messages. Validated here once, so a bad
 * push is refused before anything is written, naming the first offending fields.
 */
import * as z from "zod";
import { DomainError, type FieldError } from "./errors.js";
import { type EntityKind, kindOfReference } from "./references.js";

export const CITATION_KINDS = ["impl", "test", "doc"] as const;
export type CitationKind = (typeof CITATION_KINDS)[number];

/** At most this many field errors are listed: a broken 100,000-citation push must not answer megabytes. */
const MAX_LISTED_ERRORS = 20;

const HOSTED_ID = /^(EP|US|REQ|AC)-\d+$/i;

const referenceId = z
  .string({ error: "must be a reference id such as REQ-012 (EP-, US-, REQ- or AC- and digits)" })
  .regex(HOSTED_ID, "must be a reference id such as REQ-012 (EP-, US-, REQ- or AC- and digits)")
  .transform((id, ctx) => {
    const parsed = kindOfReference(id);
    if (!parsed) {
      ctx.addIssue({ code: "custom", message: "reference number is too large" });
      return z.NEVER;
    }
    return parsed.reference;
  });

const text = (what: string, min: number, max: number) =>
  z
    .string({ error: `must be a string (${what})` })
    .min(min, min === 1 ? "must not be empty" : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`);

const sha = z
  .string({ error: "must be a hex commit id (7-64 characters)" })
  .regex(/^[0-9a-fA-F]{7,64}$/, "must be a hex commit id (7-64 characters)")
  .transform((s) => s.toLowerCase());

const commit = z.strictObject({
  sha,
  ids: z.array(referenceId, { error: "must be a list of reference ids" }).max(1000),
  subject: text("first line of the commit message", 0, 200),
});

export const traceSnapshotInput = z.strictObject({
  schema: z.literal(1, { error: "must be 1 (the only snapshot schema this server knows)" }),
  repository: text("repository name", 1, 200),
  commit: sha,
  branch: text("branch name", 1, 255).nullable(),
  scanned_at: z.iso.datetime({ offset: true, error: "must be an ISO-8601 time, e.g. 2026-01-02T03:04:05Z" }),
  // Checked by checkCitations: zod costs ~4 µs per object, most of a 100,000-citation push.
  citations: z.array(z.unknown(), { error: "must be a list of citations" }),
  commits: z.array(commit, { error: "must be a list of commits" }).max(10_000),
});

export interface TraceCitation {
  id: string;
  revision: number | null;
  file: string;
  line: number;
  column: number;
  kind: CitationKind;
  test_name: string | null;
  snippet: string;
}
export type TraceSnapshot = Omit<z.output<typeof traceSnapshotInput>, "citations"> & {
  citations: TraceCitation[];
};

const CITATION_FIELDS = new Set(["id", "revision", "file", "line", "column", "kind", "test_name", "snippet"]);
const ID_MESSAGE = "must be a reference id such as REQ-012 (EP-, US-, REQ- or AC- and digits)";
const isWhole = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
const isText = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max;

/**
 * The same rules zod would apply to each citation, written out: a push of 100,000 citations is checked in
 * a few milliseconds. Returns the normalized citations, or adds errors (at most `room`) to `errors`.
 */
function checkCitations(items: unknown[], errors: FieldError[], room: number): TraceCitation[] {
  const out: TraceCitation[] = new Array(items.length);
  const bad = (i: number, field: string, message: string) => {
    if (errors.length < room) errors.push({ field: `citations.${i}${field ? `.${field}` : ""}`, message });
  };
  for (let i = 0; i < items.length && errors.length < room; i++) {
    const c = items[i] as Record<string, unknown>;
    if (typeof c !== "object" || c === null || Array.isArray(c)) {
      bad(i, "", "must be an object {id, revision, file, line, column, kind, test_name, snippet}");
      continue;
    }
    const before = errors.length;
    for (const key of Object.keys(c)) if (!CITATION_FIELDS.has(key)) bad(i, key, "unknown field");
    const id =
      typeof c.id === "string" && HOSTED_ID.test(c.id) ? kindOfReference(c.id)?.reference : undefined;
    if (id === undefined) bad(i, "id", ID_MESSAGE);
    if (c.revision !== null && !isWhole(c.revision))
      bad(i, "revision", "must be a whole number ≥ 1 (the pinned entity revision) or null");
    if (!isText(c.file, 1, 1000)) bad(i, "file", "must be a non-empty string of at most 1000 characters");
    if (!isWhole(c.line)) bad(i, "line", "must be a whole number ≥ 1 (1-based line)");
    if (!isWhole(c.column)) bad(i, "column", "must be a whole number ≥ 1 (1-based column)");
    if (!(CITATION_KINDS as readonly unknown[]).includes(c.kind))
      bad(i, "kind", `must be one of ${CITATION_KINDS.join(", ")}`);
    if (c.test_name !== null && !isText(c.test_name, 1, 500))
      bad(i, "test_name", "must be null or a non-empty string of at most 500 characters");
    if (!isText(c.snippet, 0, 200)) bad(i, "snippet", "must be a string of at most 200 characters");
    if (errors.length > before) continue;
    out[i] = {
      id: id as string,
      revision: c.revision as number | null,
      file: c.file as string,
      line: c.line as number,
      column: c.column as number,
      kind: c.kind as CitationKind,
      test_name: c.test_name as string | null,
      snippet: c.snippet as string,
    };
  }
  return out;
}

function fieldOf(path: PropertyKey[]): string {
  return path.length > 0 ? path.map(String).join(".") : "body";
}

/** Parses a pushed body or throws `invalid_input` naming the offending fields (`citations.3.line`). */
export function parseTraceSnapshot(body: unknown): TraceSnapshot {
  const parsed = traceSnapshotInput.safeParse(body);
  const errors: FieldError[] = [];
  let issues = 0;
  if (parsed.success) {
    const citations = checkCitations(parsed.data.citations, errors, MAX_LISTED_ERRORS);
    if (errors.length === 0) return { ...parsed.data, citations };
    issues = errors.length;
  } else {
    issues = parsed.error.issues.length;
  }
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        errors.push({ field: fieldOf([...issue.path, key]), message: "unknown field" });
    } else {
      errors.push({ field: fieldOf(issue.path), message: issue.message });
    }
    if (errors.length >= MAX_LISTED_ERRORS) break;
  }
  const list = errors
    .slice(0, 5)
    .map((e) => `${e.field}: ${e.message}`)
    .join("; ");
  const more = issues > 5 ? ` (and ${issues - 5}${issues >= MAX_LISTED_ERRORS ? "+" : ""} more)` : "";
  const error = DomainError.invalid(`Invalid trace snapshot: ${list}${more}`, errors);
  // The first offending field on its own, for clients that show one.
  error.details.field = errors[0]?.field ?? "body";
  throw error;
}

/** Kind of entity an already normalized hosted id names. */
export function entityKindOf(referenceId: string): EntityKind {
  const parsed = kindOfReference(referenceId);
  if (!parsed) throw new Error(`not a hosted reference id: ${referenceId}`);
  return parsed.kind;
}

/**
 * SHA-256 (hex) of what a snapshot says about its commit: branch, citations and commits, not the scan time.
 * Two pushes with the same hash are the same snapshot, so the second changes nothing.
 */
export async function snapshotContentHash(s: TraceSnapshot): Promise<string> {
  const body = JSON.stringify([s.branch, s.citations, s.commits]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
