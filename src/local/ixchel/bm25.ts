/**
 * Lexical ranking: BM25 over an in-memory inverted index of title, tags and body. Documents are added and
 * removed one at a time so a sync only re-indexes what changed.
 */

// Words that carry no meaning on their own; dropping them keeps postings short.
const STOPWORDS = new Set(
  "a an and are as at be by for from has have in is it its of on or that the this to was were will with".split(
    " ",
  ),
);

/** Lowercase words of letters and digits, accents folded; one-letter words and stopwords dropped. */
export function tokenize(text: string): string[] {
  const folded = text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "");
  const out: string[] = [];
  for (const match of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0];
    if (word.length < 2 && !/\d/.test(word)) continue;
    if (STOPWORDS.has(word)) continue;
    out.push(word);
  }
  return out;
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

export class Bm25Index<M> {
  private readonly postings = new Map<string, Map<number, number>>();
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
      let posting = this.postings.get(term);
      if (!posting) {
        posting = new Map();
        this.postings.set(term, posting);
      }
      posting.set(slot, tf);
      length += tf;
    }
    this.slots.set(key, slot);
    this.keys[slot] = key;
    this.metas[slot] = meta;
    this.lengths[slot] = length;
    this.terms[slot] = [...counts.keys()];
    this.totalLength += length;
  }

  remove(key: string): void {
    const slot = this.slots.get(key);
    if (slot === undefined) return;
    for (const term of this.terms[slot] ?? []) {
      const posting = this.postings.get(term);
      posting?.delete(slot);
      if (posting && posting.size === 0) this.postings.delete(term);
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
    const scores = new Map<number, number>();
    for (const term of new Set(tokenize(query))) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [slot, tf] of posting) {
        const length = this.lengths[slot] ?? 0;
        const score = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgLength));
        scores.set(slot, (scores.get(slot) ?? 0) + score);
      }
    }
    const hits: Bm25Hit<M>[] = [];
    for (const [slot, score] of scores) {
      const meta = this.metas[slot] as M;
      if (filter && !filter(meta)) continue;
      hits.push({ key: this.keys[slot] as string, meta, score });
    }
    hits.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return hits.slice(0, limit);
  }
}
