/**
 * How search ranks (issue 16): bm25 over the caller's workspace, with a bound on how many matches are scored.
 *
 * Two facts about FTS5 at a million rows shape this file (measured in bench/search-1m.ts):
 * - FTS5 positions a single-phrase query at a rowid range by walking the phrase's doclist from its start,
 *   but it intersects an AND by seeking the longer doclist. So a small workspace is searched as
 *   `{ws}: "ws<id>" AND {text columns}: (...)` (migration 0010 indexes that term), which walks only its own
 *   rows; a large workspace is searched by its rowid range (drizzle/0002), which avoids seeking through its
 *   own long workspace doclist for every match.
 * - bm25 costs about a microsecond per scored row, and walks each word's whole doclist (every workspace)
 *   once per query to weigh it. A query matching at most RANKED_CANDIDATES rows of the workspace is ranked
 *   exactly as full bm25 ranks it; one matching more returns its newest RANKED_CANDIDATES, reference id or
 *   title hits first, without bm25 (the answer says so and asks for more words). Which of the two a large
 *   workspace's query is, a probe of its oldest matches guesses before either is paid for (probeMatches).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
import {
  averageRowLength,
  BM25,
  bm25Part,
  candidateTexts,
  idf,
  keepBest,
  matchCounts,
  NO_MATCH,
  phrasesOf,
  type Ranked,
  rankedAfter,
  type TitleIndex,
  titleTable,
} from "./search-scoring.js";
import { snippetPhrases } from "./search-snippet.js";
import { prepareSample, splitPage } from "./search-split.js";
import { type Capped, TIER_BM25, tierPage } from "./search-tier.js";

/** Most matches one query ranks; the rest of a larger match set is not returned. */
export const RANKED_CANDIDATES = 5000;
/** Workspaces with more rows are searched by rowid range, smaller ones through their workspace term. */
const SMALL_WORKSPACE_ROWS = 20_000;
/** Matches a later page tolerates being added before it, before it re-reads the whole match set. */
const LATER_PAGE_SLACK = 1000;
/** A cursor's bound for each ranking that is not the newest matches (a bound > 0). */
const OWN_BM25 = -1;
const SPLIT_BM25 = -2;

const WORKSPACE_SPAN = 4_294_967_296;
const TEXT_COLUMNS = "{reference_id title description}";
const TITLE_COLUMNS = "{reference_id title}";

export type { Ranked };

/** A position in a ranking: (exact, score, rowid) of the last row shown, and the page's candidate bound. */
export type RankKey = [exact: number, score: number, rid: number, boundary: number];
export const isRankKey = (k: unknown): k is RankKey =>
  Array.isArray(k) && k.length === 4 && k.every((v) => typeof v === "number" && Number.isFinite(v));

export interface RankedPage {
  rows: Ranked[];
  /** Rowids at or below this are beyond the candidates and not ranked (0: every match was ranked). */
  boundary: number;
}

/** The user's phrases, limited to the text columns (the workspace term is never matched by words). */
export const textMatch = (phrases: string) => `${TEXT_COLUMNS}: (${phrases})`;
/** A token that could be a workspace term (`ws<id>`, the only tokens of column `ws`). */
const WORKSPACE_TOKEN = /^ws\d+$/;
/**
 * The user's phrases as FTS5 matches them in the text columns. A column filter makes FTS5 read every
 * instance's column while it walks a doclist (and bm25() walks each phrase's whole doclist to weigh it): ~30%
 * of a walk. Column `ws` holds only `ws<id>` tokens, so words without such a token match there nowhere and
 * need no filter (same rows, same instances, same bm25()).
 */
export const wordsMatch = (phrases: string) =>
  snippetPhrases(phrases).some((p) => p.some((t) => WORKSPACE_TOKEN.test(t)))
    ? textMatch(phrases)
    : `(${phrases})`;
/** The user's phrases within one workspace's rows, through its indexed workspace term. */
export const workspaceMatch = (workspaceId: number, phrases: string) =>
  `{ws}: "ws${workspaceId}" AND ${wordsMatch(phrases)}`;

/**
 * Workspaces found large, per database handle, until when the verdict holds: counting to 20,001 costs a large
 * workspace ~1.5 ms a query, and a large workspace stays large (searched as one, it still gets right answers).
 */
const knownLarge = new WeakMap<object, Map<number, number>>();
const LARGE_VERDICT_MS = 10_000;

/** The workspace's searchable rows, counting no further than SMALL_WORKSPACE_ROWS + 1. */
async function workspaceRows(ex: Executor, workspaceId: number): Promise<number> {
  const large = knownLarge.get(ex);
  if ((large?.get(workspaceId) ?? 0) > Date.now()) return SMALL_WORKSPACE_ROWS + 1;
  const rows = await ex.all<{ n: number }>(sql`SELECT count(*) AS n FROM (SELECT 1 FROM search_fts
    WHERE search_fts MATCH ${`{ws}: "ws${workspaceId}"`} LIMIT ${SMALL_WORKSPACE_ROWS + 1})`);
  const n = Number(rows[0]?.n ?? 0);
  if (n > SMALL_WORKSPACE_ROWS) {
    if (!large) knownLarge.set(ex, new Map([[workspaceId, Date.now() + LARGE_VERDICT_MS]]));
    else large.set(workspaceId, Date.now() + LARGE_VERDICT_MS);
  }
  return n;
}

/** The cursor's place in a ranking's order (exact, score, rowid), without its candidate bound. */
const orderKey = (q: RankQuery): [number, number, number] | undefined =>
  q.after ? [q.after[0], q.after[1], q.after[2]] : undefined;

export interface RankQuery {
  workspaceId: number;
  /** The user's phrases (ftsQuery). */
  phrases: string;
  /** Rowid of the entity the query names exactly, or -1. */
  exact: number;
  join: SQL;
  where: SQL;
  after: RankKey | undefined;
  limit: number;
}

interface Scoping {
  /** The query's FTS5 expression over the text columns. */
  match: string;
  /** The same words in the reference id or title only: where they are walked, and the expression. */
  titles: TitleIndex;
  /** The tenant guard (and, for a large workspace, the range FTS5 filters on). */
  scope: SQL;
  /** A small workspace's rows (searched through its term, ranked by search-scoring.ts); else undefined. */
  rows: number | undefined;
}

async function scopingOf(ex: Executor, q: RankQuery): Promise<Scoping> {
  const lo = q.workspaceId * WORKSPACE_SPAN;
  const titles = `${TITLE_COLUMNS}: (${q.phrases})`;
  // Scoping twice is deliberate: the match or range does the work, the rowid test guarantees the tenant.
  const rows = await workspaceRows(ex, q.workspaceId);
  if (rows <= SMALL_WORKSPACE_ROWS) {
    const ws = `{ws}: "ws${q.workspaceId}"`;
    return {
      match: workspaceMatch(q.workspaceId, q.phrases),
      titles: { table: "search_fts", match: `${ws} AND ${titles}` },
      scope: sql`(f.rowid >> 32) = ${q.workspaceId}`,
      rows,
    };
  }
  return {
    match: wordsMatch(q.phrases),
    // The title index (drizzle/0017): its doclists hold titles alone, so the walk is ~6× shorter.
    titles: { table: "search_titles", match: `(${q.phrases})` },
    scope: sql`f.rowid BETWEEN ${lo} AND ${lo + WORKSPACE_SPAN - 1}`,
    rows: undefined,
  };
}

type PageRow = { rid: number | null; score: number; exact: number; bound: number; n: number; low: number };

/**
 * One page of the ranking, a total order (so keyset cursors neither skip nor repeat): the exact entity first,
 * then bm25, then rowid, when the workspace has at most RANKED_CANDIDATES matches. With more, bm25 would
 * cost a walk of every match and of each word's whole doclist: the newest RANKED_CANDIDATES matches are
 * listed instead, those with every word in the reference id or title first, each group newest first
 * (score 1 and 0). Only rowids and scores come back: stored text is read for the page, and for the rows a
 * ranking of our own scores (search-scoring.ts).
 */
export async function rankedPage(ex: Executor, q: RankQuery): Promise<RankedPage> {
  const s = await scopingOf(ex, q);
  // A later page keeps its first page's ranking, named by its bound: > 0 newest, -1 our bm25, -2 split, -3 title
  // tier, 0 bm25().
  const bound = q.after?.[3];
  if (bound === undefined && s.rows === undefined) return largeFirstPage(ex, s, q);
  if (bound === SPLIT_BM25) {
    const split = await splitRanked(ex, s, q);
    if (split && split !== "capped") return { rows: split, boundary: SPLIT_BM25 };
  }
  if (bound === TIER_BM25) {
    const tier = await tierRanked(ex, s, q, undefined, false);
    if (Array.isArray(tier)) return { rows: tier, boundary: TIER_BM25 };
  }
  // A workspace of at most RANKED_CANDIDATES rows has no more matches: its own ranking counts them itself.
  const fewRows = s.rows !== undefined && s.rows <= RANKED_CANDIDATES;
  const matches =
    (bound === undefined || bound === OWN_BM25) && !fewRows
      ? await countUpTo(ex, s, q, RANKED_CANDIDATES + 1)
      : undefined;
  const capped = bound === undefined ? (matches ?? 0) > RANKED_CANDIDATES : bound > 0;
  const own = bound === undefined ? !capped && s.rows !== undefined : bound === OWN_BM25;
  // The newest matches with every word in the reference id or title often fill the page alone: then only they
  // are walked (newestPage walks every title match of the window to rank the rest after them).
  if (capped && q.exact < 0 && (!q.after || (q.after[0] === 1 && q.after[1] === TITLE_SCORE))) {
    const titles = await titlePage(ex, s, q);
    if (titles.page) return titles.page;
  }
  const page: Page = capped
    ? newestPage
    : own
      ? await ownPage(ex, q, s.rows ?? SMALL_WORKSPACE_ROWS, matches)
      : bm25Page;
  let rows = await page(ex, s, q, q.after ? RANKED_CANDIDATES + 1 + LATER_PAGE_SLACK : RANKED_CANDIDATES + 1);
  const meta = rows[0];
  // Many matches were added since the first page: the window may no longer reach the page's bound.
  if (
    q.after &&
    capped &&
    meta &&
    Number(meta.n) === RANKED_CANDIDATES + 1 + LATER_PAGE_SLACK &&
    Number(meta.low) > q.after[3]
  ) {
    rows = await page(ex, s, q, undefined);
  }
  return pageOf(rows, q);
}

/**
 * How a large workspace's first page guesses whether a query has more than RANKED_CANDIDATES matches before
 * it pays for either answer: it counts its oldest PROBE_MATCHES matches (a walk of at most that many, in
 * FTS5's own order) and scales their count by the share they span of the workspace's rowids from the first
 * match on. Uniform rows give ±6% at PROBE_MATCHES. A guess of few is taken (a wrong one costs bm25() over
 * a window, then the title page without its count); a guess of many only PROBE_MARGIN or more above the
 * bound, one nearer is counted (a wrong guess of many would cost the title page's walk before bm25()).
 * Small, because the walk it saves is small: counting the matches after the probe's last one costs about as
 * much as counting them all (as if FTS5 read the doclists up to that rowid all the same), so a query with
 * few matches pays the probe's walk on top of its count. Measured 2026-11-26 at 1M rows, interleaved, same
 * answers: 250 against 1,000 took 0.91× on two words under 5,000 matches, 0.92× over, 0.94–0.98× on one
 * word; 500 gave 0.94–0.98×, 125 no better than 250 (two words over 5,000: p99 13.6 against 11.8 ms). The
 * probe itself: 0.06–0.41 ms, against 0.16–1.29 at 1,000.
 */
const PROBE_MATCHES = 250;
const PROBE_MARGIN = 0.1;
/**
 * A guess of few is clearly few (count the oldest first, ~40% cheaper than the newest) up to this share below
 * the bound: the probe's ±6% puts the chance that such a guess is over at ~20%, and that costs the title
 * page a walk of its window (~5 ms) where the cheaper count spared ~2 ms every time. With the 250-match
 * probe, 0.10 here or 0.2 for PROBE_MARGIN made no difference (0.98–1.01×, interleaved, 2026-11-26).
 */
const FEW_MARGIN = 0.05;

interface Probe {
  /** The matches, exact when fewer than PROBE_MATCHES, else scaled up from them. */
  n: number;
  exact: boolean;
  /** The rowid of the last match it counted: a count of the matches goes on from there. */
  top: number;
}

async function probeMatches(ex: Executor, s: Scoping, q: RankQuery): Promise<Probe> {
  const lo = q.workspaceId * WORKSPACE_SPAN;
  const hi = lo + WORKSPACE_SPAN - 1;
  // From the first match on: words that came into use late (a new feature's) are not diluted by older rows.
  const rows = await ex.all<{ n: number; first: number | null; top: number | null; b: number | null }>(sql`
    SELECT count(*) AS n, min(rid) AS first, max(rid) AS top,
      (SELECT max(id) FROM search_fts_docsize WHERE id BETWEEN ${lo} AND ${hi}) AS b
    FROM (SELECT f.rowid AS rid FROM search_fts f ${q.join}
          WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where}
          ORDER BY f.rowid LIMIT ${PROBE_MATCHES})`);
  const n = Number(rows[0]?.n ?? 0);
  const top = Number(rows[0]?.top ?? hi);
  if (n < PROBE_MATCHES) return { n, exact: true, top };
  const first = Number(rows[0]?.first ?? lo);
  const spanned = Math.max(1, top - first + 1);
  return { n: (n * Math.max(spanned, Number(rows[0]?.b ?? hi) - first + 1)) / spanned, exact: false, top };
}

/**
 * A large workspace's first page, in as few walks of the matches as the probe allows. bm25() costs each
 * word's walk over the whole index and ~2 µs a match, so it runs once the matches are known to be at most
 * RANKED_CANDIDATES: few by the probe (then bm25Page's window counts them in the same walk; near the bound,
 * the newest window, whose size and lowest rowid spare titlePage its count if it proves capped), or counted by
 * a walk of rowids. Clearly many go straight to the title page, whose window counts them. A guess proven wrong
 * costs a query, never a wrong answer.
 */
async function largeFirstPage(ex: Executor, s: Scoping, q: RankQuery): Promise<RankedPage> {
  const lo = q.workspaceId * WORKSPACE_SPAN;
  if (phrasesOf(q.phrases).length > 1) await prepareSample(ex, lo, lo + WORKSPACE_SPAN - 1);
  const probe = await probeMatches(ex, s, q);
  const few = probe.exact || probe.n <= RANKED_CANDIDATES;
  const clearlyFew = probe.exact || probe.n <= (1 - FEW_MARGIN) * RANKED_CANDIDATES;
  const many = !probe.exact && probe.n >= (1 + PROBE_MARGIN) * RANKED_CANDIDATES;
  let counted = probe.exact ? probe.n : undefined;
  let known: { low: number; n: number } | undefined;
  if (many && q.exact < 0) {
    const titles = await titlePage(ex, s, q);
    if (titles.page) return titles.page;
    if (titles.n > RANKED_CANDIDATES) return pageOf(await newestPage(ex, s, q, RANKED_CANDIDATES + 1), q);
    counted = titles.n;
  } else if (!few && q.exact < 0) {
    // Near the bound (guessed just over it): counted first, by a walk of rowids; bm25() over a window that
    // proves capped would cost more.
    // Newest first (~40% dearer than oldest first): a count that proves capped hands the title page its
    // window, size and lowest rowid, which spares it a walk of its own.
    const window = await countNewest(ex, s, q, RANKED_CANDIDATES + 1);
    counted = window.n;
    if (counted > RANKED_CANDIDATES) {
      const titles = await titlePage(ex, s, q, window);
      if (titles.page) return titles.page;
      return pageOf(await newestPage(ex, s, q, RANKED_CANDIDATES + 1), q);
    }
  }
  const split = phrasesOf(q.phrases).length > 1 && q.exact < 0 ? await splitRanked(ex, s, q) : undefined;
  if (split && split !== "capped") return { rows: split, boundary: SPLIT_BM25 };
  // No common word: the title tier (search-tier.ts) spares bm25()'s walks when it fills the page. Counted
  // or clearly few: it counts the oldest matches; near the bound the newest (as bm25Page's window below).
  const tier =
    split === undefined && q.exact < 0
      ? await tierRanked(ex, s, q, counted, counted === undefined && !clearlyFew, probe.top)
      : undefined;
  if (Array.isArray(tier)) return { rows: tier, boundary: TIER_BM25 };
  if (tier?.low !== undefined) known = { low: tier.low, n: tier.n };
  if (split === undefined && !tier) {
    // bm25() over a window of the matches, counting it in the same walk: ranked when it holds every match.
    // Counted or clearly few: the oldest window, as FTS5 walks a doclist forwards faster than backwards
    // (30–40% at a million rows). Near the bound, the newest: if it proves capped, its size and lowest rowid
    // spare the title page a walk of its own.
    const oldestFirst = counted !== undefined || clearlyFew;
    const rows = await bm25Page(ex, s, q, RANKED_CANDIDATES + 1, oldestFirst);
    const n = Number(rows[0]?.n ?? 0);
    if (n <= RANKED_CANDIDATES) return pageOf(rows, q);
    if (!oldestFirst) known = { low: Number(rows[0]?.low ?? 0), n };
  }
  if (q.exact < 0) {
    const titles = await titlePage(ex, s, q, known);
    if (titles.page) return titles.page;
  }
  return pageOf(await newestPage(ex, s, q, RANKED_CANDIDATES + 1), q);
}

function pageOf(rows: PageRow[], q: RankQuery): RankedPage {
  return {
    rows: rows
      .filter((r) => r.rid !== null)
      .map((r) => ({ rid: Number(r.rid), score: Number(r.score), exact: Number(r.exact) })),
    boundary: q.after ? q.after[3] : Number(rows[0]?.bound ?? 0),
  };
}

/** Several words ranked title tier first (search-tier.ts); undefined when bm25() must rank them. */
function tierRanked(
  ex: Executor,
  s: Scoping,
  q: RankQuery,
  counted: number | undefined,
  newestFirst: boolean,
  probed?: number,
): Promise<Ranked[] | Capped | undefined> {
  const lo = q.workspaceId * WORKSPACE_SPAN;
  const phrases = phrasesOf(q.phrases);
  if (phrases.length < 2) return Promise.resolve(undefined);
  return tierPage(ex, {
    phrases,
    lo,
    hi: lo + WORKSPACE_SPAN - 1,
    match: s.match,
    titles: s.titles,
    phraseMatch: wordsMatch,
    join: q.join,
    scope: s.scope,
    where: q.where,
    after: orderKey(q),
    want: q.limit + 1,
    most: RANKED_CANDIDATES,
    counted,
    newestFirst,
    probed: probed === undefined ? undefined : { top: probed, n: PROBE_MATCHES },
  });
}

/** A large workspace's words ranked by search-split.ts; undefined when bm25() must rank them. */
function splitRanked(ex: Executor, s: Scoping, q: RankQuery): Promise<Ranked[] | "capped" | undefined> {
  const lo = q.workspaceId * WORKSPACE_SPAN;
  return splitPage(ex, {
    phrases: phrasesOf(q.phrases),
    lo,
    hi: lo + WORKSPACE_SPAN - 1,
    candidates: sql`c AS MATERIALIZED (
      SELECT f.rowid AS rid FROM search_fts f ${q.join}
      WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where}
      ORDER BY f.rowid LIMIT ${RANKED_CANDIDATES + 1})`,
    most: q.after ? undefined : RANKED_CANDIDATES,
    after: orderKey(q),
    want: q.limit + 1,
  });
}

/** How many matches the workspace has, counting no further than `most` (a walk of at most that many). */
async function countUpTo(ex: Executor, s: Scoping, q: RankQuery, most: number): Promise<number> {
  const rows = await ex.all<{ n: number }>(sql`SELECT count(*) AS n FROM (SELECT 1 FROM search_fts f ${q.join}
    WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where} LIMIT ${most})`);
  return Number(rows[0]?.n ?? 0);
}

/** The newest `most` matches: how many, and the lowest rowid among them. */
async function countNewest(
  ex: Executor,
  s: Scoping,
  q: RankQuery,
  most: number,
): Promise<{ n: number; low: number }> {
  const rows = await ex.all<{ n: number; low: number | null }>(sql`SELECT count(*) AS n, min(rid) AS low
    FROM (SELECT f.rowid AS rid FROM search_fts f ${q.join}
          WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where} ORDER BY f.rowid DESC LIMIT ${most})`);
  return { n: Number(rows[0]?.n ?? 0), low: Number(rows[0]?.low ?? 0) };
}

const exactOf = (q: RankQuery) =>
  q.exact >= 0 ? sql`CASE WHEN f.rowid = ${q.exact} THEN 0 ELSE 1 END` : sql`1`;
const windowOf = (window: number | undefined) => (window === undefined ? sql`` : sql`LIMIT ${window}`);

type Page = (ex: Executor, s: Scoping, q: RankQuery, window: number | undefined) => Promise<PageRow[]>;

/**
 * Every match ranked by our own bm25 (search-scoring.ts): for a workspace searched through its term, where
 * bm25() would walk each word's doclist over the whole index. Each match's words are counted in its stored
 * text, as FTS5 counts them. Its first page's bound is -1, so later pages rank the same way.
 */
async function ownPage(ex: Executor, q: RankQuery, rows: number, matches: number | undefined): Promise<Page> {
  const phrases = phrasesOf(q.phrases);
  const phraseMatch = (phrase: string) => workspaceMatch(q.workspaceId, phrase);
  // One phrase's matches: counted, or (no more than the window holds) the window's own count.
  const hits = phrases.length > 1 ? await matchCounts(ex, phrases.map(phraseMatch)) : undefined;
  const words = phrases.map((p) => snippetPhrases(p)[0] ?? []);
  const avgdl = await averageRowLength(ex);
  return async (_ex, s, _q, window) => {
    const found = await candidateTexts(
      ex,
      sql`c AS MATERIALIZED (
        SELECT f.rowid AS rid, ${exactOf(q)} AS exact
        FROM search_fts f ${q.join}
        WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where}
        ORDER BY f.rowid DESC ${windowOf(window)})`,
    );
    const weights = (hits ?? [matches ?? found.n]).map((n) => idf(rows, n));
    const after = rankedAfter(orderKey(q));
    const ranked: Ranked[] = [];
    for (const r of found.rows) {
      const row = { rid: r.rid, exact: r.exact, score: -bm25Part(r, words, weights, avgdl) };
      if (after(row)) keepBest(ranked, row, q.limit + 1);
    }
    const meta = { bound: OWN_BM25, n: found.n, low: found.low };
    // One row per result plus the window's size and lowest rowid (a lone row of NULLs when nothing is left).
    return ranked.length > 0
      ? ranked.map((r) => ({ ...r, ...meta }))
      : [{ rid: null, score: 0, exact: 0, ...meta }];
  };
}

/** Every match ranked by bm25 (the workspace has at most RANKED_CANDIDATES; the window is a safety bound). */
function bm25Page(
  ex: Executor,
  s: Scoping,
  q: RankQuery,
  window: number | undefined,
  oldestFirst = false,
): Promise<PageRow[]> {
  const keyset = q.after
    ? sql`AND (exact, score, rid) > (${q.after[0]}, ${q.after[1]}, ${q.after[2]})`
    : sql``;
  // One row per result plus the window's size and lowest rowid (a lone row of NULLs when nothing is left).
  return ex.all<PageRow>(sql`
    WITH c AS MATERIALIZED (
           SELECT f.rowid AS rid, ${BM25} AS score, ${exactOf(q)} AS exact
           FROM search_fts f ${q.join}
           WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where}
           ORDER BY f.rowid ${sql.raw(oldestFirst ? "ASC" : "DESC")} ${windowOf(window)}),
         m AS (SELECT count(*) AS n, min(rid) AS low FROM c)
    SELECT r.rid, r.score, r.exact, 0 AS bound, m.n, m.low
    FROM m LEFT JOIN (SELECT rid, score, exact FROM c WHERE 1 ${keyset}
                      ORDER BY exact, score, rid LIMIT ${q.limit + 1}) r ON 1
    ORDER BY r.exact, r.score, r.rid`);
}

const TITLE_SCORE = -1;

/**
 * A page of title hits only, newest first, within the newest RANKED_CANDIDATES matches (the first page
 * finds their lowest rowid and counts the window, a later page has the rowid in its cursor); no page when
 * too few remain to fill it. `n`: the window's matches (more than RANKED_CANDIDATES on a later page).
 */
async function titlePage(
  ex: Executor,
  s: Scoping,
  q: RankQuery,
  known?: { low: number; n: number },
): Promise<{ page?: RankedPage; n: number }> {
  const window = q.after
    ? sql`SELECT ${q.after[3]} AS low, ${RANKED_CANDIDATES + 1} AS n`
    : known
      ? sql`SELECT ${known.low} AS low, ${known.n} AS n`
      : sql`SELECT min(rid) AS low, count(*) AS n FROM (SELECT f.rowid AS rid FROM search_fts f ${q.join}
        WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where}
        ORDER BY f.rowid DESC LIMIT ${RANKED_CANDIDATES + 1})`;
  const before = q.after ? sql`AND f.rowid < ${q.after[2]}` : sql``;
  const rows = await ex.all<{ rid: number | null; low: number | null; n: number }>(sql`
    WITH b AS MATERIALIZED (${window})
    SELECT t.rid, b.low, b.n FROM b LEFT JOIN (
      SELECT f.rowid AS rid FROM ${titleTable(s.titles)} f ${q.join}
      WHERE ${titleTable(s.titles)} MATCH (CASE WHEN (SELECT n FROM b) > ${RANKED_CANDIDATES} THEN ${s.titles.match} ELSE ${NO_MATCH} END)
        AND ${s.scope} AND ${q.where}
        AND f.rowid > (SELECT low FROM b) ${before}
      ORDER BY f.rowid DESC LIMIT ${q.limit + 1}) t ON 1
    ORDER BY t.rid DESC`);
  const found = rows.filter((r) => r.rid !== null);
  const low = Number(rows[0]?.low ?? 0);
  const n = Number(rows[0]?.n ?? 0);
  if (found.length <= q.limit || low <= 0 || n <= RANKED_CANDIDATES) return { n };
  return {
    page: { rows: found.map((r) => ({ rid: Number(r.rid), score: TITLE_SCORE, exact: 1 })), boundary: low },
    n,
  };
}

/**
 * More matches than bm25 may score: the newest RANKED_CANDIDATES (newest first, so the bound keeps the same
 * candidates from page to page), reference id or title hits first. No bm25: its cost grows with every match.
 */
function newestPage(ex: Executor, s: Scoping, q: RankQuery, window: number | undefined): Promise<PageRow[]> {
  const bound = q.after ? sql`${q.after[3]}` : sql`(SELECT min(rid) FROM c)`;
  const keyset = q.after
    ? sql`AND (exact, score, -rid) > (${q.after[0]}, ${q.after[1]}, ${-q.after[2]})`
    : sql``;
  return ex.all<PageRow>(sql`
    WITH c AS MATERIALIZED (
           SELECT f.rowid AS rid, ${exactOf(q)} AS exact
           FROM search_fts f ${q.join}
           WHERE search_fts MATCH ${s.match} AND ${s.scope} AND ${q.where}
           ORDER BY f.rowid DESC ${windowOf(window)}),
         t AS MATERIALIZED (
           SELECT f.rowid AS rid FROM ${titleTable(s.titles)} f
           WHERE ${titleTable(s.titles)} MATCH ${s.titles.match} AND ${s.scope}
           ORDER BY f.rowid DESC ${windowOf(window)}),
         m AS (SELECT count(*) AS n, min(rid) AS low FROM c)
    SELECT r.rid, r.score, r.exact, ${bound} AS bound, m.n, m.low
    FROM m LEFT JOIN (
      SELECT rid, score, exact FROM (
        SELECT rid, CASE WHEN rid IN (SELECT rid FROM t) THEN -1 ELSE 0 END AS score, exact FROM c
        WHERE rid > ${bound})
      WHERE 1 ${keyset}
      ORDER BY exact, score, rid DESC LIMIT ${q.limit + 1}) r ON 1
    ORDER BY r.exact, r.score, r.rid DESC`);
}
