/**
 * One markdown file under `.ixchel/` → an entity, a problem, or a plain file. Pure: text in, data out.
 */
import { FrontmatterError, frontmatterData, locateFrontmatter } from "./frontmatter.js";
import {
  ID_FORMAT_HINT,
  isId,
  isKind,
  KIND_FOLDER,
  type Kind,
  kindOfFolder,
  kindOfId,
  METADATA_KEYS,
  normalizeId,
} from "./kinds.js";

export interface Link {
  rel: string;
  targets: string[];
}

/** Problems that do not stop a file from being an entity, reported by ixchel_check. */
export interface LocationNote {
  code: "outside_kind_folder" | "id_folder_mismatch" | "type_mismatch";
  message: string;
}

export interface Entity {
  id: string;
  kind: Kind;
  title: string;
  status?: string;
  tags: string[];
  frontmatter: Record<string, unknown>;
  /** Sorted by rel. */
  links: Link[];
  body: string;
  notes: LocationNote[];
}

export type ProblemCode = "unparsable_frontmatter" | "missing_frontmatter" | "missing_id" | "invalid_id";

export type ParsedFile =
  | { type: "entity"; entity: Entity }
  | { type: "problem"; code: ProblemCode; line: number; message: string }
  /** A markdown file outside the kind folders without frontmatter (a README, notes): not part of the graph. */
  | { type: "plain" };

function asLinkTarget(item: unknown): string | undefined {
  if (typeof item === "string") {
    const id = normalizeId(item);
    return isId(id) ? id : undefined;
  }
  if (item !== null && typeof item === "object" && !Array.isArray(item)) {
    const id = (item as Record<string, unknown>).id;
    if (typeof id === "string" && isId(normalizeId(id))) return normalizeId(id);
  }
  return undefined;
}

/**
 * Lists are gathered here, then copied at their exact length: a cold sync parses every file of the graph
 * and keeps what it parses, and a list grown by push takes room for 16 items at its first (its copy is
 * garbage at once; the sync's allocations are most of its time above reading and hashing). Not reentrant:
 * each function below fills one and copies it out before returning.
 */
const gatherTargets: string[] = [];
const gatherLinks: Link[] = [];
const gatherTags: string[] = [];

/** Whether list[0, count) holds value. */
function holds(list: string[], count: number, value: string): boolean {
  for (let k = 0; k < count; k++) if (list[k] === value) return true;
  return false;
}

/** The targets of a link's value, or undefined when it is not a link (an empty list is not either). */
function linkTargets(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) {
    const id = asLinkTarget(value);
    return id === undefined ? undefined : [id];
  }
  if (value.length === 0) return undefined;
  let count = 0;
  for (const item of value) {
    const id = asLinkTarget(item);
    if (id === undefined) return undefined; // a list with anything else in it is data
    if (!holds(gatherTargets, count, id)) gatherTargets[count++] = id;
  }
  return gatherTargets.slice(0, count);
}

/**
 * A link is any non-metadata key whose value is an id, a list of ids, or a list of `{id, type}` objects
 * (DESIGN: ixchel). A list with anything else in it is data, not a link.
 */
export function extractLinks(frontmatter: Record<string, unknown>): Link[] {
  let count = 0;
  for (const rel of Object.keys(frontmatter)) {
    if (METADATA_KEYS.has(rel)) continue;
    const targets = linkTargets(frontmatter[rel]);
    if (targets !== undefined) gatherLinks[count++] = { rel, targets };
  }
  const links = gatherLinks.slice(0, count);
  // Sorted by rel (keys are unique): an insertion sort, in place, of a list of a few links.
  for (let i = 1; i < count; i++) {
    const link = links[i] as Link;
    let j = i - 1;
    for (; j >= 0 && (links[j] as Link).rel > link.rel; j--) links[j + 1] = links[j] as Link;
    links[j + 1] = link;
  }
  return links;
}

export function normalizeTags(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  let count = 0;
  for (const item of raw) {
    if (item === null || item === undefined || typeof item === "object") continue;
    const tag = String(item).trim();
    if (tag && !holds(gatherTags, count, tag)) gatherTags[count++] = tag;
  }
  return gatherTags.slice(0, count);
}

/**
 * `relPath` is relative to `.ixchel/`, with `/` separators (e.g. `decisions/dec-1a2b3c.md`).
 */
export function parseEntityFile(relPath: string, raw: string): ParsedFile {
  return parseEntityAt(relPath, raw, 0, raw.length);
}

/**
 * parseEntityFile of text[start, end): a file read together with others into one string (store.ts), whose
 * strings the entity keeps are slices of that string.
 */
export function parseEntityAt(relPath: string, text: string, start: number, end: number): ParsedFile {
  const slash = relPath.indexOf("/");
  const folderKind =
    slash > 0 && relPath.indexOf("/", slash + 1) === -1 ? kindOfFolder(relPath.slice(0, slash)) : undefined;
  let bounds: ReturnType<typeof locateFrontmatter>;
  let data: Record<string, unknown>;
  try {
    bounds = locateFrontmatter(text, start, end);
    if (!bounds) {
      if (folderKind === undefined) return { type: "plain" };
      return {
        type: "problem",
        code: "missing_frontmatter",
        line: 1,
        message:
          "no frontmatter: an entity file starts with a --- line, then YAML with id, type, title and tags, then ---",
      };
    }
    data = frontmatterData(text, bounds);
  } catch (error) {
    if (error instanceof FrontmatterError) {
      return { type: "problem", code: "unparsable_frontmatter", line: error.line, message: error.message };
    }
    throw error;
  }
  const rawId = data.id;
  if (rawId === undefined || rawId === null || rawId === "") {
    return {
      type: "problem",
      code: "missing_id",
      line: 1,
      message: `frontmatter has no id: add one (${ID_FORMAT_HINT})`,
    };
  }
  const id = normalizeId(String(rawId));
  if (!isId(id)) {
    return {
      type: "problem",
      code: "invalid_id",
      line: 1,
      message: `id "${String(rawId)}" is not valid: ${ID_FORMAT_HINT}`,
    };
  }
  const kind = kindOfId(id) as Kind;
  const notes: LocationNote[] = [];
  const type = data.type;
  if (type !== undefined && type !== kind) {
    notes.push({
      code: "type_mismatch",
      message: isKind(type)
        ? `type is "${type}" but the id prefix says "${kind}": fix the type or give the entity an id of its kind`
        : `type "${String(type)}" is not a kind; the id prefix says "${kind}"`,
    });
  }
  // At `<kind folder>/<id>.md`? Compared in place: the expected path is only spelled out for a note.
  const canonical =
    folderKind === kind &&
    relPath.length === slash + id.length + 4 &&
    relPath.startsWith(id, slash + 1) &&
    relPath.endsWith(".md");
  if (!canonical) {
    const expected = `${KIND_FOLDER[kind]}/${id}.md`;
    notes.push(
      folderKind === undefined
        ? {
            code: "outside_kind_folder",
            message: `the file is outside the kind folders: move it to .ixchel/${expected}`,
          }
        : {
            code: "id_folder_mismatch",
            message: `a ${kind} with id ${id} belongs at .ixchel/${expected}, not .ixchel/${relPath}`,
          },
    );
  }
  const title = data.title === undefined || data.title === null ? id : String(data.title);
  const tags = normalizeTags(data.tags);
  const links = extractLinks(data);
  const body = text.slice(bounds.bodyStart, end);
  // The status, when there is one, is in the literal (an object given a property later grows a second store).
  const entity: Entity =
    typeof data.status === "string"
      ? { id, kind, title, tags, frontmatter: data, links, body, notes, status: data.status }
      : { id, kind, title, tags, frontmatter: data, links, body, notes };
  return { type: "entity", entity };
}
