/**
 * bm25 computed by us, for the workspaces searched through their workspace term (search-ranking.ts).
 *
 * FTS5's bm25() weighs each phrase by walking the phrase's whole doclist, every workspace's rows, once per
 * query: ~30–60 ms for a common word at a million rows, whatever the caller's workspace holds. Here the same
 * formula (FTS5's: k1 = 1.2, b = 0.75, column weights 10/5/1, a row's length over the index's average) is
 * computed from what costs only the caller's rows:
 * - a phrase's frequency in a row: its instances in each column of the row's stored text, counted as FTS5's
 *   unicode61 tokenizer splits and folds it (search-snippet.ts; bm25Part below);
 * - a row's length: its `search_fts_docsize` record (FTS5's varints, one per column, summed);
 * - the average length: the index's averages record (`search_fts_data` id 1), one row;
 * - a phrase's weight (IDF): from its matches in the caller's workspace and the workspace's rows, not the
 *   whole index (the whole index is what made it slow, and other tenants' words should not weigh ours).
 * One phrase ranks exactly as bm25() does (the weight is a constant factor); several rank by the workspace's
 * own word statistics. The text is counted here rather than by `highlight()` in SQL, which tokenizes each
 * column again for every row: twice the cost at 2,000 matches.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
import { phraseCounts } from "./search-snippet.js";

export const K1 = 1.2;
export const B = 0.75;

/** bm25() as every ranking here calls it: reference id, title, text weigh 10, 5, 1; the workspace term 0. */
export const BM25 = sql.raw("bm25(search_fts, 10.0, 5.0, 1.0, 0.0)");
/** An FTS5 query that matches nothing: a cursor whose rows are not needed gets it (it does not walk). */
export const NO_MATCH = '""';

/**
 * Where the matches with every word in the reference id or title are walked: search_fts with a column filter
 * (a small workspace, through its workspace term), or the title index `search_titles` (drizzle/0017: the same
 * rowids and tokenizer, reference id and title alone), whose doclists are a fraction as long.
 */
export interface TitleIndex {
  table: "search_fts" | "search_titles";
  /** The FTS5 expression over that table. */
  match: string;
}

/** The title walk's table, to read `FROM … f` and `… MATCH`. */
export const titleTable = (titles: TitleIndex) => sql.raw(titles.table);

/** A ranked match: its rowid, minus its score (lower is better, like bm25()), and 0 for the exact entity. */
export interface Ranked {
  rid: number;
  score: number;
  exact: number;
}

/** The order of every ranking: the exact entity, then score, then rowid (a total order for keyset cursors). */
export const rankedBefore = (a: Ranked, b: Ranked) => a.exact - b.exact || a.score - b.score || a.rid - b.rid;

/**
 * Keeps `best` the `most` best rows seen, in rankedBefore's order: a row goes in by insertion, or not at all
 * once it ranks after the last kept (of 2,000 rows for a page of 21, 0.02 ms against 0.5 to sort them all).
 */
export function keepBest(best: Ranked[], row: Ranked, most: number): void {
  if (best.length >= most && rankedBefore(row, best[most - 1] as Ranked) >= 0) return;
  let i = best.length;
  best.push(row);
  while (i > 0 && rankedBefore(best[i - 1] as Ranked, row) > 0) {
    best[i] = best[i - 1] as Ranked;
    i--;
  }
  best[i] = row;
  if (best.length > most) best.pop();
}

/** Whether a row ranks after a cursor's (exact, score, rowid); every row when there is no cursor. */
export function rankedAfter(key: readonly [number, number, number] | undefined): (r: Ranked) => boolean {
  if (!key) return () => true;
  const last: Ranked = { exact: key[0], score: key[1], rid: key[2] };
  return (r) => rankedBefore(r, last) > 0;
}

/** The phrases of an ftsQuery match string (`"a" "b c"`), each still quoted. */
export const phrasesOf = (match: string): string[] => match.match(/"[^"]*"/g) ?? [];

/** SQLite varints (big-endian, 7 bits a byte; the ninth byte carries 8). */
export function varints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let v = 0;
    for (let n = 0; n < 9 && i < bytes.length; n++) {
      const b = bytes[i++] as number;
      if (n === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if (b < 0x80) break;
    }
    out.push(v);
  }
  return out;
}

/** A blob as libSQL returns it, as bytes. */
export const bytesOf = (blob: ArrayBuffer | Uint8Array) =>
  blob instanceof Uint8Array ? blob : new Uint8Array(blob);

/** The index's rows and average row length in tokens (all columns), as bm25() takes them. */
export async function indexAverages(ex: Executor): Promise<{ rows: number; avgdl: number }> {
  const rows = await ex.all<{ block: ArrayBuffer | Uint8Array | null }>(
    sql`SELECT block FROM search_fts_data WHERE id = 1`,
  );
  const block = rows[0]?.block;
  if (!block) return { rows: 0, avgdl: 1 };
  const [count = 0, ...columns] = varints(bytesOf(block));
  const tokens = columns.reduce((a, b) => a + b, 0);
  return { rows: count, avgdl: count > 0 && tokens > 0 ? tokens / count : 1 };
}

/** The index's average row length in tokens (all columns), as bm25() takes it. */
export async function averageRowLength(ex: Executor): Promise<number> {
  return (await indexAverages(ex)).avgdl;
}

/**
 * How many rows of the whole index match each FTS5 expression, in one statement; with `cap`, a count stops
 * there (a walk of at most `cap` rows).
 */
export async function matchCounts(
  ex: Executor,
  expressions: readonly string[],
  cap?: number,
): Promise<number[]> {
  const counts = expressions.map((m, k) => {
    const rows =
      cap === undefined
        ? sql`search_fts WHERE search_fts MATCH ${m}`
        : sql`(SELECT 1 FROM search_fts WHERE search_fts MATCH ${m} LIMIT ${cap})`;
    return sql`(SELECT count(*) FROM ${rows}) AS ${sql.raw(`n${k}`)}`;
  });
  const found = await ex.all<Record<string, number>>(sql`SELECT ${sql.join(counts, sql`, `)}`);
  return expressions.map((_, k) => Number(found[0]?.[`n${k}`] ?? 0));
}

/** FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), at least 1e-6. */
export const idf = (rows: number, hits: number) =>
  Math.max(Math.log((rows - hits + 0.5) / (hits + 0.5)), 1e-6);

/**
 * Rows' stored text and lengths come from SQL as one JSON value, `json_group_array` of rowJson's arrays,
 * rather than as result rows: the client converts a row of five values in ~6 µs; JSON.parse and the length
 * decode below take under one (a small workspace's 2,000 matches of a common word: 16 ms through highlight()
 * in SQL, 8.6 here; the split ranking's 1,024 rows in four batches: 15.7 ms as result rows, 6.8 here).
 */
const textsOf = (json: string | null | undefined): RowText[] =>
  (JSON.parse(json ?? "[]") as [number, number, Text, Text, Text, Text][]).map(
    ([rid, exact, c0, c1, c2, sz]) => ({
      rid,
      exact,
      c0,
      c1,
      c2,
      length: hexLength(sz ?? ""),
    }),
  );

/** One row of textsOf's JSON: `rid` and `exact` as SQL, the FTS5 content row `t` and docsize row `d`. */
const rowJson = (rid: SQL, exact: SQL) =>
  sql`json_group_array(json_array(${rid}, ${exact}, t.c0, t.c1, t.c2, hex(d.sz)))`;

/**
 * The candidates' text and lengths, with their count and lowest rowid, in one statement: `candidates` is a
 * MATERIALIZED CTE named `c` with columns rid and exact.
 */
export async function candidateTexts(
  ex: Executor,
  candidates: SQL,
): Promise<{ n: number; low: number; rows: RowText[] }> {
  const found = await ex.all<{ n: number; low: number | null; rows: string }>(sql`
    WITH ${candidates}
    SELECT count(*) AS n, min(c.rid) AS low, ${rowJson(sql`c.rid`, sql`c.exact`)} AS rows
    FROM c LEFT JOIN search_fts_content t ON t.id = c.rid LEFT JOIN search_fts_docsize d ON d.id = c.rid`);
  const first = found[0];
  return { n: Number(first?.n ?? 0), low: Number(first?.low ?? 0), rows: textsOf(first?.rows) };
}

/** The stored text and length of these rows (FTS5's content table, read directly by rowid). */
export async function rowTexts(ex: Executor, rids: readonly number[]): Promise<RowText[]> {
  if (rids.length === 0) return [];
  const found = await ex.all<{ rows: string }>(sql`SELECT ${rowJson(sql`t.id`, sql`1`)} AS rows
    FROM search_fts_content t JOIN search_fts_docsize d ON d.id = t.id
    WHERE t.id IN (SELECT value FROM json_each(${JSON.stringify(rids)}))`);
  return textsOf(found[0]?.rows);
}

type Text = string | null;

/** A row's rowid, exact flag, stored text (reference id, title, text) and length in tokens. */
export interface RowText {
  rid: number;
  exact: number;
  c0: Text;
  c1: Text;
  c2: Text;
  length: number;
}

/** A hex digit's value (SQLite's hex() writes 0-9 and A-F). */
const hexDigit = (code: number) => (code <= 57 ? code - 48 : code - 55);

/** The sum of the varints a hex string (SQLite's hex() of a docsize record) spells, as `varints` reads them. */
export function hexLength(hex: string): number {
  let sum = 0;
  let v = 0;
  let n = 0;
  for (let i = 0; i + 1 < hex.length; i += 2) {
    const b = (hexDigit(hex.charCodeAt(i)) << 4) | hexDigit(hex.charCodeAt(i + 1));
    if (n === 8) {
      sum += v * 256 + b;
      v = 0;
      n = 0;
      continue;
    }
    v = v * 128 + (b & 0x7f);
    n++;
    if (b < 0x80) {
      sum += v;
      v = 0;
      n = 0;
    }
  }
  return n > 0 ? sum + v : sum;
}

/** Column weights of bm25() here (reference id, title, text), as search-ranking.ts calls it. */
const COLUMN_WEIGHTS = [10, 5, 1] as const;

/**
 * The words' part of a row's bm25 score (positive: bm25() returns it negated), each word (its folded tokens)
 * counted in the row's text, as fts5_aux.c computes it (same operations, same rounding): all of a query's
 * words give bm25()'s score, given the same weights.
 */
export function bm25Part(
  row: RowText,
  words: readonly string[][],
  weights: readonly number[],
  avgdl: number,
): number {
  const norm = K1 * (1 - B + (B * row.length) / avgdl);
  const freq = words.map(() => 0);
  [row.c0, row.c1, row.c2].forEach((text, col) => {
    phraseCounts(text ?? "", words as string[][]).forEach((n, k) => {
      freq[k] = (freq[k] as number) + n * (COLUMN_WEIGHTS[col] as number);
    });
  });
  return freq.reduce((a, f, k) => a + (weights[k] as number) * ((f * (K1 + 1)) / (f + norm)), 0);
}
