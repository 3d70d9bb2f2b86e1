/**
 * Beyond the spec: keyword search over every requirement, one streaming pass per category file.
 *
 * Matching is case-insensitive on whole keywords as substrings. Ranking, best first: requirements whose
 * index equals a keyword; then more distinct keywords matched; then a higher score (per keyword: 5 when
 * the title holds it, plus 1 per body line holding it, at most 10); then file order. The snippet is the
 * first body line that holds a keyword (the title when only the title matches), cut to ~160 characters.
 */
import type { FileHandle } from "node:fs/promises";
import { categoryNotFound, listCategories, openCategory } from "./categories.js";
import { scanLines } from "./line-scanner.js";
import { headingOf, parseRequirementHeading } from "./markdown.js";
import { categoryPath } from "./paths.js";

export interface SearchHit {
  index: string;
  title: string;
  category: string;
  chapter: string;
  snippet: string;
  score: number;
  matched_keywords: string[];
}

export function searchTerms(keywords: string): string[] {
  return [...new Set(keywords.toLowerCase().split(/\s+/).filter(Boolean))].slice(0, 20);
}

interface Candidate {
  hit: SearchHit;
  exact: boolean;
  order: number;
  /** keyword → [title holds it, body lines holding it] */
  hits: Map<string, [boolean, number]>;
}

const TITLE_WEIGHT = 5;
const BODY_CAP = 10;

function snippetOf(line: string, term: string): string {
  const text = line.trim();
  const at = text.toLowerCase().indexOf(term);
  if (text.length <= 160) return text;
  const from = Math.max(0, at - 60);
  return `${from > 0 ? "…" : ""}${text.slice(from, from + 160)}${from + 160 < text.length ? "…" : ""}`;
}

async function searchFile(
  fh: FileHandle,
  category: string,
  terms: string[],
  out: TopHits,
  order: { n: number },
  signal?: AbortSignal,
): Promise<void> {
  let chapter = "";
  let current: Candidate | undefined;
  const finish = () => {
    if (current && (current.hits.size > 0 || current.exact)) {
      let score = 0;
      for (const [inTitle, lines] of current.hits.values())
        score += (inTitle ? TITLE_WEIGHT : 0) + Math.min(lines, BODY_CAP);
      current.hit.score = score;
      const index = current.hit.index.toLowerCase();
      current.hit.matched_keywords = terms.filter(
        (t) => current?.hits.has(t) || (current?.exact && t === index),
      );
      out.add(current);
    }
    current = undefined;
  };
  await scanLines(
    fh,
    (line) => {
      const heading = line.structural ? headingOf(line.text) : undefined;
      if (heading) {
        finish();
        if (heading.level === 1) {
          chapter = heading.text;
          return;
        }
        const req = parseRequirementHeading(heading.text);
        if (!req) return;
        current = {
          hit: {
            index: req.index,
            title: req.title,
            category,
            chapter,
            snippet: "",
            score: 0,
            matched_keywords: [],
          },
          exact: terms.includes(req.index.toLowerCase()),
          order: order.n++,
          hits: new Map(),
        };
        const title = req.title.toLowerCase();
        for (const t of terms) {
          if (title.includes(t)) {
            current.hits.set(t, [true, 0]);
            if (!current.hit.snippet) current.hit.snippet = snippetOf(req.title, t);
          }
        }
        return;
      }
      if (!current || line.text.length === 0) return;
      const lower = line.text.toLowerCase();
      let first: string | undefined;
      for (const t of terms) {
        if (!lower.includes(t)) continue;
        first ??= t;
        const h = current.hits.get(t);
        if (h) h[1]++;
        else current.hits.set(t, [false, 1]);
      }
      // Prefer a body line for the snippet: it says more than the title.
      if (first && (!current.hit.snippet || current.hit.snippet === current.hit.title)) {
        current.hit.snippet = snippetOf(line.text, first);
      }
    },
    signal,
  );
  finish();
}

function rank(a: Candidate, b: Candidate): number {
  return (
    Number(b.exact) - Number(a.exact) ||
    b.hit.matched_keywords.length - a.hit.matched_keywords.length ||
    b.hit.score - a.hit.score ||
    a.order - b.order
  );
}

/** Keeps the best `limit` candidates (pruned in batches, so memory stays bounded however many match). */
class TopHits {
  total = 0;
  private items: Candidate[] = [];
  constructor(private readonly limit: number) {}
  add(c: Candidate): void {
    this.total++;
    this.items.push(c);
    if (this.items.length > this.limit * 4 + 64) this.prune();
  }
  private prune(): void {
    this.items.sort(rank);
    this.items.length = Math.min(this.items.length, this.limit);
  }
  best(): Candidate[] {
    this.prune();
    return this.items;
  }
}

export async function searchRequirements(
  dir: string,
  keywords: string,
  options: { category?: string | undefined; limit: number; signal?: AbortSignal | undefined },
): Promise<{ mode: "lexical"; keywords: string[]; total: number; results: SearchHit[] }> {
  const terms = searchTerms(keywords);
  const categories = options.category ? [options.category] : await listCategories(dir);
  const out = new TopHits(options.limit);
  const order = { n: 0 };
  for (const category of categories) {
    const fh = await openCategory(categoryPath(dir, category));
    if (!fh) {
      if (options.category) throw await categoryNotFound(dir, category);
      continue; // deleted since it was listed
    }
    try {
      await searchFile(fh, category, terms, out, order, options.signal);
    } finally {
      await fh.close();
    }
  }
  // DESIGN: every search result says which mode served it; reqlix search is keyword matching only.
  return { mode: "lexical", keywords: terms, total: out.total, results: out.best().map((c) => c.hit) };
}
