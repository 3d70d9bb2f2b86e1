/**
 * The snapshot a `reqlix-mcp trace` push sends to `POST /api/v1/traces` (schema 1): which reference ids
 * one commit of one repository cites, where, and in which commit messages. Validated here once, so a bad
 * push is refused before anything is written, naming the first offending fields.
 */
import { z } from "zod";
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

const positiveInt = (what: string) =>
  z
    .number({ error: `must be a whole number (${what})` })
    .int(`must be a whole number (${what})`)
    .min(1, `must be at least 1 (${what})`);

const sha = z
  .string({ error: "must be a hex commit id (7-64 characters)" })
  .regex(/^[0-9a-fA-F]{7,64}$/, "must be a hex commit id (7-64 characters)")
  .transform((s) => s.toLowerCase());

const citation = z.strictObject({
  id: referenceId,
  revision: positiveInt("the entity revision the citation is pinned to").nullable(),
  file: text("path of the file, relative to the repository root", 1, 1000),
  line: positiveInt("1-based line"),
  column: positiveInt("1-based column"),
  kind: z.enum(CITATION_KINDS, { error: `must be one of ${CITATION_KINDS.join(", ")}` }),
  test_name: text("name of the test that cites the id", 1, 500).nullable(),
  snippet: text("the cited line, shortened", 0, 200),
});

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
  citations: z.array(citation, { error: "must be a list of citations" }),
  commits: z.array(commit, { error: "must be a list of commits" }).max(10_000),
});

export type TraceSnapshot = z.output<typeof traceSnapshotInput>;
export type TraceCitation = TraceSnapshot["citations"][number];

function fieldOf(path: PropertyKey[]): string {
  return path.length > 0 ? path.map(String).join(".") : "body";
}

/** Parses a pushed body or throws `invalid_input` naming the offending fields (`citations.3.line`). */
export function parseTraceSnapshot(body: unknown): TraceSnapshot {
  const parsed = traceSnapshotInput.safeParse(body);
  if (parsed.success) return parsed.data;
  const errors: FieldError[] = [];
  for (const issue of parsed.error.issues) {
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
  const more = parsed.error.issues.length > 5 ? ` (and ${parsed.error.issues.length - 5} more)` : "";
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
