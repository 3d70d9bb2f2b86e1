/**
 * The document schema's fast path: a hand-written check of the shape `document.ts` declares with zod, for
 * the common case of a file that is valid as it stands. zod's parse of 100,000 requirements built a copy
 * of every item (a second copy of the file in memory) and took a tenth of a JSON import's time.
 *
 * `checkDocument` returns the document when every value already is what the schema would output — no
 * string to trim, no unknown key to strip, nothing zod would change or refuse — and the items are the
 * input's own objects (defaults filled at the top level only). Anything else returns undefined, and
 * `validateDocument` lets zod decide: its output and its error messages stay the only ones users see.
 * So this check may refuse what zod accepts, never the reverse (test/core/interchange/document-check.test.ts
 * holds them together).
 */
import { ENTITY_STATUSES, REQUIREMENT_STATUSES } from "../domain.js";
import type { InterchangeDocument } from "./document.js";

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Every own key of `o` is one of `keys` (zod would strip any other). */
function onlyKeys(o: Obj, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}

const str = (v: unknown, min: number, max: number) =>
  typeof v === "string" && v.length >= min && v.length <= max;
/** A string zod's `.trim().min().max()` keeps as it is. */
const trimmed = (v: unknown, min: number, max: number) => str(v, min, max) && (v as string).trim() === v;
const int = (v: unknown, min: number, max = Number.MAX_SAFE_INTEGER) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** ISO-8601 UTC with milliseconds naming a real instant (a subset of zod's `iso.datetime`). */
const timestamp = (v: unknown) =>
  typeof v === "string" && TIMESTAMP.test(v) && new Date(v).toISOString() === v;

// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Optional: absent (or undefined) passes; `nullable`: null passes too. */
const opt = (v: unknown, check: (v: unknown) => boolean, nullable = false) =>
  v === undefined || (nullable && v === null) || check(v);

const externalId = (v: unknown) => trimmed(v, 1, 200) && !CONTROL.test(v as string);
const username = (v: unknown) => str(v, 1, 100);

/** A JSON value zod's `z.json()` accepts and copies unchanged. */
function jsonValue(v: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) {
    for (const x of v) if (!jsonValue(x, depth + 1)) return false;
    return true;
  }
  return isObject(v) && attributesObject(v, depth + 1);
}

function attributesObject(o: Obj, depth = 0): boolean {
  for (const k in o) if (k === "__proto__" || !jsonValue(o[k], depth)) return false;
  return true;
}

const attributes = (v: unknown) => isObject(v) && attributesObject(v);

const ENTITY_STATUS = new Set<unknown>(ENTITY_STATUSES);
const REQUIREMENT_STATUS = new Set<unknown>(REQUIREMENT_STATUSES);

const COMMON = [
  "reference_id",
  "external_id",
  "attributes",
  "title",
  "description",
  "revision",
  "created_at",
  "updated_at",
  "creator",
];
const WORK = [...COMMON, "priority", "assignee", "status"];
const EPIC_KEYS = new Set(WORK);
const STORY_KEYS = new Set([...WORK, "epic"]);
const REQUIREMENT_KEYS = new Set([...WORK, "user_story", "type"]);
const CRITERION_KEYS = new Set([...COMMON, "user_story"]);

const REFERENCE = {
  EP: /^EP-\d+$/,
  US: /^US-\d+$/,
  REQ: /^REQ-\d+$/,
  AC: /^AC-\d+$/,
} as const;

function common(o: Obj, prefix: keyof typeof REFERENCE): boolean {
  return (
    opt(o.reference_id, (v) => typeof v === "string" && REFERENCE[prefix].test(v)) &&
    opt(o.external_id, externalId, true) &&
    opt(o.attributes, attributes, true) &&
    trimmed(o.title, 1, 200) &&
    opt(o.description, (v) => str(v, 0, 20_000)) &&
    opt(o.revision, (v) => int(v, 1)) &&
    opt(o.created_at, timestamp) &&
    opt(o.updated_at, timestamp) &&
    opt(o.creator, username, true)
  );
}

function workItem(o: Obj, prefix: keyof typeof REFERENCE, statuses: Set<unknown>): boolean {
  return (
    common(o, prefix) &&
    opt(o.priority, (v) => int(v, 1, 4)) &&
    opt(o.assignee, username, true) &&
    opt(o.status, (v) => statuses.has(v))
  );
}

const epic = (v: unknown) => isObject(v) && onlyKeys(v, EPIC_KEYS) && workItem(v, "EP", ENTITY_STATUS);
const story = (v: unknown) =>
  isObject(v) && onlyKeys(v, STORY_KEYS) && workItem(v, "US", ENTITY_STATUS) && str(v.epic, 1, Infinity);
const requirement = (v: unknown) =>
  isObject(v) &&
  onlyKeys(v, REQUIREMENT_KEYS) &&
  workItem(v, "REQ", REQUIREMENT_STATUS) &&
  str(v.user_story, 1, Infinity) &&
  trimmed(v.type, 1, 100);
const criterion = (v: unknown) =>
  isObject(v) && onlyKeys(v, CRITERION_KEYS) && common(v, "AC") && str(v.user_story, 1, Infinity);

const RELATIONSHIP_KEYS = new Set([
  "source",
  "target",
  "type",
  "revision",
  "source_revision",
  "target_revision",
  "created_at",
  "creator",
]);
const relationship = (v: unknown) =>
  isObject(v) &&
  onlyKeys(v, RELATIONSHIP_KEYS) &&
  str(v.source, 1, Infinity) &&
  str(v.target, 1, Infinity) &&
  trimmed(v.type, 1, 100) &&
  opt(v.revision, (x) => int(x, 1)) &&
  opt(v.source_revision, (x) => int(x, 1)) &&
  opt(v.target_revision, (x) => int(x, 1)) &&
  opt(v.created_at, timestamp) &&
  opt(v.creator, username, true);

const COMMENT_KEYS = new Set(["on", "author", "body", "created_at", "resolved_at", "resolved_by"]);
const ON_KEYS = new Set(["kind", "reference_id", "revision"]);
const COMMENT_ON = new Set<unknown>(["epic", "user_story", "requirement", "acceptance_criterion"]);
const comment = (v: unknown) =>
  isObject(v) &&
  onlyKeys(v, COMMENT_KEYS) &&
  isObject(v.on) &&
  onlyKeys(v.on, ON_KEYS) &&
  COMMENT_ON.has(v.on.kind) &&
  str(v.on.reference_id, 1, Infinity) &&
  int(v.on.revision, 1) &&
  (v.author === null || username(v.author)) &&
  str(v.body, 1, 10_000) &&
  timestamp(v.created_at) &&
  opt(v.resolved_at, timestamp, true) &&
  opt(v.resolved_by, username, true);

const TYPE_KEYS = new Set(["name", "description"]);
/** A named type whose description is present (zod fills a missing one: left to zod). */
const namedType = (v: unknown) =>
  isObject(v) && onlyKeys(v, TYPE_KEYS) && trimmed(v.name, 1, 100) && typeof v.description === "string";

const list = (v: unknown, check: (item: unknown) => boolean): boolean => {
  if (v === undefined) return true;
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!check(item)) return false;
  return true;
};

const DOCUMENT_KEYS = new Set([
  "format",
  "version",
  "exported_at",
  "workspace",
  "scope",
  "requirement_types",
  "relationship_types",
  "epics",
  "user_stories",
  "requirements",
  "acceptance_criteria",
  "relationships",
  "comments",
]);
const WORKSPACE_KEYS = new Set(["slug", "name"]);

function scope(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isObject(v)) return false;
  if (v.kind === "workspace") return onlyKeys(v, new Set(["kind"]));
  return (
    v.kind === "epic" &&
    onlyKeys(v, new Set(["kind", "epic"])) &&
    typeof v.epic === "string" &&
    REFERENCE.EP.test(v.epic)
  );
}

/**
 * `value` as the interchange document when it is one exactly as it stands, else undefined (zod decides).
 * Baselines, rare and nested, are always left to zod.
 */
export function checkDocument(value: unknown): InterchangeDocument | undefined {
  if (!isObject(value) || !onlyKeys(value, DOCUMENT_KEYS)) return undefined;
  const v = value;
  const ok =
    v.format === "reqlix-export" &&
    v.version === 1 &&
    opt(v.exported_at, timestamp) &&
    opt(
      v.workspace,
      (w) =>
        isObject(w) &&
        onlyKeys(w, WORKSPACE_KEYS) &&
        typeof w.slug === "string" &&
        typeof w.name === "string",
    ) &&
    scope(v.scope) &&
    list(v.requirement_types, namedType) &&
    list(v.relationship_types, namedType) &&
    list(v.epics, epic) &&
    list(v.user_stories, story) &&
    list(v.requirements, requirement) &&
    list(v.acceptance_criteria, criterion) &&
    list(v.relationships, relationship) &&
    list(v.comments, comment);
  if (!ok) return undefined;
  const doc = {
    format: "reqlix-export",
    version: 1,
    ...(v.exported_at !== undefined ? { exported_at: v.exported_at } : {}),
    ...(v.workspace !== undefined ? { workspace: v.workspace } : {}),
    scope: v.scope ?? { kind: "workspace" },
    requirement_types: v.requirement_types ?? [],
    relationship_types: v.relationship_types ?? [],
    epics: v.epics ?? [],
    user_stories: v.user_stories ?? [],
    requirements: v.requirements ?? [],
    acceptance_criteria: v.acceptance_criteria ?? [],
    relationships: v.relationships ?? [],
    comments: v.comments ?? [],
  };
  return doc as InterchangeDocument;
}
