/**
 * ixchel_search: BM25 over title, tags and body (`lexical`), fused with vector similarity when an
 * embeddings endpoint is configured (`hybrid`). Every answer says which mode served it.
 */
import { dot, type VectorStore } from "./embeddings.js";
import type { Kind } from "./kinds.js";
import { isId, normalizeId } from "./kinds.js";
import type { IxchelStore } from "./store.js";

export interface SearchHit {
  score: number;
  id: string;
  kind: Kind;
  title: string;
}

export interface SearchResult {
  mode: "lexical" | "hybrid";
  hits: SearchHit[];
  /** Why the mode is not what the configuration asked for, when that happens. */
  note?: string;
}

export interface SearchInput {
  query: string;
  limit: number;
  kind?: Kind;
}

/** Reciprocal rank fusion constant: how much the top of one list outweighs the rest. */
const RRF_K = 60;
/** How deep each list is read before fusion. */
const FUSION_DEPTH = 100;

const round = (score: number) => Math.round(score * 1e6) / 1e6;

function hitOf(store: IxchelStore, id: string, score: number): SearchHit | undefined {
  const found = store.get(id);
  return found ? { score: round(score), id, kind: found.entity.kind, title: found.entity.title } : undefined;
}

/** An exact id in the query names what the caller wants: it goes first, whatever the text scores say. */
function exactFirst(store: IxchelStore, input: SearchInput, ranked: SearchHit[], top: number): SearchHit[] {
  const id = normalizeId(input.query);
  if (!isId(id)) return ranked;
  const hit = hitOf(store, id, top);
  if (!hit || (input.kind && hit.kind !== input.kind)) return ranked;
  return [hit, ...ranked.filter((h) => h.id !== id)];
}

function lexical(store: IxchelStore, input: SearchInput, depth: number): SearchHit[] {
  const filter = input.kind ? (meta: { kind: Kind }) => meta.kind === input.kind : undefined;
  // Duplicate ids live in several files: read a little deeper, keep the best per id.
  const raw = store.lexicalIndex().search(input.query, depth + 10, filter);
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const r of raw) {
    if (seen.has(r.meta.id)) continue;
    seen.add(r.meta.id);
    const hit = hitOf(store, r.meta.id, r.score);
    if (hit) hits.push(hit);
  }
  return hits.slice(0, depth);
}

export function searchLexical(store: IxchelStore, input: SearchInput): SearchResult {
  const hits = lexical(store, input, input.limit);
  const top = (hits[0]?.score ?? 0) + 1;
  return { mode: "lexical", hits: exactFirst(store, input, hits, round(top)).slice(0, input.limit) };
}

export async function searchHybrid(
  store: IxchelStore,
  vectors: VectorStore,
  input: SearchInput,
  signal?: AbortSignal,
): Promise<SearchResult> {
  const canonical = [...store.entities()]
    .filter((e) => store.get(e.entity.id)?.rel === e.rel)
    .map((e) => e.entity);
  const byKey = await vectors.ensure(canonical, signal);
  const queryVector = await vectors.query(input.query, signal);
  const similar: { id: string; sim: number }[] = [];
  for (const entity of canonical) {
    if (input.kind && entity.kind !== input.kind) continue;
    const vector = byKey.get(vectors.keyOf(entity));
    if (vector) similar.push({ id: entity.id, sim: dot(queryVector, vector) });
  }
  similar.sort((a, b) => b.sim - a.sim || (a.id < b.id ? -1 : 1));
  const fused = new Map<string, number>();
  lexical(store, input, FUSION_DEPTH).forEach((hit, rank) => {
    fused.set(hit.id, (fused.get(hit.id) ?? 0) + 1 / (RRF_K + rank + 1));
  });
  similar.slice(0, FUSION_DEPTH).forEach((s, rank) => {
    fused.set(s.id, (fused.get(s.id) ?? 0) + 1 / (RRF_K + rank + 1));
  });
  const ranked = [...fused]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([id, score]) => hitOf(store, id, score))
    .filter((h): h is SearchHit => h !== undefined);
  const top = round((ranked[0]?.score ?? 0) + 1 / RRF_K);
  return { mode: "hybrid", hits: exactFirst(store, input, ranked, top).slice(0, input.limit) };
}
