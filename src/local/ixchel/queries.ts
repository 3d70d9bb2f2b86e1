/**
 * Read-only views over a synced store: show, graph, context, tags and check. Plain functions over data.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DomainError } from "../../core/errors.js";
import type { Entity } from "./entity.js";
import { parseEntityFile } from "./entity.js";
import { ID_FORMAT_HINT, isId, type Kind, normalizeId } from "./kinds.js";
import type { IxchelStore, Located } from "./store.js";

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Normalizes and checks an id argument; the error names the field and the expected format. */
export function requireIdFormat(value: string, field = "id"): string {
  const id = normalizeId(value);
  if (!isId(id)) {
    throw DomainError.invalid(`${field}: "${value}" is not an ixchel id; ${ID_FORMAT_HINT}`, [
      { field, message: "not an ixchel id" },
    ]);
  }
  return id;
}

export function requireEntity(store: IxchelStore, value: string, field = "id"): Located {
  const id = requireIdFormat(value, field);
  const found = store.get(id);
  if (!found) {
    throw DomainError.notFound(
      `${field}: no entity with id ${id} under ${store.dir}. Call ixchel_search to find ids (or ixchel_sync if the file was just added elsewhere).`,
      id,
    );
  }
  return found;
}

export interface ShowResult {
  id: string;
  kind: Kind;
  title: string;
  /** Relative to the repository root. */
  path: string;
  frontmatter: Record<string, unknown>;
  body: string;
  raw: string;
  /** Other files that claim the same id (ixchel_check reports them). */
  duplicates?: string[];
}

export function show(store: IxchelStore, idArg: string): ShowResult {
  const { rel, entity: cached } = requireEntity(store, idArg);
  let raw: string;
  try {
    raw = readFileSync(join(store.dir, rel), "utf8");
  } catch {
    throw DomainError.notFound(
      `${cached.id} was at .ixchel/${rel} but that file is gone; call ixchel_sync, then ixchel_search to find it again`,
      cached.id,
    );
  }
  // Read fresh so raw, frontmatter and body agree even if the file changed since the sync.
  const parsed = parseEntityFile(rel, raw);
  const entity: Entity = parsed.type === "entity" && parsed.entity.id === cached.id ? parsed.entity : cached;
  const result: ShowResult = {
    id: entity.id,
    kind: entity.kind,
    title: entity.title,
    path: `.ixchel/${rel}`,
    frontmatter: entity.frontmatter,
    body: entity.body,
    raw,
  };
  const others = store.pathsOf(entity.id).filter((p) => p !== rel);
  if (others.length > 0) result.duplicates = others.map((p) => `.ixchel/${p}`);
  return result;
}

export interface LinkGroup {
  rel: string;
  targets: { id: string; title: string | null }[];
}

export interface IncomingGroup {
  rel: string;
  sources: { id: string; title: string }[];
}

export interface GraphResult {
  id: string;
  title: string;
  outgoing?: LinkGroup[];
  incoming?: IncomingGroup[];
}

export type Direction = "outgoing" | "incoming" | "both";

function titleOf(store: IxchelStore, id: string): string | null {
  return store.get(id)?.entity.title ?? null;
}

export function graph(store: IxchelStore, idArg: string, direction: Direction): GraphResult {
  const { entity } = requireEntity(store, idArg);
  const result: GraphResult = { id: entity.id, title: entity.title };
  if (direction !== "incoming") {
    result.outgoing = entity.links.map((link) => ({
      rel: link.rel,
      targets: [...link.targets].sort(byString).map((id) => ({ id, title: titleOf(store, id) })),
    }));
  }
  if (direction !== "outgoing") {
    const groups = new Map<string, Map<string, string>>();
    for (const { entity: source, rel: path } of store.entities()) {
      if (store.get(source.id)?.rel !== path) continue; // a duplicate's copy does not count twice
      for (const link of source.links) {
        if (!link.targets.includes(entity.id)) continue;
        const group = groups.get(link.rel) ?? new Map<string, string>();
        groups.set(link.rel, group);
        group.set(source.id, source.title);
      }
    }
    result.incoming = [...groups]
      .sort((a, b) => byString(a[0], b[0]))
      .map(([rel, sources]) => ({
        rel,
        sources: [...sources].sort((a, b) => byString(a[0], b[0])).map(([id, title]) => ({ id, title })),
      }));
  }
  return result;
}

export interface ContextItem {
  id: string;
  kind: Kind;
  title: string;
  body: string;
  /** 0 for the entity asked for, 1 for its link targets, and so on. */
  depth: number;
}

export interface ContextResult {
  id: string;
  items: ContextItem[];
  broken: string[];
}

/** The entity and what it links to, breadth first to `depth` hops (AC-002.5). A broken link is reported. */
export function context(store: IxchelStore, idArg: string, depth: number): ContextResult {
  const { entity } = requireEntity(store, idArg);
  const items: ContextItem[] = [];
  const broken = new Set<string>();
  const visited = new Set<string>([entity.id]);
  let frontier: Entity[] = [entity];
  for (let level = 0; frontier.length > 0; level++) {
    const next: Entity[] = [];
    for (const current of frontier) {
      items.push({
        id: current.id,
        kind: current.kind,
        title: current.title,
        body: current.body,
        depth: level,
      });
      if (level >= depth) continue;
      for (const link of current.links) {
        for (const target of link.targets) {
          if (visited.has(target)) continue;
          visited.add(target);
          const found = store.get(target);
          if (found) next.push(found.entity);
          else broken.add(target);
        }
      }
    }
    frontier = next;
  }
  return { id: entity.id, items, broken: [...broken].sort(byString) };
}

export interface TagsResult {
  total: number;
  tags?: { tag: string; count: number }[];
  untagged?: { id: string; kind: Kind; title: string }[];
}

function canonicalEntities(store: IxchelStore, kind?: Kind): Entity[] {
  const out: Entity[] = [];
  for (const { entity, rel } of store.entities()) {
    if (kind && entity.kind !== kind) continue;
    if (store.get(entity.id)?.rel === rel) out.push(entity);
  }
  return out;
}

/** Tags with usage counts, alphabetically (AC-004.1..3); or, with `untagged`, the entities without tags. */
export function tags(store: IxchelStore, kind: Kind | undefined, untagged: boolean): TagsResult {
  const entities = canonicalEntities(store, kind);
  if (untagged) {
    const list = entities
      .filter((e) => e.tags.length === 0)
      .map((e) => ({ id: e.id, kind: e.kind, title: e.title }))
      .sort((a, b) => byString(a.id, b.id));
    return { total: list.length, untagged: list };
  }
  const counts = new Map<string, number>();
  for (const entity of entities) for (const tag of entity.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  const list = [...counts]
    .map(([tag, count]) => ({ tag, count }))
    .sort((a, b) => byString(a.tag.toLowerCase(), b.tag.toLowerCase()) || byString(a.tag, b.tag));
  return { total: list.length, tags: list };
}

export type ProblemKind =
  | "unparsable_frontmatter"
  | "missing_frontmatter"
  | "missing_id"
  | "invalid_id"
  | "duplicate_id"
  | "broken_link"
  | "id_folder_mismatch"
  | "outside_kind_folder"
  | "type_mismatch";

export interface CheckProblem {
  problem: ProblemKind;
  /** Relative to the repository root. */
  path: string;
  line?: number;
  id?: string;
  message: string;
}

export interface CheckResult {
  ok: boolean;
  files: number;
  entities: number;
  problems: CheckProblem[];
}

export function check(store: IxchelStore): CheckResult {
  const problems: CheckProblem[] = [];
  let files = 0;
  let entities = 0;
  for (const [rel, record] of store.records()) {
    files++;
    const path = `.ixchel/${rel}`;
    const { parsed } = record;
    if (parsed.type === "problem") {
      problems.push({ problem: parsed.code, path, line: parsed.line, message: parsed.message });
      continue;
    }
    if (parsed.type !== "entity") continue;
    entities++;
    const { entity } = parsed;
    for (const note of entity.notes)
      problems.push({ problem: note.code, path, id: entity.id, message: note.message });
    for (const link of entity.links) {
      for (const target of link.targets) {
        if (store.has(target)) continue;
        problems.push({
          problem: "broken_link",
          path,
          id: entity.id,
          message: `${link.rel} → ${target}: no entity has this id; fix the id or remove it with ixchel_unlink`,
        });
      }
    }
    const paths = store.pathsOf(entity.id);
    if (paths.length > 1 && paths[0] !== rel) {
      problems.push({
        problem: "duplicate_id",
        path,
        id: entity.id,
        message: `id ${entity.id} is also used by .ixchel/${paths[0]}; give this file a new id (ixchel_create makes unique ones)`,
      });
    }
  }
  problems.sort(
    (a, b) => byString(a.path, b.path) || byString(a.problem, b.problem) || byString(a.message, b.message),
  );
  return { ok: problems.length === 0, files, entities, problems };
}
