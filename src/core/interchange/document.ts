/**
 * The interchange document: reqlix's lossless, versioned JSON form of a workspace or one epic
 * (`docs/interchange.md`). Every format (JSON, CSV, Markdown, ReqIF) converts to and from this one model,
 * and the import engine (`db/interchange-import.ts`) only ever sees it, so a format is a pair of converters
 * and nothing else.
 *
 * Identity: entities are named by `reference_id` (EP-001, US-001, REQ-001, AC-001); parents and
 * relationship ends name reference ids too. `external_id` is an identifier from elsewhere (a ReqIF
 * IDENTIFIER, a markdown requirement index) that import matches on when the reference id is absent or
 * unknown. `attributes` holds fields reqlix has no column for, as JSON, so nothing is lost.
 */
import * as z from "zod";
import { ENTITY_STATUSES, REQUIREMENT_STATUSES } from "../domain.js";
import { checkDocument } from "./document-check.js";

export const DOCUMENT_FORMAT = "reqlix-export";
export const DOCUMENT_VERSION = 1;

/** Text that can be stored: no NUL, no unpaired surrogate (core/text.ts enforces the same at the tools). */
const text = (max: number) => z.string().max(max);

/** An identifier from another tool: trimmed, 1–200 characters, no control characters. */
export const EXTERNAL_ID_MAX = 200;
export const externalIdSchema = z
  .string()
  .trim()
  .min(1, "must not be empty; omit external_id instead")
  .max(EXTERNAL_ID_MAX)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/** Fields reqlix has no column for: a JSON object of anything JSON can hold. */
export const attributesSchema = z.record(z.string(), z.json());
export type Attributes = z.infer<typeof attributesSchema>;

const referenceOf = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}-\\d+$`), `expected an id like ${prefix}-001`);
const timestamp = z.iso.datetime({ offset: false, precision: 3 }).describe("ISO-8601 UTC with milliseconds");
const priority = z.number().int().min(1).max(4);
const username = z.string().min(1).max(100);

/** What every entity of the document carries. */
const entityCommon = {
  /** Absent on items that come from elsewhere (CSV rows without an id, ReqIF objects): import allocates one. */
  reference_id: z.string().min(1).max(50).optional(),
  external_id: externalIdSchema.nullable().optional(),
  attributes: attributesSchema.nullable().optional(),
  title: z.string().trim().min(1).max(200),
  /** Absent: "" on create, left alone on update (partial files: CSV stubs, bridge pushes). */
  description: text(20_000).optional(),
  /** As exported; import keeps it on create (so a round trip is identity) and counts from it. */
  revision: z.number().int().min(1).optional(),
  created_at: timestamp.optional(),
  updated_at: timestamp.optional(),
  creator: username.nullable().optional(),
};

const workItem = {
  ...entityCommon,
  /** Absent: 3 on create, left alone on update. */
  priority: priority.optional(),
  assignee: username.nullable().optional(),
};

export const epicDoc = z.object({
  ...workItem,
  reference_id: referenceOf("EP").optional(),
  status: z.enum(ENTITY_STATUSES).optional(),
});

export const userStoryDoc = z.object({
  ...workItem,
  reference_id: referenceOf("US").optional(),
  /** The epic's reference id, or an epic's external id when the epic has no reference id. */
  epic: z.string().min(1),
  status: z.enum(ENTITY_STATUSES).optional(),
});

export const requirementDoc = z.object({
  ...workItem,
  reference_id: referenceOf("REQ").optional(),
  /** The user story's reference id (or external id). */
  user_story: z.string().min(1),
  /** A requirement type by name (any case). */
  type: z.string().trim().min(1).max(100),
  status: z.enum(REQUIREMENT_STATUSES).optional(),
});

export const criterionDoc = z.object({
  ...entityCommon,
  reference_id: referenceOf("AC").optional(),
  user_story: z.string().min(1),
});

export const relationshipDoc = z.object({
  /** Requirement reference ids (or external ids). */
  source: z.string().min(1),
  target: z.string().min(1),
  type: z.string().trim().min(1).max(100),
  revision: z.number().int().min(1).optional(),
  source_revision: z.number().int().min(1).optional(),
  target_revision: z.number().int().min(1).optional(),
  created_at: timestamp.optional(),
  creator: username.nullable().optional(),
});

export const COMMENT_KINDS = ["epic", "user_story", "requirement", "acceptance_criterion"] as const;

export const commentDoc = z.object({
  on: z.object({
    kind: z.enum(COMMENT_KINDS),
    reference_id: z.string().min(1),
    /** The revision of the entity the comment was written against. */
    revision: z.number().int().min(1),
  }),
  /** The author's username; null when the author's account is gone. */
  author: username.nullable(),
  body: text(10_000).min(1),
  created_at: timestamp,
  resolved_at: timestamp.nullable().optional(),
  resolved_by: username.nullable().optional(),
});

export const namedTypeDoc = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().default(""),
});

export const baselineDoc = z.object({
  name: z.string().min(1).max(200),
  description: z.string().default(""),
  epic: z.string().nullable(),
  created_at: timestamp,
  creator: username.nullable().optional(),
  entries: z.array(
    z.object({
      kind: z.enum([...COMMENT_KINDS, "relationship"]),
      reference_id: z.string(),
      revision: z.number().int().min(1),
    }),
  ),
});

export const scopeDoc = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("workspace") }),
  z.object({ kind: z.literal("epic"), epic: referenceOf("EP") }),
]);

export const interchangeDocument = z.object({
  format: z.literal(DOCUMENT_FORMAT),
  version: z.literal(DOCUMENT_VERSION),
  exported_at: timestamp.optional(),
  workspace: z.object({ slug: z.string(), name: z.string() }).optional(),
  scope: scopeDoc.default({ kind: "workspace" }),
  requirement_types: z.array(namedTypeDoc).default([]),
  relationship_types: z.array(namedTypeDoc).default([]),
  epics: z.array(epicDoc).default([]),
  user_stories: z.array(userStoryDoc).default([]),
  requirements: z.array(requirementDoc).default([]),
  acceptance_criteria: z.array(criterionDoc).default([]),
  relationships: z.array(relationshipDoc).default([]),
  comments: z.array(commentDoc).default([]),
  /** Exported only on request (`baselines=true`); import reports them and leaves them alone. */
  baselines: z.array(baselineDoc).optional(),
});

export type InterchangeDocument = z.infer<typeof interchangeDocument>;
/** What a converter may build: defaults (status, priority, empty lists) may be left out. */
export type InterchangeDocumentInput = z.input<typeof interchangeDocument>;
export type EpicDoc = z.infer<typeof epicDoc>;
export type UserStoryDoc = z.infer<typeof userStoryDoc>;
export type RequirementDoc = z.infer<typeof requirementDoc>;
export type CriterionDoc = z.infer<typeof criterionDoc>;
export type RelationshipDoc = z.infer<typeof relationshipDoc>;
export type CommentDoc = z.infer<typeof commentDoc>;
export type BaselineDoc = z.infer<typeof baselineDoc>;
export type NamedTypeDoc = z.infer<typeof namedTypeDoc>;

/** Where in the input a problem is: 1-based line and column (of the source text), when the format knows. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** One problem of an input file: what, where (a JSON path into the document, and/or a source position). */
export interface DocumentProblem {
  message: string;
  path?: string;
  line?: number;
  column?: number;
}

/** Thrown by a format's parser (and by `validateDocument`): every problem found, with positions. */
export class DocumentError extends Error {
  constructor(
    message: string,
    readonly problems: DocumentProblem[],
  ) {
    super(message);
    this.name = "DocumentError";
  }
}

export function isDocumentError(err: unknown): err is DocumentError {
  return err instanceof DocumentError;
}

/** `a.b[3].c` of a zod issue path. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`))
    .join("");
}

/**
 * Checks a parsed value against the document schema; a converter calls it last. `locate` maps a JSON path
 * to a source position when the format can (the JSON parser does), so every problem names a line.
 */
export function validateDocument(
  value: unknown,
  locate?: (path: readonly PropertyKey[]) => SourcePosition | undefined,
): InterchangeDocument {
  // A valid file as it stands (the common case) is checked by hand, without zod's copy of every item.
  const checked = checkDocument(value);
  if (checked) return checked;
  const parsed = interchangeDocument.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 50).map((issue): DocumentProblem => {
    const at = locate?.(issue.path);
    return { message: issue.message, path: pathText(issue.path), ...(at ?? {}) };
  });
  const first = problems[0];
  const where = first?.line !== undefined ? ` at line ${first.line}, column ${first.column}` : "";
  throw new DocumentError(
    `The file is not a valid reqlix export document: ${first?.path ? `${first.path}: ` : ""}${first?.message ?? "invalid"}${where}.`,
    problems,
  );
}

/** An empty document of a scope: what converters start from. */
export function emptyDocument(
  scope: InterchangeDocument["scope"] = { kind: "workspace" },
): InterchangeDocument {
  return {
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    scope,
    requirement_types: [],
    relationship_types: [],
    epics: [],
    user_stories: [],
    requirements: [],
    acceptance_criteria: [],
    relationships: [],
    comments: [],
  };
}
