/**
 * The scan cache: per file, its size and modification time when it was read (and its git blob id when git
 * reported it unchanged) and the citations found, so a rescan reads only files whose blob, size or mtime
 * changed. Kept in memory by the companion, and on disk (one file per project under the user's cache folder,
 * never in the working copy) for the CLI, in V8's serialization format: several times quicker to read and
 * write than JSON for these arrays; another Node's unreadable format costs one cold scan.
 * The whole cache is dropped when the matcher or the classification rules change (its `key`).
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import type { Citation } from "./citations.js";
import type { CommitCitation } from "./git.js";

export type SkipReason = "binary" | "too_large";

export interface CacheEntry {
  size: number;
  mtimeMs: number;
  /** The index blob id when git reported the file unchanged at the scan that read it. */
  blob?: string;
  citations: Citation[];
  skipped?: SkipReason;
}

export interface CommitsMemo {
  head: string;
  limit: number;
  source: string;
  list: CommitCitation[];
}

export interface ScanCache {
  key: string;
  entries: Map<string, CacheEntry>;
  /** The citing commits of the last scan, reused while HEAD, the history limit and the pattern stay. */
  commits?: CommitsMemo;
  /**
   * git's view at the last scan: the index listing's digest and the files it reported changed or
   * untracked. While the digest stays, only those and the newly reported ones can differ from `entries`.
   */
  listing?: {
    digest: string;
    dirty: string[];
    /** The index file's checksum at that scan: while it stays, the index need not be listed again. */
    stamp?: string;
  };
  /** Files that could not be read (retried on every scan). */
  unreadable?: string[];
}

const VERSION = 3;

export function cacheDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.REQLIX_CACHE_DIR) return env.REQLIX_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "reqlix", "trace");
}

function fileFor(dir: string, root: string): string {
  return join(dir, `${createHash("sha256").update(root).digest("hex").slice(0, 24)}.v8`);
}

/** What a run loaded from disk: the base file's generation and entries, so a save can write a delta. */
interface OnDisk {
  generation: string;
  base: Map<string, CacheEntry>;
}
const loaded = new WeakMap<ScanCache, OnDisk>();

/** The facts stored whole in both files. */
type Facts = Pick<ScanCache, "commits" | "listing" | "unreadable">;

/**
 * A rescan changes few entries: those go to a small delta file (every entry set or removed since the base
 * file, plus the other facts), so a save writes kilobytes, not the whole cache. The base is rewritten when
 * the delta grows past this many entries.
 */
const DELTA_LIMIT = 2000;

export async function loadCache(dir: string, root: string, key: string): Promise<ScanCache> {
  const target = fileFor(dir, root);
  try {
    const data = deserialize(await readFile(target)) as Facts & {
      version: number;
      key: string;
      root: string;
      generation: string;
      entries: Map<string, CacheEntry>;
    };
    if (data.version === VERSION && data.key === key && data.root === root) {
      const base = data.entries;
      let facts: Facts = data;
      let entries = base;
      try {
        const delta = deserialize(await readFile(`${target}.delta`)) as Facts & {
          generation: string;
          set: [string, CacheEntry][];
          removed: string[];
        };
        // A delta of another base (rewritten since by another run) is stale: the base alone is whole.
        if (delta.generation === data.generation) {
          entries = new Map(base);
          for (const [path, entry] of delta.set) entries.set(path, entry);
          for (const path of delta.removed) entries.delete(path);
          facts = delta;
        }
      } catch {}
      const cache: ScanCache = {
        key,
        entries,
        commits: facts.commits,
        listing: facts.listing,
        unreadable: facts.unreadable,
      };
      loaded.set(cache, { generation: data.generation, base });
      return cache;
    }
  } catch {}
  return { key, entries: new Map() };
}

/**
 * Each file is written to a temp file and renamed (atomic); a failure only costs the next run a cold scan.
 * `from` is the cache this run loaded (unchanged entries are the same objects in both).
 */
export async function saveCache(
  dir: string,
  root: string,
  cache: ScanCache,
  from?: ScanCache,
): Promise<void> {
  const write = async (target: string, data: unknown) => {
    const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temp, serialize(data));
    await rename(temp, target);
  };
  const facts: Facts = { commits: cache.commits, listing: cache.listing, unreadable: cache.unreadable };
  try {
    await mkdir(dir, { recursive: true });
    const target = fileFor(dir, root);
    const disk = from && from.key === cache.key ? loaded.get(from) : undefined;
    if (disk) {
      const set: [string, CacheEntry][] = [];
      const removed: string[] = [];
      for (const [path, entry] of cache.entries) if (disk.base.get(path) !== entry) set.push([path, entry]);
      for (const path of disk.base.keys()) if (!cache.entries.has(path)) removed.push(path);
      if (set.length + removed.length <= DELTA_LIMIT) {
        await write(`${target}.delta`, { ...facts, generation: disk.generation, set, removed });
        loaded.set(cache, disk);
        return;
      }
    }
    const generation = randomUUID();
    await write(target, {
      ...facts,
      version: VERSION,
      key: cache.key,
      root,
      generation,
      entries: cache.entries,
    });
    loaded.set(cache, { generation, base: cache.entries });
  } catch {}
}
