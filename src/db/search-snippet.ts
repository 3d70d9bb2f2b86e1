/**
 * The passage a search hit shows, built from the row's stored text like FTS5's
 * `snippet(search_fts, -1, '**', '**', '…', 16)`: the column and 16-token window with the most distinct
 * query phrases (then the most matches), the matches wrapped in `**`, `…` where text was cut.
 *
 * Why not snippet() itself: it needs a MATCH cursor positioned on each shown row, and FTS5 initialises the
 * whole query per probed rowid (0.1–0.3 ms each at a million rows, 2–7 ms a page); reading the page's
 * stored text by rowid costs ~0.1 ms for the page. Words are found as FTS5's unicode61 tokenizer with
 * remove_diacritics finds them: runs of letters and digits, compared without case and diacritics.
 */

const WINDOW = 16;
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

interface Token {
  start: number;
  end: number;
  folded: string;
}

/** A token as unicode61 remove_diacritics compares it: lower case, accents removed. */
export const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();

function tokens(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    folded: fold(m[0]),
  }));
}

/** The folded tokens of each phrase of an ftsQuery match string (`"a" "b c"`). */
export function snippetPhrases(match: string): string[][] {
  return (match.match(/"[^"]*"/g) ?? [])
    .map((p) => tokens(p.slice(1, -1)).map((t) => t.folded))
    .filter((p) => p.length > 0);
}

/** Each match in `toks`: [first token, token after the last, phrase index]. */
function matchesIn(toks: Token[], phrases: string[][]): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let i = 0; i < toks.length; i++) {
    phrases.forEach((p, k) => {
      if (p.every((word, j) => toks[i + j]?.folded === word)) out.push([i, i + p.length, k]);
    });
  }
  return out;
}

/** Any UTF-16 unit past U+007F; without one, unicode61 splits on everything but ASCII letters and digits. */
const NOT_ASCII = /[\u0080-\uffff]/;
const ASCII_SEPARATORS = /[^a-z0-9]+/;

/** The folded tokens of `text`, as FTS5 indexes them (ASCII text without the Unicode steps, same tokens). */
export const foldedTokens = (text: string): string[] =>
  !NOT_ASCII.test(text)
    ? text
        .toLowerCase()
        .split(ASCII_SEPARATORS)
        .filter((t) => t.length > 0)
    : tokens(text).map((t) => t.folded);

/** Where in `toks` the phrase starts (its folded tokens in a row), from `from` on; -1 when nowhere. */
function phraseAt(toks: string[], phrase: string[], from: number): number {
  const first = phrase[0];
  for (let i = toks.indexOf(first as string, from); i !== -1; i = toks.indexOf(first as string, i + 1)) {
    let j = 1;
    while (j < phrase.length && toks[i + j] === phrase[j]) j++;
    if (j === phrase.length) return i;
  }
  return -1;
}

/** Whether the folded tokens contain the phrase. */
export const hasPhrase = (toks: string[], phrase: string[]) => phraseAt(toks, phrase, 0) !== -1;

/** How many times each phrase occurs in `text`, counted as FTS5 counts a phrase's instances in a column. */
export function phraseCounts(text: string, phrases: string[][]): number[] {
  const toks = foldedTokens(text);
  return phrases.map((p) => {
    let n = 0;
    for (let i = phraseAt(toks, p, 0); i !== -1; i = phraseAt(toks, p, i + 1)) n++;
    return n;
  });
}

/** The best passage over `columns` (in order: reference id, title, text) for the query's phrases. */
export function snippetOf(columns: string[], phrases: string[][]): string {
  let best: { col: number; from: number; score: number; toks: Token[]; hits: [number, number, number][] } = {
    col: 0,
    from: 0,
    score: -1,
    toks: [],
    hits: [],
  };
  columns.forEach((text, col) => {
    const toks = tokens(text);
    const hits = matchesIn(toks, phrases);
    const starts = hits.length > 0 ? hits.map((h) => h[0]) : [0];
    for (const from of starts) {
      const inside = hits.filter((h) => h[0] >= from && h[1] <= from + WINDOW);
      const score = new Set(inside.map((h) => h[2])).size * 1000 + inside.length;
      if (score > best.score) best = { col, from, score, toks, hits };
    }
  });
  const { col, toks, hits } = best;
  const text = columns[col] ?? "";
  if (toks.length === 0) return text;
  // Centre the matches in the window, as FTS5 does, without running past either end.
  const inside = hits.filter((h) => h[0] >= best.from && h[1] <= best.from + WINDOW);
  const last = inside.length > 0 ? Math.max(...inside.map((h) => h[1])) : best.from;
  let from = Math.max(0, best.from - Math.floor((WINDOW - (last - best.from)) / 2));
  from = Math.max(0, Math.min(from, toks.length - WINDOW));
  const to = Math.min(toks.length, from + WINDOW);
  const begin = from === 0 ? 0 : (toks[from] as Token).start;
  const end = to === toks.length ? text.length : (toks[to - 1] as Token).end;
  let out = "";
  let at = begin;
  for (const [first, after] of hits.filter((h) => h[0] >= from && h[1] <= to)) {
    const s = (toks[first] as Token).start;
    if (s < at) continue;
    out += `${text.slice(at, s)}**${text.slice(s, (toks[after - 1] as Token).end)}**`;
    at = (toks[after - 1] as Token).end;
  }
  out += text.slice(at, end);
  return `${from > 0 ? "…" : ""}${out}${to < toks.length ? "…" : ""}`;
}
