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

/** An ASCII letter or digit (of lower-cased text: a-z, 0-9). */
const isWordCode = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

function tokens(text: string): Token[] {
  const out: Token[] = [];
  if (!NOT_ASCII.test(text)) {
    // Without a unit past U+007F the tokens are runs of ASCII letters and digits, folded to lower case.
    const lower = text.toLowerCase();
    for (let i = 0; i < lower.length; i++) {
      if (!isWordCode(lower.charCodeAt(i))) continue;
      const start = i;
      while (i < lower.length && isWordCode(lower.charCodeAt(i))) i++;
      out.push({ start, end: i, folded: lower.slice(start, i) });
    }
    return out;
  }
  for (const m of text.matchAll(TOKEN)) {
    out.push({ start: m.index, end: m.index + m[0].length, folded: fold(m[0]) });
  }
  return out;
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
    for (let k = 0; k < phrases.length; k++) {
      const p = phrases[k] as string[];
      let j = 0;
      while (j < p.length && toks[i + j]?.folded === p[j]) j++;
      if (j === p.length) out.push([i, i + p.length, k]);
    }
  }
  return out;
}

/** The window's score: distinct phrases × 1000 + matches, over the hits inside [from, from + WINDOW]. */
function windowScore(hits: [number, number, number][], from: number): number {
  let matches = 0;
  const seen = new Set<number>();
  for (const h of hits) {
    if (h[0] >= from && h[1] <= from + WINDOW) {
      matches++;
      seen.add(h[2]);
    }
  }
  return seen.size * 1000 + matches;
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

/**
 * How many tokens of lower-cased ASCII text are `word`: its occurrences with no letter or digit either side
 * (a token cannot start inside another occurrence, so the search goes on after each).
 */
function wordCount(lower: string, word: string): number {
  let n = 0;
  for (let i = lower.indexOf(word); i !== -1; i = lower.indexOf(word, i + word.length)) {
    if ((i === 0 || !isWordCode(lower.charCodeAt(i - 1))) && !isWordCode(lower.charCodeAt(i + word.length)))
      n++;
  }
  return n;
}

/** Whether the folded tokens contain the phrase. */
export const hasPhrase = (toks: string[], phrase: string[]) => phraseAt(toks, phrase, 0) !== -1;

/** How many times each phrase occurs in `text`, counted as FTS5 counts a phrase's instances in a column. */
export function phraseCounts(text: string, phrases: string[][]): number[] {
  if (!NOT_ASCII.test(text) && phrases.every((p) => p.length === 1)) {
    const lower = text.toLowerCase();
    return phrases.map((p) => wordCount(lower, p[0] as string));
  }
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
    if (hits.length === 0) {
      if (best.score < 0) best = { col, from: 0, score: 0, toks, hits };
      return;
    }
    for (const [from] of hits) {
      const score = windowScore(hits, from);
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
