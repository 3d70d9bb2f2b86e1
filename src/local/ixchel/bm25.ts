/**
 * Lexical ranking: BM25 over an in-memory inverted index of title, tags and body. Documents are added and
 * removed one at a time so a sync only re-indexes what changed.
 */

// Words that carry no meaning on their own; dropping them keeps postings short.
export const STOPWORDS = new Set(
  "a an and are as at be by for from has have in is it its of on or that the this to was were will with".split(
    " ",
  ),
);

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
const NON_ASCII = /[^\u0000-\u007f]/;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/** Lowercase words of letters and digits, accents folded; one-letter words and stopwords dropped. */
export function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  const out: string[] = [];
  if (NON_ASCII.test(lower)) {
    // Folding accents is only needed, and only paid for, when the text is not plain ASCII.
    const folded = lower.normalize("NFKD").replace(/\p{M}+/gu, "");
    for (const word of folded.split(SEPARATORS)) keep(word, out);
    return out;
  }
  // ASCII: the same words as the split above ([a-z0-9]+ once lowercased), without a regular expression.
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      keep(lower.slice(start, i), out);
      start = -1;
    }
  }
  return out;
}

function keep(word: string, out: string[]): void {
  if (word.length < 2 && !(word.length === 1 && word >= "0" && word <= "9")) return;
  if (STOPWORDS.has(word)) return;
  out.push(word);
}

export interface IndexedFields {
  title: string;
  tags: string[];
  body: string;
}

/** A word in the title counts three times, in a tag twice: a match there says more about the document. */
const WEIGHT = { title: 3, tags: 2, body: 1 } as const;
const K1 = 1.2;
const B = 0.75;

export interface Bm25Hit<M> {
  key: string;
  meta: M;
  score: number;
}

interface Posting {
  slots: number[];
  /** Weighted term frequency, parallel to `slots`. */
  tfs: number[];
}

export class Bm25Index<M> {
  private readonly postings = new Map<string, Posting>();
  private readonly slots = new Map<string, number>();
  private readonly keys: (string | undefined)[] = [];
  private readonly metas: (M | undefined)[] = [];
  private readonly lengths: number[] = [];
  private readonly terms: (string[] | undefined)[] = [];
  private readonly free: number[] = [];
  private totalLength = 0;

  get size(): number {
    return this.slots.size;
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  add(key: string, fields: IndexedFields, meta: M): void {
    this.remove(key);
    const counts = new Map<string, number>();
    const count = (text: string, weight: number) => {
      for (const term of tokenize(text)) counts.set(term, (counts.get(term) ?? 0) + weight);
    };
    count(fields.title, WEIGHT.title);
    count(fields.tags.join(" "), WEIGHT.tags);
    count(fields.body, WEIGHT.body);
    const slot = this.free.pop() ?? this.keys.length;
    let length = 0;
    for (const [term, tf] of counts) {
      const posting = this.postings.get(term);
      if (posting) {
        posting.slots.push(slot);
        posting.tfs.push(tf);
      } else {
        this.postings.set(term, { slots: [slot], tfs: [tf] });
      }
      length += tf;
    }
    this.slots.set(key, slot);
    this.keys[slot] = key;
    this.metas[slot] = meta;
    this.lengths[slot] = length;
    this.terms[slot] = [...counts.keys()];
    this.totalLength += length;
  }

  /** O(postings of the document's terms): meant for the few files a sync changes. */
  remove(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    for (const term of this.terms[slot] ?? []) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const i = posting.slots.indexOf(slot);
      if (i === -1) continue;
      const last = posting.slots.length - 1;
      posting.slots[i] = posting.slots[last] as number;
      posting.tfs[i] = posting.tfs[last] as number;
      posting.slots.pop();
      posting.tfs.pop();
      if (posting.slots.length === 0) this.postings.delete(term);
    }
    this.totalLength -= this.lengths[slot] ?? 0;
    this.slots.delete(key);
    this.keys[slot] = undefined;
    this.metas[slot] = undefined;
    this.terms[slot] = undefined;
    this.lengths[slot] = 0;
    this.free.push(slot);
  }

  /** The best `limit` documents for `query` that pass `filter`, best first; ties broken by key. */
  search(query: string, limit: number, filter?: (meta: M) => boolean): Bm25Hit<M>[] {
    const n = this.slots.size;
    if (n === 0) return [];
    const avgLength = this.totalLength / n || 1;
    const scores = new Float64Array(this.keys.length);
    const touched: number[] = [];
    for (const term of new Set(tokenize(query))) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const df = posting.slots.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < df; i++) {
        const slot = posting.slots[i] as number;
        const tf = posting.tfs[i] as number;
        const norm = K1 * (1 - B + (B * (this.lengths[slot] ?? 0)) / avgLength);
        if (scores[slot] === 0) touched.push(slot);
        scores[slot] = (scores[slot] as number) + (idf * tf * (K1 + 1)) / (tf + norm);
      }
    }
    const hits: Bm25Hit<M>[] = [];
    for (const slot of touched) {
      const meta = this.metas[slot] as M;
      if (filter && !filter(meta)) continue;
      hits.push({ key: this.keys[slot] as string, meta, score: scores[slot] as number });
    }
    hits.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return hits.slice(0, limit);
  }
}
