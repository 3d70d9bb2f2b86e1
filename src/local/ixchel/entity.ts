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
 * A link is any non-metadata key whose value is an id, a list of ids, or a list of `{id, type}` objects
 * (DESIGN: ixchel). A list with anything else in it is data, not a link.
 */
export function extractLinks(frontmatter: Record<string, unknown>): Link[] {
  const links: Link[] = [];
  // A cold sync runs this on every file: no intermediate arrays or sets for the common one-link lists.
  next: for (const rel of Object.keys(frontmatter)) {
    if (METADATA_KEYS.has(rel)) continue;
    const value = frontmatter[rel];
    const items = Array.isArray(value) ? value : [value];
    if (items.length === 0) continue;
    const targets: string[] = [];
    for (const item of items) {
      const id = asLinkTarget(item);
      if (id === undefined) continue next; // a list with anything else in it is data
      if (!targets.includes(id)) targets.push(id);
    }
    // Kept for the graph's life: exact-length copies (an array grown by push keeps room for 16).
    links.push({ rel, targets: targets.slice() });
  }
  return links.length > 1
    ? links.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0)).slice()
    : links.slice();
}

export function normalizeTags(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  const tags: string[] = [];
  for (const item of raw) {
    if (item === null || item === undefined || typeof item === "object") continue;
    const tag = String(item).trim();
    if (tag && !tags.includes(tag)) tags.push(tag);
  }
  return tags.slice(); // exact length: kept for the graph's life
}

/**
 * `relPath` is relative to `.ixchel/`, with `/` separators (e.g. `decisions/dec-1a2b3c.md`).
 */
export function parseEntityFile(relPath: string, raw: string): ParsedFile {
  const slash = relPath.indexOf("/");
  const folderKind =
    slash > 0 && relPath.indexOf("/", slash + 1) === -1 ? kindOfFolder(relPath.slice(0, slash)) : undefined;
  let bounds: ReturnType<typeof locateFrontmatter>;
  let data: Record<string, unknown>;
  try {
    bounds = locateFrontmatter(raw);
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
    data = frontmatterData(raw, bounds);
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
  const expected = `${KIND_FOLDER[kind]}/${id}.md`;
  if (folderKind === undefined) {
    notes.push({
      code: "outside_kind_folder",
      message: `the file is outside the kind folders: move it to .ixchel/${expected}`,
    });
  } else if (relPath !== expected) {
    notes.push({
      code: "id_folder_mismatch",
      message: `a ${kind} with id ${id} belongs at .ixchel/${expected}, not .ixchel/${relPath}`,
    });
  }
  const title = data.title === undefined || data.title === null ? id : String(data.title);
  const entity: Entity = {
    id,
    kind,
    title,
    tags: normalizeTags(data.tags),
    frontmatter: data,
    links: extractLinks(data),
    body: raw.slice(bounds.bodyStart),
    notes,
  };
  if (typeof data.status === "string") entity.status = data.status;
  return { type: "entity", entity };
}
