/**
 * ixchel_update and ixchel_delete (hardening #16). Both hold the entity's cross-process lock (the one
 * ixchel_link and ixchel_unlink use), write atomically and re-sync the store, so search and the cache see
 * the change at once.
 *
 * Decisions: update changes title, body, tags, status and relationships — never id, type (the id's prefix
 * decides the kind), created_at or created_by. `links` *sets* each named relationship to exactly the given
 * targets (`[]` removes it); relationships it does not name stay. Delete refuses while other entities link to
 * the entity, naming them; `cascade: true` first removes those links (each under its entity's lock), then
 * the file, so nothing is left pointing at a deleted entity.
 */
import { unlinkSync } from "node:fs";
import { join } from "node:path";
import type { Document } from "yaml";
import { isMap, isSeq } from "yaml";
import { DomainError, isDomainError } from "../../core/errors.js";
import { withFileLock } from "../file-lock.js";
import { editFrontmatter, FrontmatterError, splitFrontmatter } from "./frontmatter.js";
import { kindOfId } from "./kinds.js";
import { requireEntity } from "./queries.js";
import type { IxchelStore } from "./store.js";
import { assertInside, editEntityFile, unlinkEntities, validateRel } from "./write.js";

export const UPDATABLE = ["title", "body", "tags", "status", "links"] as const;

export interface UpdateInput {
  id: string;
  title?: string;
  body?: string;
  tags?: string[];
  status?: string;
  links?: Record<string, string[]>;
}

export interface UpdateResult {
  id: string;
  path: string;
  changed: boolean;
  /** The fields this call set. */
  fields: string[];
}

function setList(doc: Document, key: string, items: unknown[]): void {
  const old = doc.get(key, true);
  const node = doc.createNode(items);
  // A list written inline (`tags: [a, b]`) stays inline.
  if (isSeq(old) && old.flow && isSeq(node)) node.flow = true;
  doc.set(key, node);
}

function withBody(text: string, body: string): string {
  const split = splitFrontmatter(text);
  if (!split) return text;
  const head = text.slice(0, text.length - split.body.length);
  if (body === "") return head;
  const eolBody = split.eol === "\r\n" ? body.replace(/\r?\n/g, "\r\n") : body;
  return `${head}${split.eol}${eolBody.endsWith(split.eol) ? eolBody : `${eolBody}${split.eol}`}`;
}

export async function updateEntity(store: IxchelStore, input: UpdateInput): Promise<UpdateResult> {
  const located = requireEntity(store, input.id);
  const id = located.entity.id;
  const fields = UPDATABLE.filter((f) => input[f] !== undefined);
  if (fields.length === 0) {
    throw DomainError.invalid(
      `nothing to update: give at least one of ${UPDATABLE.join(", ")} (id, type and created_at never change)`,
      [{ field: "id", message: "no field to update" }],
    );
  }
  let title: string | undefined;
  if (input.title !== undefined) {
    title = input.title.trim();
    if (title === "" || /[\r\n]/.test(title)) {
      throw DomainError.invalid("title: give a one-line, non-empty title", [
        { field: "title", message: "empty or multi-line" },
      ]);
    }
  }
  const links: [string, string[]][] = Object.entries(input.links ?? {}).map(([rel, targets]) => {
    validateRel(rel, `links.${rel}`);
    const ids = [...new Set(targets.map((t, i) => requireEntity(store, t, `links.${rel}.${i}`).entity.id))];
    if (ids.includes(id)) {
      throw DomainError.invalid(`links.${rel}: an entity cannot link to itself`, [
        { field: `links.${rel}`, message: "links to itself" },
      ]);
    }
    return [rel, ids];
  });
  const tags = input.tags && [...new Set(input.tags.map((t) => t.trim()).filter(Boolean))];
  return editEntityFile(store, located.rel, (raw, path) => {
    let text: string;
    try {
      text = editFrontmatter(raw, (doc) => {
        if (title !== undefined) doc.set("title", title);
        if (input.status !== undefined) doc.set("status", input.status.trim());
        if (tags) setList(doc, "tags", tags);
        for (const [rel, targets] of links) {
          if (targets.length === 0) {
            doc.delete(rel);
            continue;
          }
          const old = doc.get(rel, true);
          const objectStyle = isMap(old) || (isSeq(old) && old.items.some((item) => isMap(item)));
          setList(doc, rel, objectStyle ? targets.map((t) => ({ id: t, type: kindOfId(t) })) : targets);
        }
        doc.set("updated_at", new Date().toISOString());
      });
    } catch (error) {
      if (error instanceof FrontmatterError) {
        throw DomainError.conflict(
          `${path} line ${error.line}: ${error.message}. Fix the frontmatter first.`,
        );
      }
      throw error;
    }
    if (input.body !== undefined) text = withBody(text, input.body);
    return { text, result: { id, path, changed: true, fields: [...fields] } };
  });
}

export interface DeleteInput {
  id: string;
  cascade?: boolean;
}

export interface DeleteResult {
  id: string;
  path: string;
  /** Links to the entity that cascade removed. */
  unlinked: { from: string; rel: string }[];
}

/** Who links to `id`: one entry per (source, relationship), sorted. */
function incomingLinks(store: IxchelStore, id: string): { from: string; rel: string }[] {
  const found: { from: string; rel: string }[] = [];
  for (const { entity, rel: path } of store.entities()) {
    if (entity.id === id || store.get(entity.id)?.rel !== path) continue; // itself, or a duplicate's copy
    for (const link of entity.links)
      if (link.targets.includes(id)) found.push({ from: entity.id, rel: link.rel });
  }
  return found.sort((a, b) => (a.from + a.rel < b.from + b.rel ? -1 : 1));
}

export async function deleteEntity(store: IxchelStore, input: DeleteInput): Promise<DeleteResult> {
  const { entity, rel } = requireEntity(store, input.id);
  const incoming = incomingLinks(store, entity.id);
  if (incoming.length > 0 && !input.cascade) {
    const list = incoming.map((l) => `${l.from} (${l.rel})`).join(", ");
    throw DomainError.conflict(
      `${entity.id} is linked from ${list}. Remove those links with ixchel_unlink first, or call ixchel_delete with cascade: true to remove them together with ${entity.id}.`,
    );
  }
  for (const link of incoming) {
    try {
      await unlinkEntities(store, { from: link.from, rel: link.rel, to: entity.id });
    } catch (error) {
      // Another process removed that link (or its entity) meanwhile: what cascade wanted.
      if (!isDomainError(error) || error.code !== "not_found") throw error;
    }
  }
  const abs = join(store.dir, rel);
  assertInside(store, abs);
  await withFileLock(`${abs}.lock`, async (lock) => {
    lock.assertHeld();
    try {
      unlinkSync(abs);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  });
  await store.syncAfterWrite();
  return { id: entity.id, path: `.ixchel/${rel}`, unlinked: incoming };
}
