/**
 * The state of one repository's graph in this process: the parsed files (from the cache, kept current by
 * incremental sync), the id → file map and the lexical index. One store per repository root; operations
 * on a store run one at a time.
 */
import { type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { Bm25Index } from "./bm25.js";
import {
  type FileRecord,
  type Log,
  loadIndexCache,
  readWriteStamp,
  saveIndexCache,
  writeWriteStamp,
} from "./cache.js";
import type { Entity } from "./entity.js";
import { listMarkdown, readWithStats, sha256 } from "./files.js";
import type { Kind } from "./kinds.js";
import { ParseBatch } from "./parse-batch.js";
import { IXCHEL_FOLDER } from "./root.js";

export interface SyncResult {
  scanned: number;
  added: number;
  modified: number;
  deleted: number;
  unchanged: number;
  /** Files that are not valid entities (see ixchel_check for what is wrong and where). */
  invalid: number;
}

export interface SyncOptions {
  signal?: AbortSignal;
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
  /** Read and parse every file, trusting nothing in the cache (counts still compare content hashes). */
  rebuild?: boolean;
}

export interface Located {
  entity: Entity;
  /** Relative to `.ixchel/`, `/`-separated. */
  rel: string;
}

/**
 * A file whose mtime is this close to the moment we last looked at it may change again within the same
 * mtime tick without its size changing; such files are re-hashed instead of trusted (the "racy" rule).
 */
const RACY_MS = 2000;
const PROGRESS_EVERY = 500;
const FRESH_FACTOR = 10;
const SAVE_NOW_AFTER = 100;
const SAVE_DELAY_MS = 1000;
const MAX_FRESH_MS = 2000;
/** Graphs up to this many files write their cache within the sync; larger ones right after it. */
const SAVE_AT_ONCE_FILES = 1000;
export interface LexicalMeta {
  id: string;
  kind: Kind;
}

export class IxchelStore {
  readonly dir: string;
  private files = new Map<string, FileRecord>();
  /** The path of each id, or its paths when more than one file claims it (best first: see rebuildIds). */
  private byId = new Map<string, string | string[]>();
  private lexical: Bm25Index<LexicalMeta> | undefined;
  private loaded = false;
  private savedOnce = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private lastSyncEnd = 0;
  private lastSyncMs = 0;
  /** The write stamp read when the last sync started (cache.ts readWriteStamp). */
  private syncedStamp: string | undefined;

  constructor(
    readonly root: string,
    private readonly log: Log,
  ) {
    this.dir = join(root, IXCHEL_FOLDER);
  }

  /** Runs `fn` after every operation queued before it (one writer, consistent reads). */
  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Syncs unless the last sync ended very recently, measured against how long a sync takes here: a small
   * graph (a sync of a millisecond) is re-read on every call, a graph of 10,000 files at most every few
   * hundred milliseconds, so checking for changes costs at most about a tenth of the time between calls.
   * The window only covers edits by hand: a write another companion acknowledged since our last sync began
   * changed the write stamp, and must be seen now (an acknowledged link once looked lost to a reader in
   * another process that answered from a sync of a moment before).
   */
  async syncIfStale(options: SyncOptions = {}): Promise<SyncResult | undefined> {
    const window = Math.min(MAX_FRESH_MS, FRESH_FACTOR * this.lastSyncMs);
    if (
      this.loaded &&
      performance.now() - this.lastSyncEnd < window &&
      readWriteStamp(this.dir) === this.syncedStamp
    ) {
      return undefined;
    }
    return this.sync(options);
  }

  /**
   * After this process changed entity files, before it acknowledges: tells other processes' readers (new
   * write stamp), then syncs this store. The stamp comes after the file's rename, so a reader that sees it
   * also sees the file.
   */
  async syncAfterWrite(): Promise<SyncResult> {
    writeWriteStamp(this.dir, this.log);
    return this.sync();
  }

  /** Brings the store up to date with the markdown (AC-002.1): only new or changed files are parsed. */
  async sync(options: SyncOptions = {}): Promise<SyncResult> {
    const started = performance.now();
    // Read before the walk: a write stamped after this point makes the next syncIfStale look again.
    const stamp = readWriteStamp(this.dir);
    if (!this.loaded) {
      this.files = loadIndexCache(this.dir, this.log) ?? new Map();
      this.loaded = true;
      this.rebuildIds();
    }
    const list = listMarkdown(this.dir);
    const total = list.length;
    const result: SyncResult = { scanned: 0, added: 0, modified: 0, deleted: 0, unchanged: 0, invalid: 0 };
    // Files of the last sync seen again, and files of the walk that vanished before they were read: when the
    // first count is every file of the last sync, none was deleted (no set of seen paths to build and test).
    const before = this.files.size;
    let kept = 0;
    const vanished: string[] = [];
    const changed: string[] = [];
    let dirty = false;
    const batch = new ParseBatch((p, parsed) => {
      if (parsed.type === "problem") result.invalid++;
      this.files.set(p.rel, {
        mtimeMs: p.mtimeMs,
        size: p.size,
        hash: p.hash,
        checkedAt: p.checkedAt,
        parsed,
      });
      changed.push(p.rel);
      if (p.prior?.hash === p.hash) result.unchanged++;
      else if (p.prior) result.modified++;
      else result.added++;
    });
    for (let i = 0; i < total; i++) {
      if (i % PROGRESS_EVERY === 0) {
        batch.flush(); // what an abort or a progress report leaves is what the files read so far say
        options.signal?.throwIfAborted();
        if (i > 0 || total > PROGRESS_EVERY)
          await options.progress?.(i, total, `scanned ${i} of ${total} files`);
      }
      const rel = list[i] as string;
      // `rel` comes from the walk (no `.` or `..` segments): joined without path.join's normalization.
      const abs = `${this.dir}/${rel}`;
      const prior = this.files.get(rel);
      const old = options.rebuild ? undefined : prior;
      let stats: Stats;
      if (old) {
        try {
          stats = statSync(abs);
        } catch {
          vanished.push(rel); // removed since the walk: counted as deleted below
          continue;
        }
        if (
          old.mtimeMs === stats.mtimeMs &&
          old.size === stats.size &&
          old.checkedAt - old.mtimeMs > RACY_MS
        ) {
          kept++;
          result.scanned++;
          result.unchanged++;
          if (old.parsed.type === "problem") result.invalid++;
          continue;
        }
      }
      const now = Date.now();
      let bytes: Buffer;
      try {
        // A file met for the first time is read and stat'ed together (no stat of its own), after the files
        // of the batch to parse (parse-batch.ts).
        ({ bytes, stats } = readWithStats(abs, batch.buffer(), batch.offset));
      } catch {
        vanished.push(rel); // removed since the walk (or since its stat): counted as deleted below
        continue;
      }
      if (prior) kept++;
      result.scanned++;
      const hash = sha256(bytes);
      if (old && old.hash === hash) {
        result.unchanged++;
        if (old.parsed.type === "problem") result.invalid++;
        this.files.set(rel, { ...old, mtimeMs: stats.mtimeMs, size: stats.size, checkedAt: now });
        dirty = true;
        continue;
      }
      batch.add({ rel, prior, mtimeMs: stats.mtimeMs, size: stats.size, hash, checkedAt: now }, bytes);
    }
    batch.flush();
    if (kept < before) {
      const seen = new Set(list);
      for (const rel of vanished) seen.delete(rel);
      for (const rel of [...this.files.keys()]) {
        if (seen.has(rel)) continue;
        this.files.delete(rel);
        changed.push(rel);
        result.deleted++;
      }
    }
    if (changed.length > 0) {
      this.rebuildIds();
      // Removal from postings is per document: past a tenth of the graph, rebuilding on next use is cheaper.
      if (this.lexical && changed.length > Math.max(100, this.lexical.size / 10)) this.lexical = undefined;
      if (this.lexical) for (const rel of changed) this.reindex(this.lexical, rel);
    }
    if (dirty || changed.length > 0) this.saveCache(changed.length);
    this.lastSyncEnd = performance.now();
    this.lastSyncMs = this.lastSyncEnd - started;
    this.syncedStamp = stamp;
    await options.progress?.(total, total, `synced ${total} files`);
    return result;
  }

  /**
   * Writes the cache after a large change (or the first time), otherwise coalesces saves of small edits
   * into one a moment later: a graph of 10,000 entities is a cache of ~15 MB, too much to rewrite per edit.
   * In a large graph even the first write waits until the answer that needed the sync is out (a timer of
   * 0 ms): serializing 15 MB was a third of a cold sync (issue 16, item 6), and the cache only serves the
   * next process. A save that never happens (the process ends first) costs nothing but re-reading the files
   * edited since the last one: each record is checked against its file's size, mtime and hash.
   */
  private saveCache(changedFiles: number): void {
    const save = () => {
      this.saveTimer = undefined;
      this.savedOnce = true;
      saveIndexCache(this.dir, this.files, this.log);
    };
    const large = !this.savedOnce || changedFiles > SAVE_NOW_AFTER;
    if (large && this.files.size <= SAVE_AT_ONCE_FILES) {
      if (this.saveTimer) clearTimeout(this.saveTimer);
      save();
    } else if (large || !this.saveTimer) {
      if (this.saveTimer) clearTimeout(this.saveTimer);
      this.saveTimer = setTimeout(save, large ? 0 : SAVE_DELAY_MS);
      this.saveTimer.unref();
    }
  }

  /** Writes a pending cache save at once (tests, and callers about to hand the cache to another process). */
  flushCache(): void {
    if (!this.saveTimer) return;
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    saveIndexCache(this.dir, this.files, this.log);
  }

  private rebuildIds(): void {
    // One string per id, a list only for an id more than one file claims (a cold sync builds this for every
    // entity of the graph, and the graph keeps it).
    const byId = new Map<string, string | string[]>();
    const duplicates: string[][] = [];
    // forEach: no [key, value] array per entry, as `for … of` a map makes.
    this.files.forEach((record, rel) => {
      if (record.parsed.type !== "entity") return;
      const id = record.parsed.entity.id;
      const paths = byId.get(id);
      if (paths === undefined) byId.set(id, rel);
      else if (typeof paths === "string") {
        const both = [paths, rel];
        byId.set(id, both);
        duplicates.push(both);
      } else paths.push(rel);
    });
    const misplaced = (rel: string) => {
      const parsed = this.files.get(rel)?.parsed;
      return parsed?.type === "entity" && parsed.entity.notes.some((n) => n.code !== "type_mismatch") ? 1 : 0;
    };
    // With duplicate ids, the file at its canonical place wins, then the first path.
    for (const paths of duplicates) {
      paths.sort((a, b) => misplaced(a) - misplaced(b) || (a < b ? -1 : a > b ? 1 : 0));
    }
    this.byId = byId;
  }

  private reindex(index: Bm25Index<LexicalMeta>, rel: string): void {
    const record = this.files.get(rel);
    if (record?.parsed.type !== "entity") {
      index.remove(rel);
      return;
    }
    const { entity } = record.parsed;
    index.add(
      rel,
      { title: entity.title, tags: entity.tags, body: entity.body },
      { id: entity.id, kind: entity.kind },
    );
  }

  /** The lexical index, built on first use and kept current by sync. */
  lexicalIndex(): Bm25Index<LexicalMeta> {
    if (!this.lexical) {
      const index = new Bm25Index<LexicalMeta>();
      for (const rel of this.files.keys()) this.reindex(index, rel);
      this.lexical = index;
    }
    return this.lexical;
  }

  /** The entity with `id` (already normalized); with duplicates, the one at its canonical place wins. */
  get(id: string): Located | undefined {
    const paths = this.byId.get(id);
    const rel = typeof paths === "string" ? paths : paths?.[0];
    if (rel === undefined) return undefined;
    const record = this.files.get(rel);
    return record?.parsed.type === "entity" ? { entity: record.parsed.entity, rel } : undefined;
  }

  /** Every path that claims `id`. */
  pathsOf(id: string): string[] {
    const paths = this.byId.get(id);
    return typeof paths === "string" ? [paths] : (paths ?? []);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Entities in path order (one per file: duplicates appear once per file). */
  *entities(): Generator<Located> {
    for (const [rel, record] of this.files) {
      if (record.parsed.type === "entity") yield { entity: record.parsed.entity, rel };
    }
  }

  records(): IterableIterator<[string, FileRecord]> {
    return this.files.entries();
  }

  get fileCount(): number {
    return this.files.size;
  }
}
