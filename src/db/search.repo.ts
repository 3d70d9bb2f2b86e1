/**
 * Full-text search over every entity (DESIGN): FTS5 `search_fts` (reference id, title, description), ranked
 * with bm25; the entity whose reference id is exactly the query ranks first. Pages use keyset cursors on
 * (exact, score, rowid), so a cursor names a position in the ranking rather than an offset.
 */
import { type SQL, sql } from "drizzle-orm";
import type { RequirementStatus } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import { kindOfReference } from "../core/references.js";
import type { Executor } from "./database.js";
import { decodeCursor, encodeCursor } from "./entity-support.js";
import { requirementTypeId } from "./requirement-types.repo.js";

export const SEARCH_KINDS = ["epic", "user_story", "requirement", "acceptance_criterion"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** Column weights for bm25: a hit in the reference id or title matters more than one in the text. */
const BM25 = sql.raw("bm25(search_fts, 10.0, 5.0, 1.0)");

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
}

interface Ranked {
  rid: number;
  kind: SearchKind;
  entity_id: number;
  reference_id: string;
  title: string;
  score: number;
  exact: number;
}

type CursorKey = [number, number, number];
const isCursorKey = (k: unknown): k is CursorKey =>
  Array.isArray(k) && k.length === 3 && k.every((v) => typeof v === "number" && Number.isFinite(v));

/**
 * The user's words → an FTS5 query. Each whitespace-separated chunk becomes a quoted phrase (so `e-mail`
 * or `REQ-012` keep their parts together and no FTS5 operator syntax leaks through); all must match.
 */
export function ftsQuery(query: string): { match: string; exactReference?: string } {
  const ref = kindOfReference(query.trim());
  if (ref) return { match: `"${ref.reference}"`, exactReference: ref.reference };
  const chunks = query
    .normalize("NFKC")
    .split(/\s+/)
    .map((c) => c.replace(/"/g, ""))
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

async function ranked(
  ex: Executor,
  workspaceId: number,
  match: string,
  exactReference: string | undefined,
  where: SQL,
  after: CursorKey | undefined,
  limit: number,
): Promise<Ranked[]> {
  const keyset = after ? sql`WHERE (exact, score, rid) > (${after[0]}, ${after[1]}, ${after[2]})` : sql``;
  return ex.all<Ranked>(sql`
    SELECT * FROM (
      SELECT f.rowid AS rid, f.kind AS kind, f.entity_id AS entity_id, f.reference_id AS reference_id,
             f.title AS title, ${BM25} AS score,
             CASE WHEN f.reference_id = ${exactReference ?? ""} THEN 0 ELSE 1 END AS exact
      FROM search_fts f
      WHERE search_fts MATCH ${match} AND f.workspace_id = ${workspaceId} AND ${where}
    ) ${keyset}
    ORDER BY exact, score, rid
    LIMIT ${limit + 1}`);
}

/** The passage to show: the snippet, unless it is only the reference id (then the title says more). */
function passage(snippet: string | undefined, r: Ranked): string {
  if (snippet === undefined || snippet.replace(/\*\*/g, "").trim() === r.reference_id) return r.title;
  return snippet;
}

/** Snippets for one page only: computing them for every match would dominate the query's cost. */
async function snippets(ex: Executor, match: string, rids: number[]): Promise<Map<number, string>> {
  if (rids.length === 0) return new Map();
  const rows = await ex.all<{ rid: number; snippet: string }>(sql`
    SELECT rowid AS rid, snippet(search_fts, -1, '**', '**', '…', 16) AS snippet
    FROM search_fts WHERE search_fts MATCH ${match} AND rowid IN (${sql.join(
      rids.map((r) => sql`${r}`),
      sql`, `,
    )})`);
  return new Map(rows.map((r) => [Number(r.rid), r.snippet]));
}

function paged<T>(
  rows: Ranked[],
  limit: number,
  tag: string,
  query: string,
  toItem: (r: Ranked) => T | undefined,
): SearchPage<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    mode: "lexical",
    query,
    items: kept.map(toItem).filter((x): x is T => x !== undefined),
    ...(more && last ? { next_cursor: encodeCursor(tag, [last.exact, last.score, last.rid]) } : {}),
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
  const { match, exactReference } = ftsQuery(input.query);
  const kinds =
    input.entity_types && input.entity_types.length > 0 ? [...new Set(input.entity_types)].sort() : [];
  const tag = `search_global:${fingerprint([match, kinds, input.status ?? null])}`;
  const after = decodeCursor(tag, input.cursor, isCursorKey);
  const conditions: SQL[] = [sql`1 = 1`];
  if (kinds.length > 0)
    conditions.push(
      sql`f.kind IN (${sql.join(
        kinds.map((k) => sql`${k}`),
        sql`, `,
      )})`,
    );
  if (input.status !== undefined) {
    conditions.push(sql`(CASE f.kind
      WHEN 'epic' THEN (SELECT status FROM epics WHERE id = f.entity_id)
      WHEN 'user_story' THEN (SELECT status FROM user_stories WHERE id = f.entity_id)
      WHEN 'requirement' THEN (SELECT status FROM requirements WHERE id = f.entity_id)
      END) = ${input.status}`);
  }
  const rows = await ranked(
    ex,
    workspaceId,
    match,
    exactReference,
    sql.join(conditions, sql` AND `),
    after,
    input.limit,
  );
  const page = rows.slice(0, input.limit);
  const texts = await snippets(
    ex,
    match,
    page.map((r) => r.rid),
  );
  return paged(rows, input.limit, tag, input.query, (r) => ({
    kind: r.kind,
    reference_id: r.reference_id,
    title: r.title,
    snippet: passage(texts.get(Number(r.rid)), r),
    score: relevance(r.score),
    exact_match: r.exact === 0,
  }));
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
  const { match, exactReference } = ftsQuery(input.query);
  const typeId = input.type === undefined ? undefined : await requirementTypeId(ex, workspaceId, input.type);
  const tag = `search_requirements:${fingerprint([match, input.status ?? null, typeId ?? null, input.priority ?? null])}`;
  const after = decodeCursor(tag, input.cursor, isCursorKey);
  const filters: SQL[] = [];
  if (input.status !== undefined) filters.push(sql`r.status = ${input.status}`);
  if (typeId !== undefined) filters.push(sql`r.type_id = ${typeId}`);
  if (input.priority !== undefined) filters.push(sql`r.priority = ${input.priority}`);
  const where =
    filters.length === 0
      ? sql`f.kind = 'requirement'`
      : sql`f.kind = 'requirement' AND EXISTS (SELECT 1 FROM requirements r WHERE r.id = f.entity_id AND ${sql.join(filters, sql` AND `)})`;
  const rows = await ranked(ex, workspaceId, match, exactReference, where, after, input.limit);
  const page = rows.slice(0, input.limit);
  const ids = page.map((r) => Number(r.entity_id));
  const [texts, details] = await Promise.all([
    snippets(
      ex,
      match,
      page.map((r) => r.rid),
    ),
    requirementDetails(ex, workspaceId, ids),
  ]);
  return paged(rows, input.limit, tag, input.query, (r) => {
    const d = details.get(Number(r.entity_id));
    if (!d) return undefined;
    return {
      reference_id: r.reference_id,
      title: r.title,
      snippet: passage(texts.get(Number(r.rid)), r),
      score: relevance(r.score),
      exact_match: r.exact === 0,
      ...d,
    };
  });
}

async function requirementDetails(ex: Executor, workspaceId: number, ids: number[]) {
  type Detail = {
    id: number;
    user_story_id: string;
    status: RequirementStatus;
    priority: number;
    type_name: string;
  };
  if (ids.length === 0) return new Map<number, Omit<Detail, "id">>();
  const rows = await ex.all<Detail>(sql`
    SELECT r.id AS id, s.reference_id AS user_story_id, r.status AS status, r.priority AS priority, t.name AS type_name
    FROM requirements r
    JOIN user_stories s ON s.id = r.user_story_id
    JOIN requirement_types t ON t.id = r.type_id
    WHERE r.workspace_id = ${workspaceId} AND r.id IN (${sql.join(
      ids.map((i) => sql`${i}`),
      sql`, `,
    )})`);
  return new Map(rows.map(({ id, ...d }) => [Number(id), d]));
}

/** The same search as a LIKE scan: the baseline the search benchmark compares FTS5 against. */
export async function likeScanRequirements(ex: Executor, workspaceId: number, query: string, limit: number) {
  const pattern = `%${query.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
  return ex.all<{ reference_id: string; title: string }>(sql`
    SELECT reference_id, title FROM requirements
    WHERE workspace_id = ${workspaceId}
      AND (title LIKE ${pattern} ESCAPE '\\' OR description LIKE ${pattern} ESCAPE '\\' OR reference_id LIKE ${pattern} ESCAPE '\\')
    ORDER BY id LIMIT ${limit}`);
}
