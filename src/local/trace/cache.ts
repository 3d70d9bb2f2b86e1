/**
 * The scan cache: per file, its size and modification time when it was read and the citations found, so a
 * rescan reads only files whose size or mtime changed. Kept in memory by the companion, and on disk (one
 * JSON file per project under the user's cache folder, never in the working copy) for the CLI.
 * The whole cache is dropped when the matcher or the classification rules change (its `key`).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Citation } from "./citations.js";
import type { CommitCitation } from "./git.js";

export type SkipReason = "binary" | "too_large";

export interface CacheEntry {
  size: number;
  mtimeMs: number;
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
}

const VERSION = 1;

export function cacheDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.REQLIX_CACHE_DIR) return env.REQLIX_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "reqlix", "trace");
}

function fileFor(dir: string, root: string): string {
  return join(dir, `${createHash("sha256").update(root).digest("hex").slice(0, 24)}.json`);
}

export async function loadCache(dir: string, root: string, key: string): Promise<ScanCache> {
  try {
    const data = JSON.parse(await readFile(fileFor(dir, root), "utf8")) as {
      version: number;
      key: string;
      root: string;
      entries: [string, CacheEntry][];
      commits?: CommitsMemo;
    };
    if (data.version === VERSION && data.key === key && data.root === root) {
      return { key, entries: new Map(data.entries), commits: data.commits };
    }
  } catch {}
  return { key, entries: new Map() };
}

/** Written to a temp file and renamed (atomic); a failure only costs the next run a cold scan. */
export async function saveCache(dir: string, root: string, cache: ScanCache): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const target = fileFor(dir, root);
    const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(
      temp,
      JSON.stringify({
        version: VERSION,
        key: cache.key,
        root,
        entries: [...cache.entries],
        commits: cache.commits,
      }),
    );
    await rename(temp, target);
  } catch {}
}
