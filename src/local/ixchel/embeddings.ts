/**
 * Vectors for hybrid search from an OpenAI-compatible `/embeddings` endpoint (POST {model, input: [...]}
 * → {data: [{embedding}]}). Nothing is ever downloaded: without a configured endpoint search is lexical.
 * Vectors are cached under `.ixchel/.cache/` by a hash of model and text, so an unchanged entity is never
 * embedded twice.
 */
import { type Log, loadEmbeddingCache, saveEmbeddingCache } from "./cache.js";
import type { Entity } from "./entity.js";
import { sha256 } from "./files.js";

export interface EmbeddingsConfig {
  url: string;
  model: string;
  apiKey?: string;
}

/** The configuration from the environment, or why hybrid search is off when it is half configured. */
export function embeddingsConfig(env: Readonly<Record<string, string | undefined>>): {
  config?: EmbeddingsConfig;
  note?: string;
} {
  const url = env.IXCHEL_EMBEDDINGS_URL?.trim();
  const model = env.IXCHEL_EMBEDDINGS_MODEL?.trim();
  if (!url && !model) return {};
  if (!url || !model) {
    return {
      note: `hybrid search needs both IXCHEL_EMBEDDINGS_URL and IXCHEL_EMBEDDINGS_MODEL; only ${url ? "the URL" : "the model"} is set, so search is lexical`,
    };
  }
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    return { note: "IXCHEL_EMBEDDINGS_URL is not an http(s) URL, so search is lexical" };
  }
  const apiKey = env.IXCHEL_EMBEDDINGS_API_KEY?.trim();
  return { config: { url, model, ...(apiKey ? { apiKey } : {}) } };
}

/** The endpoint without credentials or query, safe for messages and logs. */
export function describeEndpoint(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

const BATCH = 64;
const TIMEOUT_MS = 30_000;
/** Long bodies are cut: embedding models take a bounded input, and the start of a note says most about it. */
const MAX_TEXT = 8000;

export function embeddingText(entity: Entity): string {
  return `${entity.title}\n${entity.tags.join(" ")}\n${entity.body}`.slice(0, MAX_TEXT);
}

function normalize(values: number[]): Float32Array {
  const out = new Float32Array(values.length);
  let norm = 0;
  for (const v of values) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < values.length; i++) out[i] = (values[i] as number) / norm;
  return out;
}

/** Aborts when either signal does (AbortSignal.any is missing before Node 20.3, which the bundle supports). */
function either(a: AbortSignal | undefined, b: AbortSignal): AbortSignal {
  if (!a) return b;
  if (typeof AbortSignal.any === "function") return AbortSignal.any([a, b]);
  const controller = new AbortController();
  const abort = (source: AbortSignal) => () => controller.abort(source.reason);
  if (a.aborted || b.aborted) controller.abort((a.aborted ? a : b).reason);
  a.addEventListener("abort", abort(a), { once: true });
  b.addEventListener("abort", abort(b), { once: true });
  return controller.signal;
}

/** One POST to the endpoint; unit-length vectors in input order. */
export async function fetchEmbeddings(
  config: EmbeddingsConfig,
  input: string[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const where = describeEndpoint(config.url);
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(config.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: config.model, input }),
      signal: either(signal, timeout),
    });
  } catch (error) {
    throw new Error(`embeddings endpoint ${where} is unreachable (${(error as Error).message})`);
  }
  if (!response.ok) throw new Error(`embeddings endpoint ${where} answered HTTP ${response.status}`);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new Error(`embeddings endpoint ${where} did not answer JSON`);
  }
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data) || data.length !== input.length) {
    throw new Error(`embeddings endpoint ${where} answered without one data[].embedding per input`);
  }
  const ordered = [...data].sort(
    (a, b) => ((a as { index?: number }).index ?? 0) - ((b as { index?: number }).index ?? 0),
  );
  return ordered.map((item) => {
    const embedding = (item as { embedding?: unknown }).embedding;
    if (
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      !embedding.every((v) => typeof v === "number")
    ) {
      throw new Error(`embeddings endpoint ${where} answered an embedding that is not a list of numbers`);
    }
    return normalize(embedding as number[]);
  });
}

export interface VectorCandidate {
  key: string;
  entity: Entity;
}

/** The vectors of one repository for one model: loaded from the cache, completed from the endpoint. */
export class VectorStore {
  private vectors: Map<string, Float32Array> | undefined;
  private readonly queries = new Map<string, Float32Array>();
  /** Entities are immutable and replaced on change, so their key can be remembered per object. */
  private readonly keys = new WeakMap<Entity, string>();

  constructor(
    private readonly ixchelDir: string,
    readonly config: EmbeddingsConfig,
    private readonly log: Log,
  ) {}

  keyOf(entity: Entity): string {
    let key = this.keys.get(entity);
    if (key === undefined) {
      key = sha256(`${this.config.model}\0${embeddingText(entity)}`);
      this.keys.set(entity, key);
    }
    return key;
  }

  /** Embeds whatever `entities` lack, saving new vectors to the cache; returns their vectors by key. */
  async ensure(entities: Entity[], signal?: AbortSignal): Promise<Map<string, Float32Array>> {
    this.vectors ??= loadEmbeddingCache(this.ixchelDir, this.config.model, this.log);
    const vectors = this.vectors;
    const missing = new Map<string, string>();
    for (const entity of entities) {
      const key = this.keyOf(entity);
      if (!vectors.has(key) && !missing.has(key)) missing.set(key, embeddingText(entity));
    }
    const pending = [...missing];
    try {
      for (let i = 0; i < pending.length; i += BATCH) {
        const batch = pending.slice(i, i + BATCH);
        const out = await fetchEmbeddings(
          this.config,
          batch.map(([, text]) => text),
          signal,
        );
        batch.forEach(([key], j) => {
          vectors.set(key, out[j] as Float32Array);
        });
      }
    } finally {
      if (pending.length > 0) {
        // Forget vectors of texts that no longer exist, so the cache does not grow without bound.
        const live = new Set(entities.map((e) => this.keyOf(e)));
        if (vectors.size > live.size * 2 + 100)
          for (const key of vectors.keys()) if (!live.has(key)) vectors.delete(key);
        saveEmbeddingCache(this.ixchelDir, this.config.model, vectors, this.log);
      }
    }
    return vectors;
  }

  async query(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const cached = this.queries.get(text);
    if (cached) return cached;
    const [vector] = await fetchEmbeddings(this.config, [text], signal);
    if (this.queries.size >= 100) this.queries.delete(this.queries.keys().next().value as string);
    this.queries.set(text, vector as Float32Array);
    return vector as Float32Array;
  }
}

export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
