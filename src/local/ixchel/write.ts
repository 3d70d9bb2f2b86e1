/**
 * The writing tools: ixchel_create, ixchel_link, ixchel_unlink. Every write is atomic (temp file, then
 * rename or link), lands inside the repository's `.ixchel/` and nowhere else, and keeps a body byte for byte.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { type Document, isMap, isScalar, isSeq, stringify } from "yaml";
import { DomainError } from "../../core/errors.js";
import { withFileLock } from "../file-lock.js";
import { extractLinks } from "./entity.js";
import { createFileAtomic, writeFileAtomic } from "./files.js";
import { editFrontmatter, FrontmatterError, parseFrontmatter, splitFrontmatter } from "./frontmatter.js";
import { KIND_FOLDER, KIND_PREFIX, type Kind, kindOfId, METADATA_KEYS } from "./kinds.js";
import { requireEntity, requireIdFormat } from "./queries.js";
import type { IxchelStore } from "./store.js";

export const REL_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** Refuses any path that does not resolve (symbolic links included) to a place inside `.ixchel/`. */
export function assertInside(store: IxchelStore, path: string): void {
  const base = realpathSync(store.dir);
  const real = realpathSync(path);
  if (real !== base && !real.startsWith(base + sep)) {
    throw DomainError.forbidden(`Refusing to write ${path}: it resolves outside ${store.dir}`);
  }
}

export function validateRel(rel: string, field = "rel"): string {
  if (!REL_PATTERN.test(rel)) {
    throw DomainError.invalid(
      `${field}: "${rel}" is not a relationship name; use lowercase letters, digits and underscores, starting with a letter (e.g. depends_on, relates_to)`,
      [{ field, message: "invalid relationship name" }],
    );
  }
  if (METADATA_KEYS.has(rel)) {
    throw DomainError.invalid(
      `${field}: "${rel}" is a metadata key (${[...METADATA_KEYS].join(", ")}), not a relationship; choose another name`,
      [{ field, message: "metadata key" }],
    );
  }
  return rel;
}

function freshId(store: IxchelStore, kind: Kind): string {
  for (let attempt = 0; attempt < 20; attempt++) {
    const id = `${KIND_PREFIX[kind]}-${randomBytes(4).toString("hex")}`;
    if (!store.has(id) && !existsSync(join(store.dir, KIND_FOLDER[kind], `${id}.md`))) return id;
  }
  throw new Error("could not find an unused id after 20 attempts");
}

export interface CreateInput {
  kind: Kind;
  title: string;
  body?: string;
  tags?: string[];
  links?: Record<string, string[]>;
  status?: string;
  created_by?: string;
}

export interface CreateResult {
  id: string;
  kind: Kind;
  title: string;
  path: string;
}

export function buildEntityFile(id: string, input: CreateInput, now: string): string {
  const frontmatter: Record<string, unknown> = { id, type: input.kind, title: input.title };
  if (input.status) frontmatter.status = input.status;
  frontmatter.created_at = now;
  frontmatter.updated_at = now;
  if (input.created_by) frontmatter.created_by = input.created_by;
  frontmatter.tags = input.tags ?? [];
  for (const [rel, targets] of Object.entries(input.links ?? {})) frontmatter[rel] = targets;
  const body = input.body ?? "";
  const text = `---\n${stringify(frontmatter, { lineWidth: 0 })}---\n`;
  return body === "" ? text : `${text}\n${body.endsWith("\n") ? body : `${body}\n`}`;
}

export async function createEntity(store: IxchelStore, input: CreateInput): Promise<CreateResult> {
  const title = input.title.trim();
  if (title === "" || /[\r\n]/.test(title)) {
    throw DomainError.invalid("title: give a one-line, non-empty title", [
      { field: "title", message: "empty or multi-line" },
    ]);
  }
  const links: Record<string, string[]> = {};
  for (const [rel, targets] of Object.entries(input.links ?? {})) {
    validateRel(rel, `links.${rel}`);
    links[rel] = [...new Set(targets.map((t, i) => requireEntity(store, t, `links.${rel}.${i}`).entity.id))];
  }
  const id = freshId(store, input.kind);
  const folder = join(store.dir, KIND_FOLDER[input.kind]);
  mkdirSync(folder, { recursive: true });
  assertInside(store, folder);
  const path = join(folder, `${id}.md`);
  const now = new Date().toISOString();
  createFileAtomic(path, buildEntityFile(id, { ...input, title, links }, now));
  await store.syncAfterWrite();
  return { id, kind: input.kind, title, path: `.ixchel/${KIND_FOLDER[input.kind]}/${id}.md` };
}

export interface LinkInput {
  from: string;
  rel: string;
  to: string;
}

export interface LinkResult {
  from: string;
  rel: string;
  to: string;
  /** false when the link was already there (link) or already absent (never: unlink then fails). */
  changed: boolean;
  /** The relationship's targets after the edit. */
  targets: string[];
  path: string;
}

function itemId(node: unknown): string | undefined {
  if (isScalar(node)) return typeof node.value === "string" ? node.value.trim().toLowerCase() : undefined;
  if (isMap(node)) {
    const id = node.get("id");
    return typeof id === "string" ? id.trim().toLowerCase() : undefined;
  }
  return undefined;
}

/** Reads the entity's file fresh and returns its current link targets for `rel` (undefined: no such key). */
function currentTargets(raw: string, rel: string, path: string): string[] | undefined {
  let data: Record<string, unknown>;
  try {
    const split = splitFrontmatter(raw);
    if (!split) throw new FrontmatterError("the file has no frontmatter", 1);
    data = parseFrontmatter(split).data;
  } catch (error) {
    if (error instanceof FrontmatterError) {
      throw DomainError.conflict(`${path} line ${error.line}: ${error.message}. Fix the frontmatter first.`);
    }
    throw error;
  }
  if (!(rel in data)) return undefined;
  const link = extractLinks({ [rel]: data[rel] })[0];
  if (!link) {
    throw DomainError.conflict(
      `${path}: the key "${rel}" holds data that is not a list of ids, so it cannot be edited as a link; choose another rel`,
    );
  }
  return link.targets;
}

function touch(doc: Document): void {
  doc.set("updated_at", new Date().toISOString());
}

/**
 * Read-modify-write of one entity's file under its lock: two companion processes editing the same entity at
 * once must both land (no acknowledged edit lost). `edit` gets the current text and returns the result, with
 * the new text when anything changed; the store is synced after a change. ixchel_link, ixchel_unlink and
 * ixchel_update all edit through here; ixchel_delete takes the same lock.
 */
export async function editEntityFile<R extends { changed: boolean }>(
  store: IxchelStore,
  rel: string,
  edit: (raw: string, path: string) => { text?: string; result: R },
): Promise<R> {
  const abs = join(store.dir, rel);
  assertInside(store, abs);
  const result = await withFileLock(`${abs}.lock`, async (lock) => {
    const { text, result } = edit(readFileSync(abs, "utf8"), `.ixchel/${rel}`);
    if (text !== undefined) {
      // A holder that stalled past the stale age and lost its lock must not replace a taker's write.
      lock.assertHeld();
      writeFileAtomic(abs, text);
    }
    return result;
  });
  if (result.changed) await store.syncAfterWrite();
  return result;
}

export async function linkEntities(store: IxchelStore, input: LinkInput): Promise<LinkResult> {
  const from = requireEntity(store, input.from, "from");
  const rel = validateRel(input.rel);
  const to = requireEntity(store, input.to, "to").entity.id;
  if (to === from.entity.id)
    throw DomainError.invalid("to: an entity cannot link to itself", [
      { field: "to", message: "same as from" },
    ]);
  return editEntityFile<LinkResult>(store, from.rel, (raw, path) => {
    const targets = currentTargets(raw, rel, path);
    if (targets?.includes(to))
      return { result: { from: from.entity.id, rel, to, changed: false, targets, path } };
    const text = editFrontmatter(raw, (doc) => {
      const node = doc.get(rel, true);
      const objectStyle = isMap(node) || (isSeq(node) && node.items.some((item) => isMap(item)));
      const item = objectStyle ? { id: to, type: kindOfId(to) } : to;
      if (isSeq(node)) {
        // A new item looks like its neighbours: `{id: …, type: …}` on one line when they are written so.
        const created = doc.createNode(item);
        const last = node.items.at(-1);
        if (isMap(created) && isMap(last) && last.flow) created.flow = true;
        node.add(created);
      } else if (node === undefined) doc.set(rel, doc.createNode([item]));
      else doc.set(rel, doc.createNode([(node as { toJSON(): unknown }).toJSON(), item]));
      touch(doc);
    });
    return {
      text,
      result: { from: from.entity.id, rel, to, changed: true, targets: [...(targets ?? []), to], path },
    };
  });
}

export async function unlinkEntities(store: IxchelStore, input: LinkInput): Promise<LinkResult> {
  const from = requireEntity(store, input.from, "from");
  const rel = validateRel(input.rel);
  // The target may be gone already: removing a broken link is the point.
  const to = requireIdFormat(input.to, "to");
  return editEntityFile<LinkResult>(store, from.rel, (raw, path) => {
    const targets = currentTargets(raw, rel, path);
    if (!targets?.includes(to)) {
      throw DomainError.notFound(
        `${from.entity.id} has no "${rel}" link to ${to}. Call ixchel_graph with id ${from.entity.id} to see its links.`,
        to,
      );
    }
    const remaining = targets.filter((t) => t !== to);
    const text = editFrontmatter(raw, (doc) => {
      const node = doc.get(rel, true);
      if (isSeq(node) && remaining.length > 0) {
        for (let i = node.items.length - 1; i >= 0; i--) if (itemId(node.items[i]) === to) node.delete(i);
      } else {
        doc.delete(rel);
      }
      touch(doc);
    });
    return { text, result: { from: from.entity.id, rel, to, changed: true, targets: remaining, path } };
  });
}
