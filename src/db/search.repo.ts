/**
 * Full-text search over every entity (DESIGN): FTS5 `search_fts` (reference id, title, description), ranked
 * with bm25 over the caller's workspace (search-ranking.ts: at most RANKED_CANDIDATES matches, newest first,
 * are scored); the entity whose reference id is exactly the query ranks first. Pages use keyset cursors on
 * (exact, score, rowid), so a cursor names a position in the ranking rather than an offset.
 */
import { type SQL, sql } from "drizzle-orm";
import type { RequirementStatus } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import { kindOfReference } from "../core/references.js";
import type { Executor } from "./database.js";
import { decodeCursor, encodeCursor } from "./entity-support.js";
import { requirementTypeId } from "./requirement-types.repo.js";
import {
  isRankKey,
  RANKED_CANDIDATES,
  type Ranked,
  type RankedPage,
  type RankKey,
  rankedPage,
} from "./search-ranking.js";
import { snippetOf, snippetPhrases } from "./search-snippet.js";

export const SEARCH_KINDS = ["epic", "user_story", "requirement", "acceptance_criterion"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchHit {
  kind: SearchKind;
  reference_id: string;
  title: string;
  /** The best matching passage, matches wrapped in ** … **. */
  snippet: string;
  /** Relevance (higher is better): the negated bm25 score. */
  score: number;
  /** True for the entity whose reference id is the query itself. */
  exact_match: boolean;
}

export interface SearchPage<T> {
  /** How the results were found (DESIGN: every search result says which mode served it). */
  mode: "lexical";
  query: string;
  items: T[];
  next_cursor?: string;
  /** Present when more matches exist than are ranked: what was ranked and how to narrow the search. */
  note?: string;
}

interface Shown {
  rid: number;
  kind: SearchKind;
  reference_id: string;
  title: string;
  snippet: string;
}

/**
 * Search rowids (drizzle/0002): workspace_id * 2^32 + entity id * 8 + kind code. A workspace is one rowid
 * range FTS5 filters inside its index, and the kind is `rowid % 8`, so ranking never reads a stored row.
 */
const WORKSPACE_SPAN = 4_294_967_296;
export const KIND_CODES: Record<SearchKind, number> = {
  epic: 1,
  user_story: 2,
  requirement: 3,
  acceptance_criterion: 4,
};
const KIND_TABLES: Record<SearchKind, string> = {
  epic: "epics",
  user_story: "user_stories",
  requirement: "requirements",
  acceptance_criterion: "acceptance_criteria",
};
/** The entity id inside a search rowid, as SQL over `f.rowid`. */
export const ENTITY_ID = sql.raw("((f.rowid % 4294967296) / 8)");

function rowidOf(workspaceId: number, entityId: number, kind: SearchKind): number {
  return workspaceId * WORKSPACE_SPAN + entityId * 8 + KIND_CODES[kind];
}

/**
 * The user's words → an FTS5 query. Each whitespace-separated chunk becomes a quoted phrase (so `e-mail`
 * or `REQ-012` keep their parts together and no FTS5 operator syntax leaks through); all must match.
 */
export function ftsQuery(query: string): { match: string; exact?: { kind: SearchKind; reference: string } } {
  const ref = kindOfReference(query.trim());
  if (ref) return { match: `"${ref.reference}"`, exact: { kind: ref.kind, reference: ref.reference } };
  const chunks = query
    .normalize("NFKC")
    .split(/\s+/)
    .map((c) => c.replace(/"/g, " ").trim())
    .filter((c) => /[\p{L}\p{N}]/u.test(c));
  if (chunks.length === 0) {
    throw DomainError.invalid(
      "The search query has no words. Pass words or a reference id such as REQ-012.",
      [{ field: "query", message: "must contain at least one letter or digit" }],
    );
  }
  return { match: chunks.map((c) => `"${c}"`).join(" ") };
}

/** Small stable hash, so a cursor can say which query and filters it belongs to without repeating them. */
function fingerprint(parts: unknown[]): string {
  let h = 0x811c9dc5;
  for (const ch of JSON.stringify(parts)) {
    h ^= ch.codePointAt(0) ?? 0;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/** The search rowid of the entity the query names exactly, if it exists in this workspace. */
async function exactRowid(
  ex: Executor,
  workspaceId: number,
  exact: { kind: SearchKind; reference: string } | undefined,
): Promise<number> {
  if (!exact) return -1;
  const rows = await ex.all<{ id: number }>(
    sql`SELECT id FROM ${sql.identifier(KIND_TABLES[exact.kind])} WHERE workspace_id = ${workspaceId} AND reference_id = ${exact.reference}`,
  );
  return rows[0] ? rowidOf(workspaceId, Number(rows[0].id), exact.kind) : -1;
}

/** What a page shows (reference, title, kind, snippet), read for the page's rowids only. */
async function shown(
  ex: Executor,
  workspaceId: number,
  match: string,
  rids: number[],
): Promise<Map<number, Shown>> {
  if (rids.length === 0) return new Map();
  // Stored text by rowid, no MATCH: a MATCH cursor probed per rowid costs FTS5 a query set-up each time.
  const rows = await ex.all<Shown & { description: string }>(sql`
    SELECT rowid AS rid, kind, reference_id, title, description FROM search_fts
    WHERE rowid IN (${sql.join(
      rids.map((r) => sql`${r}`),
      sql`, `,
    )}) AND (rowid >> 32) = ${workspaceId}`);
  const phrases = snippetPhrases(match);
  return new Map(rows.map((r) => [Number(r.rid), { ...withPassage(r, phrases), rid: Number(r.rid) }]));
}

/** The snippet to show: the best passage, unless it is only the reference id (then the title says more). */
function withPassage<T extends { reference_id: string; title: string; description: string | null }>(
  r: T,
  phrases: string[][],
): Omit<T, "description"> & { snippet: string } {
  const { description, ...rest } = r;
  const snippet = snippetOf([r.reference_id, r.title, description ?? ""], phrases);
  return { ...rest, snippet: snippet.replace(/\*\*/g, "").trim() === r.reference_id ? r.title : snippet };
}

/** What an answer says when the query matches more than is ranked. */
export const CAPPED_NOTE = `More than ${RANKED_CANDIDATES.toLocaleString("en")} matches: only the newest ${RANKED_CANDIDATES.toLocaleString("en")} are ranked and returned. Add words or filters to narrow the search.`;

function paged<T>(
  page: RankedPage,
  limit: number,
  tag: string,
  query: string,
  toItem: (r: Ranked) => T | undefined,
): SearchPage<T> {
  const { rows, boundary } = page;
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  const key: RankKey | undefined = last ? [last.exact, last.score, last.rid, boundary] : undefined;
  return {
    mode: "lexical",
    query,
    items: kept.map(toItem).filter((x): x is T => x !== undefined),
    ...(more && key ? { next_cursor: encodeCursor(tag, key) } : {}),
    ...(boundary > 0 ? { note: CAPPED_NOTE } : {}),
  };
}

const relevance = (score: number) => Math.round(-score * 10_000) / 10_000;

export interface GlobalSearch {
  query: string;
  entity_types?: SearchKind[];
  /** Matches entities that have a status (epics, stories, requirements); criteria have none. */
  status?: string;
  limit: number;
  cursor?: string;
}

export async function searchGlobal(
  ex: Executor,
  workspaceId: number,
  input: GlobalSearch,
): Promise<SearchPage<SearchHit>> {
  const { match, exact } = ftsQuery(input.query);
  const kinds =
    input.entity_types && input.entity_types.length > 0 ? [...new Set(input.entity_types)].sort() : [];
  const tag = `search_global:${fingerprint([match, kinds, input.status ?? null])}`;
  const after = decodeCursor(tag, input.cursor, isRankKey);
  const conditions: SQL[] = [sql`1 = 1`];
  if (kinds.length > 0) {
    conditions.push(
      sql`f.rowid % 8 IN (${sql.join(
        kinds.map((k) => sql`${KIND_CODES[k]}`),
        sql`, `,
      )})`,
    );
  }
  if (input.status !== undefined) {
    conditions.push(sql`(CASE f.rowid % 8
      WHEN 1 THEN (SELECT status FROM epics WHERE id = ${ENTITY_ID})
      WHEN 2 THEN (SELECT status FROM user_stories WHERE id = ${ENTITY_ID})
      WHEN 3 THEN (SELECT status FROM requirements WHERE id = ${ENTITY_ID})
      END) = ${input.status}`);
  }
  const ranked = await rankedPage(ex, {
    workspaceId,
    phrases: match,
    exact: await exactRowid(ex, workspaceId, exact),
    join: sql``,
    where: sql.join(conditions, sql` AND `),
    after,
    limit: input.limit,
  });
  const page = await shown(
    ex,
    workspaceId,
    match,
    ranked.rows.slice(0, input.limit).map((r) => r.rid),
  );
  return paged(ranked, input.limit, tag, input.query, (r) => {
    const s = page.get(r.rid);
    if (!s) return undefined;
    return {
      kind: s.kind,
      reference_id: s.reference_id,
      title: s.title,
      snippet: s.snippet,
      score: relevance(r.score),
      exact_match: r.exact === 0,
    };
  });
}

export interface RequirementSearch {
  query: string;
  status?: RequirementStatus;
  type?: string;
  priority?: number;
  limit: number;
  cursor?: string;
}

export interface RequirementHit {
  reference_id: string;
  title: string;
  snippet: string;
  score: number;
  exact_match: boolean;
  user_story_id: string;
  status: RequirementStatus;
  priority: number;
  type_name: string;
}

export async function searchRequirements(
  ex: Executor,
  workspaceId: number,
  input: RequirementSearch,
): Promise<SearchPage<RequirementHit>> {
  const { match, exact } = ftsQuery(input.query);
  const typeId = input.type === undefined ? undefined : await requirementTypeId(ex, workspaceId, input.type);
  const tag = `search_requirements:${fingerprint([match, input.status ?? null, typeId ?? null, input.priority ?? null])}`;
  const after = decodeCursor(tag, input.cursor, isRankKey);
  const filters: SQL[] = [sql`f.rowid % 8 = ${KIND_CODES.requirement}`];
  if (input.status !== undefined) filters.push(sql`r.status = ${input.status}`);
  if (typeId !== undefined) filters.push(sql`r.type_id = ${typeId}`);
  if (input.priority !== undefined) filters.push(sql`r.priority = ${input.priority}`);
  // CROSS JOIN keeps FTS5 the outer loop; the requirement row is read only when a filter needs it.
  const join = filters.length > 1 ? sql`CROSS JOIN requirements r ON r.id = ${ENTITY_ID}` : sql``;
  const ranked = await rankedPage(ex, {
    workspaceId,
    phrases: match,
    exact: await exactRowid(ex, workspaceId, exact?.kind === "requirement" ? exact : undefined),
    join,
    where: sql.join(filters, sql` AND `),
    after,
    limit: input.limit,
  });
  const page = await shownRequirements(
    ex,
    workspaceId,
    match,
    ranked.rows.slice(0, input.limit).map((r) => r.rid),
  );
  return paged(ranked, input.limit, tag, input.query, (r) => {
    const hit = page.get(r.rid);
    if (!hit) return undefined;
    const { rid: _rid, kind: _kind, ...shown } = hit;
    return { ...shown, score: relevance(r.score), exact_match: r.exact === 0 };
  });
}

type RequirementShown = Shown & Pick<RequirementHit, "user_story_id" | "status" | "priority" | "type_name">;

/** A page of requirement hits with their facts, in one query over the page's rowids. */
async function shownRequirements(
  ex: Executor,
  workspaceId: number,
  match: string,
  rids: number[],
): Promise<Map<number, RequirementShown>> {
  if (rids.length === 0) return new Map();
  const rows = await ex.all<RequirementShown & { description: string }>(sql`
    SELECT f.rowid AS rid, 'requirement' AS kind, f.reference_id AS reference_id, f.title AS title,
           f.description AS description,
           s.reference_id AS user_story_id, r.status AS status, r.priority AS priority, t.name AS type_name
    FROM search_fts f
    CROSS JOIN requirements r ON r.id = ${ENTITY_ID}
    JOIN user_stories s ON s.id = r.user_story_id
    JOIN requirement_types t ON t.id = r.type_id
    WHERE f.rowid IN (${sql.join(
      rids.map((r) => sql`${r}`),
      sql`, `,
    )}) AND (f.rowid >> 32) = ${workspaceId} AND +r.workspace_id = ${workspaceId}`);
  const phrases = snippetPhrases(match);
  return new Map(rows.map((r) => [Number(r.rid), { ...withPassage(r, phrases), rid: Number(r.rid) }]));
}

/**
 * The same search as a LIKE scan: the baseline the search benchmark compares FTS5 against. Like a ranked
 * search it must look at every row (title hits first, then the rest), so it cannot stop at the first 20.
 */
export async function likeScanRequirements(ex: Executor, workspaceId: number, query: string, limit: number) {
  const words = query.split(/\s+/).filter(Boolean);
  const like = (w: string) => `%${w.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
  // Every word must occur somewhere, as in the FTS5 search.
  const each = words.map(
    (w) =>
      sql`(title LIKE ${like(w)} ESCAPE '\\' OR description LIKE ${like(w)} ESCAPE '\\' OR reference_id LIKE ${like(w)} ESCAPE '\\')`,
  );
  const first = like(words[0] ?? "");
  return ex.all<{ reference_id: string; title: string }>(sql`
    SELECT reference_id, title FROM requirements
    WHERE workspace_id = ${workspaceId} AND ${sql.join(each, sql` AND `)}
    ORDER BY CASE WHEN title LIKE ${first} ESCAPE '\\' THEN 0 ELSE 1 END, id
    LIMIT ${limit}`);
}
