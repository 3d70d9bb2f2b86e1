/**
 * bm25 for a query of several words in a large workspace when some word is common (issue 16).
 *
 * bm25() weighs each word by walking its doclist over the whole index, once per query: 13–40 ms for a word
 * in 30–80% of a million rows, however few rows the query matches. Here the same score is put together from
 * parts that cost only the query's own matches:
 * - every word's share of the workspace comes from a fixed sample of its rows (SAMPLE_ROWS, spread over its
 *   rowids, tokenized here and kept a while): the rarest word, and any other in at most COMMON_SHARE of the
 *   rows, is rare; the rest are common (none: bm25() ranks the query as before);
 * - the rare words are scored by bm25() itself, over a cursor that matches them alone and keeps the query's
 *   matches: their walks are short, and their part of the score is exact;
 * - a common word weighs its sampled share (FTS5's IDF of share × index rows; counted exactly in an index of
 *   at most EXACT_INDEX_ROWS rows, where that walk is short), and its frequency in a row
 *   is counted from the row's stored text (search-snippet.ts tokenizes as FTS5's unicode61 does) with the
 *   row's length from `search_fts_docsize`; only for rows that can still reach the page: a common word adds
 *   at most its IDF × (k1 + 1), so rows are taken in rare-score order until that bound cannot lift the next
 *   one above the page's last (MaxScore). At most MAX_REFINED rows are refined; past them rows keep their
 *   rare words' score (only a ranking with more than MAX_REFINED near-ties gets there).
 * The order is bm25()'s up to the sampled weights of the common words, for the first MAX_REFINED rows.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
import {
  BM25,
  bm25Part,
  idf,
  indexAverages,
  K1,
  keepBest,
  matchCounts,
  type Ranked,
  rankedAfter,
  rowTexts,
} from "./search-scoring.js";
import { foldedTokens, hasPhrase, snippetPhrases } from "./search-snippet.js";

/**
 * A word in more than this share of the rows is common: its weight (IDF) is at most log(4), so few rows can
 * move by it. A rarer word weighs more and could lift many rows: bm25()'s walk of it costs less than
 * counting it in all of them.
 */
export const COMMON_SHARE = 0.2;
/** An index with at most this many rows counts its common words exactly (a walk of at most this many). */
const EXACT_INDEX_ROWS = 100_000;
/** Rows of the workspace sampled to weigh its words. */
const SAMPLE_ROWS = 2000;
const SAMPLE_MS = 600_000;
/** Phrases whose sampled rows a sample keeps counted. */
const MAX_COUNTED_PHRASES = 10_000;
/** Most rows whose common words are counted for one page. */
const MAX_REFINED = 1500;
const BATCH = 256;

export interface SplitQuery {
  /** The query's quoted phrases, in order. */
  phrases: string[];
  /** The workspace's rowid range. */
  lo: number;
  hi: number;
  /** A MATERIALIZED CTE named `c` (rid): the query's matches, at most `most` + 1 (no exact row: several words). */
  candidates: SQL;
  /** With more matches than this, nothing is ranked (the answer is `capped`); undefined: no limit. */
  most: number | undefined;
  /** Keyset position (exact, score, rid) of the last row shown, if any. */
  after: [number, number, number] | undefined;
  /** Rows wanted (the page and one more). */
  want: number;
}

/** Each sampled row's text columns as folded tokens (an empty token between columns), per workspace. */
interface Sample {
  until: number;
  rows: string[][];
  /** For each token, the sampled rows (indexes into `rows`, ascending) that have it. */
  index: Map<string, number[]>;
  /** The workspace's rows. */
  total: number;
  /** Sampled rows per phrase (its folded tokens joined by a space), as counted so far. */
  hits: Map<string, number>;
}

/** How many sampled rows contain the phrase (counted once per sample). */
function hitsOf(sample: Sample, phrase: string[]): number {
  const key = phrase.join(" ");
  let n = sample.hits.get(key);
  if (n === undefined) {
    n = rowsWith(sample, phrase).length;
    // Bounded: a burst of distinct words starts the count over rather than growing the map.
    if (sample.hits.size >= MAX_COUNTED_PHRASES) sample.hits.clear();
    sample.hits.set(key, n);
  }
  return n;
}

/** The sampled rows (indexes, ascending) that contain the phrase (its folded tokens). */
function rowsWith(sample: Sample, phrase: string[]): number[] {
  const lists = phrase.map((t) => sample.index.get(t) ?? []).sort((a, b) => a.length - b.length);
  const [first = [], ...rest] = lists;
  const sets = rest.map((l) => new Set(l));
  const both = first.filter((i) => sets.every((set) => set.has(i)));
  return phrase.length > 1 ? both.filter((i) => hasPhrase(sample.rows[i] as string[], phrase)) : both;
}

const samples = new WeakMap<object, Map<number, Sample>>();

async function sampleOf(ex: Executor, lo: number, hi: number): Promise<Sample> {
  const kept = samples.get(ex)?.get(lo);
  if (kept && kept.until > Date.now()) return kept;
  // min and max apart: together SQLite scans the range for them.
  const span = await ex.all<{ a: number | null; b: number | null; n: number }>(sql`SELECT
    (SELECT min(id) FROM search_fts_docsize WHERE id BETWEEN ${lo} AND ${hi}) AS a,
    (SELECT max(id) FROM search_fts_docsize WHERE id BETWEEN ${lo} AND ${hi}) AS b,
    (SELECT count(*) FROM search_fts_docsize WHERE id BETWEEN ${lo} AND ${hi}) AS n`);
  const a = Number(span[0]?.a ?? lo);
  const step = Math.max(1, Math.floor((Number(span[0]?.b ?? lo) - a) / SAMPLE_ROWS));
  // Evenly spaced rowids, each moved to the next existing row: the same sample for the same rows. The FTS5
  // content table is read directly (c0–c2: reference id, title, text), as by rowid through search_fts.
  // As one JSON value (as search-scoring.ts's rowTexts): the client converts result rows far more slowly.
  const found = await ex.all<{ rows: string | null }>(sql`
    WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ${SAMPLE_ROWS - 1}),
         p AS MATERIALIZED (SELECT DISTINCT (SELECT id FROM search_fts_docsize
                              WHERE id >= ${a} + k.i * ${step} AND id <= ${hi} ORDER BY id LIMIT 1) AS id FROM k)
    SELECT json_group_array(json_array(t.c0, t.c1, t.c2)) AS rows
    FROM p CROSS JOIN search_fts_content t ON t.id = p.id`);
  const rows = JSON.parse(found[0]?.rows ?? "[]") as (string | null)[][];
  const texts = rows.map(([c0, c1, c2]) => [
    ...foldedTokens(c0 ?? ""),
    "",
    ...foldedTokens(c1 ?? ""),
    "",
    ...foldedTokens(c2 ?? ""),
  ]);
  let byRange = samples.get(ex);
  if (!byRange) {
    byRange = new Map();
    samples.set(ex, byRange);
  }
  const index = new Map<string, number[]>();
  texts.forEach((toks, i) => {
    for (const t of new Set(toks)) {
      const list = index.get(t);
      if (list) list.push(i);
      else index.set(t, [i]);
    }
  });
  const sample = {
    until: Date.now() + SAMPLE_MS,
    rows: texts,
    index,
    total: Number(span[0]?.n ?? 0),
    hits: new Map<string, number>(),
  };
  byRange.set(lo, sample);
  return sample;
}

/**
 * Builds (or keeps) the workspace's word sample: the first multi-word query of a large workspace pays for it
 * (~0.1 s at a million rows, kept SAMPLE_MS), whichever way that query is then answered.
 */
export async function prepareSample(ex: Executor, lo: number, hi: number): Promise<void> {
  await sampleOf(ex, lo, hi);
}

/** How many rows of the workspace's sample (of `size`) hold each word (its folded tokens). */
export async function sampledHits(
  ex: Executor,
  lo: number,
  hi: number,
  words: readonly string[][],
): Promise<{ hits: number[]; size: number }> {
  const sample = await sampleOf(ex, lo, hi);
  return { hits: words.map((w) => hitsOf(sample, w)), size: sample.rows.length };
}

/**
 * One page (q.want rows after q.after) of the split ranking, best first; `capped` when the query has more
 * than q.most matches; undefined when no word is common or none is rare enough (bm25() ranks them).
 */
export async function splitPage(ex: Executor, q: SplitQuery): Promise<Ranked[] | "capped" | undefined> {
  const { rows: indexRows, avgdl } = await indexAverages(ex);
  const words = q.phrases.map((p) => snippetPhrases(p)[0] ?? []);
  if (words.some((w) => w.length === 0)) return undefined;
  const sample = await sampleOf(ex, q.lo, q.hi);
  const rowsOf = words.map(
    (w) => (Math.max(0.5, hitsOf(sample, w)) / Math.max(1, sample.rows.length)) * indexRows,
  );
  const rarest = Math.min(...rowsOf);
  const isRare = rowsOf.map((n) => n === rarest || n <= COMMON_SHARE * indexRows);
  const rare = q.phrases.filter((_, i) => isRare[i]);
  const common = words.filter((_, i) => !isRare[i]);
  if (common.length === 0) return undefined;
  // A small index counts its common words exactly (a short walk), as bm25() does; a large one samples them.
  const commonPhrases = q.phrases.filter((_, i) => !isRare[i]);
  const exact =
    indexRows <= EXACT_INDEX_ROWS
      ? await matchCounts(
          ex,
          commonPhrases.map((p) => `{reference_id title description}: (${p})`),
        )
      : undefined;
  const weights = rowsOf.filter((_, i) => !isRare[i]).map((n, k) => idf(indexRows, exact?.[k] ?? n));
  const bound = weights.reduce((a, w) => a + w * (K1 + 1), 0);

  let take = 1024;
  let order: { rid: number; s1: number }[] = [];
  let matches = 0;
  // Past q.most matches the rare words' cursor gets a query that matches nothing: only the count is paid.
  const rareMatch = `{reference_id title description}: (${rare.join(" ")})`;
  const match =
    q.most === undefined
      ? sql`${rareMatch}`
      : sql`(CASE WHEN (SELECT n FROM m) <= ${q.most} THEN ${rareMatch} ELSE '""' END)`;
  const load = async () => {
    const rows = await ex.all<{ rid: number | null; s1: number; n: number }>(sql`
      WITH ${q.candidates}, m AS (SELECT count(*) AS n FROM c)
      SELECT r.rid, r.s1, m.n FROM m LEFT JOIN (
        SELECT g.rowid AS rid, ${BM25} AS s1 FROM search_fts g
        WHERE search_fts MATCH ${match}
          AND g.rowid BETWEEN ${q.lo} AND ${q.hi} AND +g.rowid IN (SELECT rid FROM c)
        ORDER BY s1, g.rowid LIMIT ${take + 1}) r ON 1
      ORDER BY r.s1, r.rid`);
    matches = Number(rows[0]?.n ?? 0);
    order = rows.filter((r) => r.rid !== null).map((r) => ({ rid: Number(r.rid), s1: Number(r.s1) }));
  };
  await load();
  if (q.most !== undefined && matches > q.most) return "capped";

  const best: Ranked[] = [];
  const isAfter = rankedAfter(q.after);
  const keep = (row: Ranked) => {
    if (isAfter(row)) keepBest(best, row, q.want);
  };
  // A load returns one row past `take`: that row's rare score alone can tell that the page is done, without
  // loading (and scoring) more rows.
  let i = 0;
  for (;;) {
    const last = best[q.want - 1];
    // The next row, even with every common word at its most, ranks after the page's last: the page is done.
    if (last && i < order.length && (order[i] as { s1: number }).s1 - bound > last.score) break;
    const loaded = Math.min(order.length, take);
    if (i >= loaded) {
      if (order.length <= take) break;
      take *= 4;
      await load();
      continue;
    }
    if (i >= MAX_REFINED) {
      // Near-ties past MAX_REFINED: the rest keep their rare words' score (the same on every page).
      if (order.length > take) {
        take = RANK_ALL;
        await load();
      }
      for (const r of order.slice(i)) keep({ rid: r.rid, score: r.s1, exact: 1 });
      break;
    }
    const batch = order.slice(i, Math.min(i + BATCH, loaded));
    i += batch.length;
    const texts = await rowTexts(
      ex,
      batch.map((r) => r.rid),
    );
    const byRid = new Map(texts.map((t) => [t.rid, t]));
    for (const r of batch) {
      const t = byRid.get(r.rid);
      if (!t) continue;
      keep({ rid: r.rid, score: r.s1 - bm25Part(t, common, weights, avgdl), exact: 1 });
    }
  }
  return best;
}

const RANK_ALL = 1_000_000;
