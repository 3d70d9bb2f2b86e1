/**
 * What the tools share for one companion process: a store per repository root (so caches stay warm between
 * calls) and, when configured, the embeddings endpoint.
 */
import type { LocalContext, LocalEnvironment } from "../context.js";
import { type EmbeddingsConfig, embeddingsConfig, VectorStore } from "./embeddings.js";
import { findRepoRoot, initRepoRoot } from "./root.js";
import { type SearchInput, type SearchResult, searchHybrid, searchLexical } from "./search.js";
import { IxchelStore } from "./store.js";

export class IxchelService {
  private readonly stores = new Map<string, IxchelStore>();
  private readonly vectors = new Map<string, VectorStore>();
  private readonly embeddings: { config?: EmbeddingsConfig; note?: string };

  constructor(private readonly environment: LocalEnvironment) {
    this.embeddings = embeddingsConfig(environment.env);
  }

  /** `create`: make `.ixchel/` when no folder above `repo` has one (ixchel_init, the first ixchel_create). */
  storeFor(repo: string | undefined, ctx: Pick<LocalContext, "cwd">, create = false): IxchelStore {
    const root = create ? initRepoRoot(repo, ctx.cwd).root : findRepoRoot(repo, ctx.cwd);
    let store = this.stores.get(root);
    if (!store) {
      store = new IxchelStore(root, this.environment.log);
      this.stores.set(root, store);
    }
    return store;
  }

  /**
   * Runs `fn` on the repository's store, alone, after an incremental sync, so no tool needs an explicit
   * ixchel_sync first. Reads accept a sync from moments ago (IxchelStore.syncIfStale); writes always re-sync.
   */
  withSyncedStore<T>(
    repo: string | undefined,
    ctx: LocalContext,
    fn: (store: IxchelStore) => T | Promise<T>,
    mode: "read" | "write" | "create" = "read",
  ): Promise<T> {
    const store = this.storeFor(repo, ctx, mode === "create");
    return store.exclusive(async () => {
      if (mode !== "read") await store.sync({ signal: ctx.signal });
      else await store.syncIfStale({ signal: ctx.signal });
      return fn(store);
    });
  }

  /** ixchel_init: makes `.ixchel/` (idempotent) and syncs, which also sets up its git-ignored cache. */
  async init(
    repo: string | undefined,
    ctx: LocalContext,
  ): Promise<{ root: string; created: boolean; entities: number }> {
    const { root, created } = initRepoRoot(repo, ctx.cwd);
    const store = this.storeFor(root, ctx);
    await store.exclusive(() => store.sync({ signal: ctx.signal }));
    return { root, created, entities: new Set([...store.entities()].map((e) => e.entity.id)).size };
  }

  async search(store: IxchelStore, input: SearchInput, signal: AbortSignal): Promise<SearchResult> {
    const { config, note } = this.embeddings;
    if (!config) return { ...searchLexical(store, input), ...(note ? { note } : {}) };
    let vectors = this.vectors.get(store.root);
    if (!vectors) {
      vectors = new VectorStore(store.dir, config, this.environment.log);
      this.vectors.set(store.root, vectors);
    }
    try {
      return await searchHybrid(store, vectors, input, signal);
    } catch (error) {
      signal.throwIfAborted();
      // The endpoint is a helper, not a dependency: fall back to lexical and say so.
      const reason = (error as Error).message;
      this.environment.log("ixchel hybrid search failed; answering lexically", { reason });
      return {
        ...searchLexical(store, input),
        note: `hybrid search unavailable (${reason}); answered lexically`,
      };
    }
  }
}
