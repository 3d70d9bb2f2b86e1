/**
 * Hosted docsets (specs/knowledge-docsets.md, issue 5 item 3): per workspace, the same definitions as a
 * `.knowledge/config.yaml` entry (name, version, aliases, description, template), plus stored markdown pages
 * indexed by FTS5 (`docset_pages_fts`, drizzle/0001). The contract (names, local_path, template, lookup by
 * name or alias, conflicts) is core/docsets.ts, so the hosted answers equal the companion's.
 * Every query filters by workspace.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import {
  DEFAULT_DOCS_ROOT,
  DocsetCatalog,
  type DocsetDefinition,
  findNameConflicts,
  nameConflictMessage,
  unknownDocsetError,
} from "../core/docsets.js";
import { normalizePath } from "../core/docsets-path.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { iso } from "./entity-support.js";
import { docsetPages, docsets } from "./schema.js";
import { deleteSetting, getSetting, setSetting } from "./settings.repo.js";

/** The workspace setting that plays `docs_root` of `.knowledge/config.yaml` (REQ-5). */
export const DOCS_ROOT_SETTING = "docs_root";

/** Most pages one docset may hold: far above real documentation sets, low enough to bound a search. */
export const MAX_PAGES_PER_DOCSET = 50_000;

export interface StoredDocset extends DocsetDefinition {
  aliases: string[];
  page_count: number;
  created_at: string;
  updated_at: string;
}

export interface DocsetPatch {
  version?: string;
  aliases?: string[];
  /** `null` clears it. */
  description?: string | null;
  /** `null` clears it: the default template applies again. */
  template?: string | null;
}

export interface PageInput {
  path: string;
  content: string;
}

export interface PageHit {
  path: string;
  title: string;
  /** The best matching passage, matches wrapped in ** … **. */
  snippet: string;
}

interface Row {
  id: number;
  name: string;
  version: string;
  aliases: string[];
  description: string;
  template: string | null;
  createdAt: string;
  updatedAt: string;
}

const columns = {
  id: docsets.id,
  name: docsets.name,
  version: docsets.version,
  aliases: docsets.aliases,
  description: docsets.description,
  template: docsets.template,
  createdAt: docsets.createdAt,
  updatedAt: docsets.updatedAt,
};

function definitionOf(r: Row): DocsetDefinition {
  return {
    name: r.name,
    version: r.version,
    aliases: r.aliases,
    ...(r.description === "" ? {} : { description: r.description }),
    ...(r.template === null ? {} : { template: r.template }),
  };
}

async function rows(ex: Executor, workspaceId: number): Promise<Row[]> {
  return ex
    .select(columns)
    .from(docsets)
    .where(eq(docsets.workspaceId, workspaceId))
    .orderBy(asc(docsets.name));
}

/** The workspace's `docs_root`, normalized; the spec's default when unset (REQ-5). */
export async function docsRoot(ex: Executor, workspaceId: number): Promise<string> {
  const value = await getSetting(ex, workspaceId, DOCS_ROOT_SETTING);
  return value === undefined ? DEFAULT_DOCS_ROOT : value;
}

/** Sets (or with `null` resets) the workspace's `docs_root`. Stored normalized, forward slashes. */
export async function setDocsRoot(tx: Tx, workspaceId: number, root: string | null): Promise<string> {
  if (root === null) {
    await deleteSetting(tx, workspaceId, DOCS_ROOT_SETTING);
    return DEFAULT_DOCS_ROOT;
  }
  const normalized = normalizePath(root);
  await setSetting(tx, workspaceId, DOCS_ROOT_SETTING, normalized);
  return normalized;
}

/** All docsets of the workspace as the shared catalog (lookup by name or alias, local_path, templates). */
export async function workspaceCatalog(ex: Executor, workspaceId: number): Promise<DocsetCatalog> {
  const [list, root] = await Promise.all([rows(ex, workspaceId), docsRoot(ex, workspaceId)]);
  return new DocsetCatalog(list.map(definitionOf), root);
}

/**
 * REQ-1 / REQ-7: unknown docset → not found, listing the available names and aliases (core's message). With
 * none at all, the core message points at `.knowledge/config.yaml`; here the fix is register_docset.
 */
export function docsetNotFound(
  key: string,
  available: readonly { name: string; aliases: readonly string[] }[],
): DomainError {
  if (available.length > 0) return unknownDocsetError(key, available);
  return new DomainError(
    "not_found",
    `Unknown docset "${key}": no docsets are registered in this workspace. An editor registers one with register_docset (name and version); then call list_docsets.`,
    { reference_id: key, available: [] },
  );
}

async function rowByKey(ex: Executor, workspaceId: number, key: string): Promise<{ row: Row; all: Row[] }> {
  const all = await rows(ex, workspaceId);
  const row = all.find((r) => r.name === key) ?? all.find((r) => r.aliases.includes(key));
  if (!row) throw docsetNotFound(key, all);
  return { row, all };
}

async function pageCount(ex: Executor, workspaceId: number, docsetId: number): Promise<number> {
  const rs = await ex
    .select({ n: sql<number>`count(*)` })
    .from(docsetPages)
    .where(and(eq(docsetPages.workspaceId, workspaceId), eq(docsetPages.docsetId, docsetId)));
  return Number(rs[0]?.n ?? 0);
}

async function stored(ex: Executor, workspaceId: number, row: Row): Promise<StoredDocset> {
  return {
    ...definitionOf(row),
    aliases: row.aliases,
    page_count: await pageCount(ex, workspaceId, row.id),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** Every name and alias must pick one docset (the same rule `.knowledge/config.yaml` enforces). */
function checkConflicts(candidate: DocsetDefinition, others: readonly DocsetDefinition[]): void {
  // findNameConflicts lets a docset repeat its own keys (harmless in a config file); a stored record lists each once.
  const keys = [candidate.name, ...(candidate.aliases ?? [])];
  const repeated = keys.find((k, i) => keys.indexOf(k) !== i);
  if (repeated !== undefined) {
    throw DomainError.invalid(
      `"${repeated}" appears twice among the name and aliases of ${candidate.name}: list each once.`,
      [{ field: "aliases", message: `duplicate "${repeated}"` }],
    );
  }
  const definitions = [...others, candidate];
  const conflict = findNameConflicts(definitions).find((c) => c.index === others.length);
  if (conflict) {
    throw DomainError.conflict(nameConflictMessage(conflict, definitions), { reference_id: conflict.key });
  }
}

export async function getDocset(ex: Executor, workspaceId: number, key: string): Promise<StoredDocset> {
  const { row } = await rowByKey(ex, workspaceId, key);
  return stored(ex, workspaceId, row);
}

export async function registerDocset(
  tx: Tx,
  workspaceId: number,
  def: DocsetDefinition,
  now: Date,
): Promise<StoredDocset> {
  const all = await rows(tx, workspaceId);
  const aliases = [...(def.aliases ?? [])];
  checkConflicts({ ...def, aliases }, all.map(definitionOf));
  const at = iso(now);
  const [row] = await tx
    .insert(docsets)
    .values({
      workspaceId,
      name: def.name,
      version: def.version,
      aliases,
      description: def.description ?? "",
      template: def.template ?? null,
      createdAt: at,
      updatedAt: at,
    })
    .returning(columns);
  if (!row) throw new Error("docset insert returned no row");
  return stored(tx, workspaceId, row);
}

export async function updateDocset(
  tx: Tx,
  workspaceId: number,
  key: string,
  patch: DocsetPatch,
  now: Date,
): Promise<StoredDocset> {
  const { row, all } = await rowByKey(tx, workspaceId, key);
  // Nothing to change: answer with the docset as it is, without a write (updated_at stays).
  if (Object.values(patch).every((v) => v === undefined)) return stored(tx, workspaceId, row);
  const next: Row = {
    ...row,
    ...(patch.version === undefined ? {} : { version: patch.version }),
    ...(patch.aliases === undefined ? {} : { aliases: [...patch.aliases] }),
    ...(patch.description === undefined ? {} : { description: patch.description ?? "" }),
    ...(patch.template === undefined ? {} : { template: patch.template }),
  };
  checkConflicts(definitionOf(next), all.filter((r) => r.id !== row.id).map(definitionOf));
  const [updated] = await tx
    .update(docsets)
    .set({
      version: next.version,
      aliases: next.aliases,
      description: next.description,
      template: next.template,
      updatedAt: iso(now),
    })
    .where(and(eq(docsets.workspaceId, workspaceId), eq(docsets.id, row.id)))
    .returning(columns);
  if (!updated) throw new Error("docset update returned no row");
  return stored(tx, workspaceId, updated);
}

/** Removes the docset and its pages (the FTS triggers drop them from the index). */
export async function deleteDocset(
  tx: Tx,
  workspaceId: number,
  key: string,
): Promise<{ name: string; version: string; pages_deleted: number }> {
  const { row } = await rowByKey(tx, workspaceId, key);
  const removed = await tx
    .delete(docsetPages)
    .where(and(eq(docsetPages.workspaceId, workspaceId), eq(docsetPages.docsetId, row.id)))
    .returning({ id: docsetPages.id });
  await tx.delete(docsets).where(and(eq(docsets.workspaceId, workspaceId), eq(docsets.id, row.id)));
  return { name: row.name, version: row.version, pages_deleted: removed.length };
}

/**
 * A page's title: its first markdown heading (ATX `#`…`######`, or setext `===`/`---` under a line), outside
 * fenced code blocks and front matter; else the file name without extension.
 */
export function pageTitle(path: string, content: string): string {
  const lines = content.split(/\r?\n/);
  let fence: string | undefined;
  let i = 0;
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, n) => n > 0 && (l.trim() === "---" || l.trim() === "..."));
    if (end > 0) i = end + 1;
  }
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      const text = (atx[1] ?? "").trim();
      if (text !== "") return text.slice(0, 300);
      continue;
    }
    const below = lines[i + 1];
    if (line.trim() !== "" && below !== undefined && /^ {0,3}(=+|-+)[ \t]*$/.test(below)) {
      return line.trim().slice(0, 300);
    }
  }
  const file = path.slice(path.lastIndexOf("/") + 1);
  const dot = file.lastIndexOf(".");
  return dot > 0 ? file.slice(0, dot) : file;
}

/**
 * Stores pages in one transaction (the caller's `write`): a path already stored is replaced, a new one is
 * added. The FTS triggers keep `docset_pages_fts` in step.
 */
export async function upsertPages(
  tx: Tx,
  workspaceId: number,
  key: string,
  pages: readonly PageInput[],
  now: Date,
): Promise<{ docset: string; version: string; created: number; updated: number; page_count: number }> {
  const { row } = await rowByKey(tx, workspaceId, key);
  const paths = pages.map((p) => p.path);
  const existing = new Set<string>();
  // Chunks keep the statement under SQLite's variable limit whatever the batch size.
  for (let i = 0; i < paths.length; i += 500) {
    const found = await tx
      .select({ path: docsetPages.path })
      .from(docsetPages)
      .where(
        and(
          eq(docsetPages.workspaceId, workspaceId),
          eq(docsetPages.docsetId, row.id),
          inArray(docsetPages.path, paths.slice(i, i + 500)),
        ),
      );
    for (const f of found) existing.add(f.path);
  }
  const created = pages.length - existing.size;
  const before = await pageCount(tx, workspaceId, row.id);
  if (before + created > MAX_PAGES_PER_DOCSET) {
    throw DomainError.invalid(
      `${row.name} ${row.version} holds ${before} pages; adding ${created} new ones would pass the limit of ${MAX_PAGES_PER_DOCSET} pages per docset. Upload only the pages the team needs, or split the documentation into several docsets.`,
      [{ field: "pages", message: `at most ${MAX_PAGES_PER_DOCSET} pages per docset` }],
    );
  }
  const at = iso(now);
  for (const page of pages) {
    const title = pageTitle(page.path, page.content);
    await tx
      .insert(docsetPages)
      .values({ workspaceId, docsetId: row.id, path: page.path, title, content: page.content, updatedAt: at })
      .onConflictDoUpdate({
        target: [docsetPages.docsetId, docsetPages.path],
        set: { title, content: page.content, updatedAt: at },
      });
  }
  await tx
    .update(docsets)
    .set({ updatedAt: at })
    .where(and(eq(docsets.workspaceId, workspaceId), eq(docsets.id, row.id)));
  return {
    docset: row.name,
    version: row.version,
    created,
    updated: existing.size,
    page_count: before + created,
  };
}

/** Pages of a docset by path (path and title only), for the `docset://` resource. */
export async function listPages(
  ex: Executor,
  workspaceId: number,
  key: string,
  limit: number,
): Promise<{ docset: StoredDocset; pages: { path: string; title: string }[] }> {
  const { row } = await rowByKey(ex, workspaceId, key);
  const pages = await ex
    .select({ path: docsetPages.path, title: docsetPages.title })
    .from(docsetPages)
    .where(and(eq(docsetPages.workspaceId, workspaceId), eq(docsetPages.docsetId, row.id)))
    .orderBy(asc(docsetPages.path))
    .limit(limit);
  return { docset: await stored(ex, workspaceId, row), pages };
}

/**
 * Keywords → an FTS5 query: each keyword a quoted phrase (so `use-effect` keeps its parts together and no
 * FTS5 operator syntax leaks through), any of them may match. `undefined` when none has a letter or digit.
 */
export function pagesFtsQuery(keywords: readonly string[]): string | undefined {
  const phrases = keywords
    .map((k) => k.normalize("NFKC").replace(/"/g, " ").trim())
    .filter((k) => /[\p{L}\p{N}]/u.test(k))
    .map((k) => `"${k}"`);
  return phrases.length === 0 ? undefined : phrases.join(" OR ");
}

/** bm25 weights of (path, title, content): a hit in the title or path says more than one in the text. */
const BM25 = sql.raw("bm25(docset_pages_fts, 3.0, 5.0, 1.0)");

/** Index rowids (drizzle/0004): docset_id * 2^32 + page id, so one docset is one rowid range. */
const DOCSET_SPAN = 4_294_967_296;

/**
 * The best matching pages of one docset. Ranking reads only rowids and scores inside the docset's rowid
 * range; path, title and snippet are read for the returned pages alone. Scores are not returned: FTS5
 * computes bm25 over the whole table, so their values depend on other workspaces' pages.
 */
export async function searchPages(
  ex: Executor,
  workspaceId: number,
  docsetName: string,
  keywords: readonly string[],
  limit: number,
): Promise<PageHit[]> {
  const match = pagesFtsQuery(keywords);
  if (match === undefined) return [];
  const found = await ex
    .select({ id: docsets.id })
    .from(docsets)
    .where(and(eq(docsets.workspaceId, workspaceId), eq(docsets.name, docsetName)))
    .limit(1);
  const id = found[0]?.id;
  if (id === undefined) return [];
  const lo = id * DOCSET_SPAN;
  const hits = await ex.all<{ path: string; title: string; snippet: string }>(sql`
    WITH top AS (
      SELECT rowid AS rid, ${BM25} AS score FROM docset_pages_fts
      WHERE docset_pages_fts MATCH ${match} AND rowid BETWEEN ${lo} AND ${lo + DOCSET_SPAN - 1}
      ORDER BY score, rid
      LIMIT ${limit}
    )
    SELECT f.path AS path, f.title AS title, snippet(docset_pages_fts, 2, '**', '**', '…', 24) AS snippet
    FROM top JOIN docset_pages_fts f ON f.rowid = top.rid
    WHERE docset_pages_fts MATCH ${match}
    ORDER BY top.score, top.rid`);
  return hits.map((h) => ({ path: String(h.path), title: String(h.title), snippet: String(h.snippet) }));
}
