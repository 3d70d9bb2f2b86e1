/**
 * A large workspace's query of several words, when no word is common enough for search-split.ts (issue 16).
 *
 * bm25() weighs each word by walking its doclist over the whole index, once per query: at a million rows two
 * words in 3–15% of the rows cost 10–16 ms before a single match is scored, however few rows match both. So
 * when enough matches hold every word in their reference id or title (the title tier: a walk of the title
 * index, search_titles, under 1 ms), those rows are ranked first, by bm25 computed here from their stored
 * text and docsize record, each word weighed from the workspace's word sample (search-split.ts) or, when the
 * sample holds it in fewer than EXACT_BELOW rows, by counting it as bm25() does (a short walk: the word is
 * rare). The other matches follow, ranked by bm25() itself, and only a page that reaches past the tier pays
 * for that. With column weights 10/5/1 a row with every word in its title nearly always outranks one
 * without: over the search bench's judged queries the top 10 are bm25()'s (bench/search-1m.ts). The trade-off
 * is a row whose words are only in its text, but many times over: bm25() may rank it above a title hit,
 * this ranking lists it after the tier. Cursors name the ranking (bound TIER_BM25) and the tier (the `exact`
 * column: TITLE_TIER, then REST_TIER), so pages neither skip nor repeat.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
import {
  BM25,
  bm25Part,
  idf,
  indexAverages,
  keepBest,
  matchCounts,
  NO_MATCH,
  type Ranked,
  rankedAfter,
  rowTexts,
  type TitleIndex,
  titleTable,
} from "./search-scoring.js";
import { snippetPhrases } from "./search-snippet.js";
import { sampledHits } from "./search-split.js";

/** A cursor's bound for the tier ranking. */
export const TIER_BM25 = -3;
/** The `exact` value of the tier's rows and of the rest (the entity named exactly would be 0). */
const TITLE_TIER = 1;
const REST_TIER = 2;
/** Most title-tier rows a first page scores here; with more, bm25() ranks the query (its cost is no higher). */
const MAX_TIER = 1000;
/** A word in fewer of the sample's rows is counted exactly (its walk is short), as bm25() counts it. */
const EXACT_BELOW = 40;
/** Most rows such a count walks; past it the sample's share stands. */
const COUNT_CAP = 100_000;

export interface TierQuery {
  /** The query's quoted phrases, in order (at least two). */
  phrases: string[];
  /** The workspace's rowid range (its word sample). */
  lo: number;
  hi: number;
  /** The FTS5 expression of every word anywhere; every word in the reference id or title, and where. */
  match: string;
  titles: TitleIndex;
  /** A phrase alone, as bm25() walks it to weigh it. */
  phraseMatch: (phrase: string) => string;
  /** Joins and conditions on `f` (search_fts): the tenant guard and the caller's filters. */
  join: SQL;
  scope: SQL;
  where: SQL;
  /** Keyset position (tier, score, rowid) of the last row shown; undefined on a first page. */
  after: [number, number, number] | undefined;
  /** Rows wanted (the page and one more). */
  want: number;
  /** First page: at most this many matches are ranked (more: `capped`); the count if already known. */
  most: number;
  counted: number | undefined;
  /**
   * First page, count not known. True (near the bound): count the newest `most` + 1 matches, whose lowest
   * rowid spares the title page a walk of its own if they prove more than `most`. False: the oldest (FTS5
   * walks a doclist forwards faster).
   */
  newestFirst: boolean;
  /**
   * Counting oldest first: the probe's count of the oldest matches, `n`, up to rowid `top`. The count goes on
   * from there (FTS5 skips to a rowid bound through its doclist indexes: ~30% of a count of 5,000 spared).
   */
  probed: { top: number; n: number } | undefined;
}

/** A first page with more than `most` matches: how many of the window (`most` + 1) and its lowest rowid. */
export interface Capped {
  capped: true;
  n: number;
  /** The newest window's lowest rowid, when it was counted newest first. */
  low: number | undefined;
}

/**
 * One page of the tier ranking, best first. A first page: Capped when the query has more than q.most
 * matches, undefined when the tier cannot fill the page or is too large to score here (bm25() ranks the
 * query). A later page always answers.
 */
export async function tierPage(ex: Executor, q: TierQuery): Promise<Ranked[] | Capped | undefined> {
  const first = q.after === undefined;
  const from = !q.newestFirst && q.probed && q.probed.n <= q.most ? q.probed : undefined;
  const count =
    first && q.counted === undefined
      ? sql`SELECT ${from?.n ?? 0} + count(*) AS n, min(rid) AS low FROM (SELECT f.rowid AS rid FROM search_fts f ${q.join}
          WHERE search_fts MATCH ${q.match} AND ${q.scope} AND ${q.where} ${from ? sql`AND f.rowid > ${from.top}` : sql``}
          ORDER BY f.rowid ${sql.raw(q.newestFirst ? "DESC" : "ASC")} LIMIT ${q.most + 1 - (from?.n ?? 0)})`
      : sql`SELECT ${q.counted ?? 0} AS n, NULL AS low`;
  // Too many matches: the title tier's cursor gets a query that matches nothing (only the count is paid).
  const found = await ex.all<{ rid: number | null; n: number; low: number | null }>(sql`
    WITH m AS MATERIALIZED (${count}),
         t AS (SELECT f.rowid AS rid FROM ${titleTable(q.titles)} f ${q.join}
               WHERE ${titleTable(q.titles)} MATCH (CASE WHEN (SELECT n FROM m) <= ${q.most} THEN ${q.titles.match} ELSE ${NO_MATCH} END)
                 AND ${q.scope} AND ${q.where}
               ${first ? sql`LIMIT ${MAX_TIER + 1}` : sql``})
    SELECT t.rid, m.n, m.low FROM m LEFT JOIN t ON 1`);
  const tier = found.filter((r) => r.rid !== null).map((r) => Number(r.rid));
  if (first) {
    const n = Number(found[0]?.n ?? 0);
    if (n > q.most) {
      const low = found[0]?.low;
      return {
        capped: true,
        n,
        low: q.newestFirst && low !== null && low !== undefined ? Number(low) : undefined,
      };
    }
    if (tier.length < q.want || tier.length > MAX_TIER) return undefined;
  }
  const page = await tierRows(ex, q, tier);
  if (page.length >= q.want) return page;
  return [...page, ...(await restRows(ex, q, tier, q.want - page.length))];
}

/** The title tier's best `q.want` rows after the cursor, ranked by bm25 computed here. */
async function tierRows(ex: Executor, q: TierQuery, tier: number[]): Promise<Ranked[]> {
  const after = q.after;
  if (tier.length === 0 || (after && after[0] > TITLE_TIER)) return [];
  const words = q.phrases.map((p) => snippetPhrases(p)[0] ?? []);
  const { rows: indexRows, avgdl } = await indexAverages(ex);
  const weights = (await wordRows(ex, q, words, indexRows)).map((n) => idf(indexRows, n));
  const texts = await rowTexts(ex, tier);
  const isAfter = rankedAfter(after);
  const best: Ranked[] = [];
  for (const t of texts) {
    const row = { rid: t.rid, score: -bm25Part(t, words, weights, avgdl), exact: TITLE_TIER };
    if (isAfter(row)) keepBest(best, row, q.want);
  }
  return best;
}

/**
 * Each word's rows in the index, as bm25() weighs it: from the workspace's sample (its share of the index),
 * or counted when the sample holds it in fewer than EXACT_BELOW rows.
 */
async function wordRows(ex: Executor, q: TierQuery, words: string[][], indexRows: number): Promise<number[]> {
  const { hits, size } = await sampledHits(ex, q.lo, q.hi, words);
  const estimated = hits.map((h) => (Math.max(0.5, h) / Math.max(1, size)) * indexRows);
  const rare = q.phrases.flatMap((p, i) => ((hits[i] as number) < EXACT_BELOW ? [{ p, i }] : []));
  if (rare.length === 0) return estimated;
  const counts = await matchCounts(
    ex,
    rare.map(({ p }) => q.phraseMatch(p)),
    COUNT_CAP,
  );
  rare.forEach(({ i }, k) => {
    const n = counts[k] as number;
    if (n < COUNT_CAP) estimated[i] = n;
  });
  return estimated;
}

/** The matches outside the title tier after the cursor, ranked by bm25(). */
async function restRows(ex: Executor, q: TierQuery, tier: number[], want: number): Promise<Ranked[]> {
  const keyset =
    q.after && q.after[0] === REST_TIER ? sql`AND (score, rid) > (${q.after[1]}, ${q.after[2]})` : sql``;
  const rows = await ex.all<{ rid: number; score: number }>(sql`
    WITH c AS MATERIALIZED (
      SELECT f.rowid AS rid, ${BM25} AS score FROM search_fts f ${q.join}
      WHERE search_fts MATCH ${q.match} AND ${q.scope} AND ${q.where}
        AND f.rowid NOT IN (SELECT value FROM json_each(${JSON.stringify(tier)})))
    SELECT rid, score FROM c WHERE 1 ${keyset} ORDER BY score, rid LIMIT ${want}`);
  return rows.map((r) => ({ rid: Number(r.rid), score: Number(r.score), exact: REST_TIER }));
}
