/**
 * The scan cache: per file, its size and mtime when it was read (and the git blob id when git vouched for
 * the content) and the citations found, so a rescan reads only files whose blob, size or mtime changed.
 * Kept in memory by the companion, and on disk for the CLI: one file per project under the user's cache
 * folder (never in the working copy) in V8's serialization format: the facts (format version, root, rule
 * key, git's view, the citing commits, the parsed requirement files) and the entries in the columns of
 * `cache-format.ts` (V8 reads those columns in a few ms; it read the object graph of earlier versions in
 * 40–100), serialized on their own with their CRC-32: a reader that finds the same checksum takes them as
 * written, without a pass over every file and citation (Node without zlib.crc32 checks every column); a
 * rescan writes only a small delta file next to it. Both are written to a temp file and renamed;
 * a file that does not deserialize (another Node's format, a torn or corrupt file), or is of another format
 * version or root, is ignored, and one of other rules (key) is not used: a cold scan.
 * The whole cache is dropped when the matcher or the classification rules change (its `key`).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import * as zlib from "node:zlib";
import { type CacheEntry, type EncodedEntries, encodeEntries } from "./cache-format.js";
import type { CommitCitation } from "./git.js";
import { hash64, uniqueName } from "./hash.js";
import type { CatalogFiles } from "./requirements.js";
import { decodeEntries } from "./stored-decode.js";
import type { StoredEntries } from "./stored-entries.js";
import type { UntrackedMemo } from "./untracked-memo.js";

export type { CacheEntry, SkipReason } from "./cache-format.js";

export interface CommitsMemo {
  head: string;
  limit: number;
  source: string;
  list: CommitCitation[];
}

export interface ScanCache {
  key: string;
  entries: Map<string, CacheEntry>;
  /** The entries were made for one scan (read from disk), which may update them in place. */
  owned?: boolean;
  /** The entries may not be in a cold scan's order (a delta added paths after the base's): see order.ts. */
  unordered?: boolean;
  /** The citing commits of the last scan, reused while HEAD, the history limit and the pattern stay. */
  commits?: CommitsMemo;
  /**
   * git's view at the last scan: the index's stamp and listing digest, and the files git reported modified
   * or untracked. While the stamp stays, only those and the newly reported ones can differ from `entries`;
   * and the memo that vouches for the untracked files while the folders stay.
   */
  listing?: { stamp: string | null; digest: string; dirty: string[]; untracked?: UntrackedMemo };
  /** Files that could not be read, and racy entries: visited on every scan. */
  unreadable?: string[];
  racy?: string[];
}

/** What the base file holds besides the entries, and the delta file besides its changes. */
interface Facts {
  commits?: CommitsMemo;
  listing?: ScanCache["listing"];
  unreadable?: string[];
  racy?: string[];
  catalog?: CatalogFiles;
}
interface Base extends Facts {
  format: typeof FORMAT;
  version: number;
  root: string;
  key: string;
  generation: string;
  /** The EncodedEntries, serialized on their own so that their checksum is of bytes (see pack). */
  entries: Uint8Array;
  crc: number | null;
}
interface Delta extends Facts {
  generation: string;
  set: Uint8Array;
  crc: number | null;
  removed: string[];
}

/** CRC-32 where Node has it (20.15, 22.2 and later). */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/**
 * Entries as bytes and their CRC-32: a reader that finds the same checksum takes the columns as written
 * (decodeEntries `trusted`: no pass over every file and citation); without crc32 they are checked instead.
 */
function pack(entries: Iterable<[string, CacheEntry]>): { bytes: Uint8Array; crc: number | null } {
  const bytes = serialize(encodeEntries(entries));
  return { bytes, crc: crc32 ? crc32(bytes) : null };
}

/** The entries of `pack`; throws when they are corrupt (a checksum that does not match, bad columns). */
function unpack(bytes: unknown, crc: unknown): StoredEntries {
  if (!(bytes instanceof Uint8Array)) throw new Error("cache entries are not bytes");
  let trusted = false;
  if (typeof crc === "number" && crc32) {
    if (crc32(bytes) !== crc) throw new Error("cache entries do not match their checksum");
    trusted = true;
  }
  return decodeEntries(deserialize(bytes) as EncodedEntries, trusted);
}

const FORMAT = "reqlix-trace-cache";
export const CACHE_VERSION = 9;

export function cacheDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.REQLIX_CACHE_DIR) return env.REQLIX_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "reqlix", "trace");
}

export function cacheFileFor(dir: string, root: string): string {
  return join(dir, `${hash64(root)}.trace`);
}

/** What a run loaded from disk: the base file's generation and the paths whose entries differ from it. */
interface OnDisk {
  generation: string;
  pending: Set<string>;
}
const loaded = new WeakMap<ScanCache, OnDisk>();

/**
 * A rescan changes few entries: those go to a small delta file (every entry set or removed since the base
 * file, plus the facts), so a save writes kilobytes, not the whole cache. The base is rewritten when the
 * delta grows past this many entries.
 */
const DELTA_LIMIT = 2000;

/** A cache file read but not yet decoded: the facts first (the catalog decides the key), entries on demand. */
export interface StoredCache {
  key: string;
  catalog?: CatalogFiles;
  /** The cache, or an empty one when the entries do not decode. */
  open(): ScanCache;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The stored cache of `root`, or undefined when there is none usable (missing, corrupt, another version). */
export async function readStoredCache(dir: string, root: string): Promise<StoredCache | undefined> {
  const target = cacheFileFor(dir, root);
  let base: Base;
  try {
    // Synchronous reads: one call each, where a promise-based read costs an open, a stat, reads and a close
    // through the thread pool for a file read at once anyway.
    base = deserialize(readFileSync(target)) as Base;
    if (!isObject(base) || base.format !== FORMAT || base.version !== CACHE_VERSION) return undefined;
    if (base.root !== root || typeof base.key !== "string" || typeof base.generation !== "string")
      return undefined;
  } catch {
    return undefined;
  }
  let delta: Delta | undefined;
  try {
    const d = deserialize(readFileSync(`${target}.delta`)) as Delta;
    // A delta of another base (rewritten since by another run) is stale: the base alone is whole.
    if (isObject(d) && d.generation === base.generation && Array.isArray(d.removed)) delta = d;
  } catch {}
  const facts: Facts = delta ?? base;
  return {
    key: base.key,
    catalog: Array.isArray(facts.catalog) ? facts.catalog : undefined,
    open() {
      const key = base.key;
      try {
        const entries = unpack(base.entries, base.crc);
        const pending = new Set<string>();
        let unordered = false;
        if (delta) {
          for (const [path, entry] of unpack(delta.set, delta.crc)) {
            if (!entries.has(path)) unordered = true; // placed last
            entries.set(path, entry);
            pending.add(path);
          }
          for (const path of delta.removed) {
            entries.delete(path);
            pending.add(path);
          }
        }
        const cache: ScanCache = {
          key,
          entries,
          commits: facts.commits,
          listing: facts.listing,
          unreadable: facts.unreadable,
          racy: facts.racy,
          owned: true,
          ...(unordered ? { unordered } : {}),
        };
        loaded.set(cache, { generation: base.generation, pending });
        return cache;
      } catch {
        return { key, entries: new Map() };
      }
    },
  };
}

function writeAtomically(target: string, data: Base | Delta): void {
  const temp = `${target}.${uniqueName()}.tmp`;
  writeFileSync(temp, serialize(data));
  renameSync(temp, target);
}

/**
 * Saves the cache (a delta against the base file `from` was loaded from, when small); a failure only costs
 * the next run a cold scan. `from` is the cache this run started from, `touched` the paths whose entries
 * this run set or removed.
 */
export async function saveCache(
  dir: string,
  root: string,
  cache: ScanCache,
  catalog: CatalogFiles,
  from: ScanCache | undefined,
  touched: Set<string>,
): Promise<void> {
  const facts: Facts = {
    commits: cache.commits,
    listing: cache.listing,
    unreadable: cache.unreadable,
    racy: cache.racy,
    catalog,
  };
  try {
    const target = cacheFileFor(dir, root);
    const disk = from && from.key === cache.key ? loaded.get(from) : undefined;
    if (!disk) mkdirSync(dir, { recursive: true }); // a loaded cache's folder exists
    if (disk) {
      const pending = new Set([...disk.pending, ...touched]);
      if (pending.size <= DELTA_LIMIT) {
        const set: [string, CacheEntry][] = [];
        const removed: string[] = [];
        for (const path of pending) {
          const entry = cache.entries.get(path);
          if (entry) set.push([path, entry]);
          else removed.push(path);
        }
        const packed = pack(set);
        const delta: Delta = {
          ...facts,
          generation: disk.generation,
          set: packed.bytes,
          crc: packed.crc,
          removed,
        };
        writeAtomically(`${target}.delta`, delta);
        loaded.set(cache, { generation: disk.generation, pending });
        return;
      }
    }
    const generation = uniqueName();
    const packed = pack(cache.entries);
    // The base first: a delta left from the previous base names the old generation and is ignored.
    writeAtomically(target, {
      format: FORMAT,
      version: CACHE_VERSION,
      root,
      key: cache.key,
      generation,
      ...facts,
      entries: packed.bytes,
      crc: packed.crc,
    });
    loaded.set(cache, { generation, pending: new Set() });
  } catch {}
}
