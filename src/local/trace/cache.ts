/**
 * The scan cache: per file, its size and modification time when it was read (and its git blob id when git
 * reported it unchanged) and the citations found, so a rescan reads only files whose blob, size or mtime
 * changed. Kept in memory by the companion, and on disk (one file per project under the user's cache folder,
 * never in the working copy) for the CLI, in V8's serialization format: several times quicker to read and
 * write than JSON for these arrays; another Node's unreadable format costs one cold scan.
 * The whole cache is dropped when the matcher or the classification rules change (its `key`).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import type { Citation, CitationKind } from "./citations.js";
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

/** A citation on disk: its file is the entry's path. */
type StoredCitation = [
  id: string,
  hosted: 0 | 1,
  revision: number | null,
  line: number,
  column: number,
  kind: CitationKind,
  test_name: string | null,
  snippet: string,
];
/** An entry on disk: arrays, not objects, so the file is small and quick to parse. */
type StoredEntry = [
  path: string,
  size: number,
  mtimeMs: number,
  blob: string | 0,
  skipped: SkipReason | 0,
  citations: StoredCitation[],
];

function toStored(path: string, e: CacheEntry): StoredEntry {
  return [
    path,
    e.size,
    e.mtimeMs,
    e.blob ?? 0,
    e.skipped ?? 0,
    e.citations.map((c) => [
      c.id,
      c.form === "hosted" ? 1 : 0,
      c.revision,
      c.line,
      c.column,
      c.kind,
      c.test_name,
      c.snippet,
    ]),
  ];
}

function fromStored([file, size, mtimeMs, blob, skipped, cited]: StoredEntry): [string, CacheEntry] {
  const entry: CacheEntry = {
    size,
    mtimeMs,
    citations: cited.map(([id, hosted, revision, line, column, kind, test_name, snippet]) => ({
      id,
      form: hosted ? "hosted" : "reqlix",
      revision,
      file,
      line,
      column,
      kind,
      test_name,
      snippet,
    })),
  };
  if (blob) entry.blob = blob;
  if (skipped) entry.skipped = skipped;
  return [file, entry];
}

export function cacheDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.REQLIX_CACHE_DIR) return env.REQLIX_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "reqlix", "trace");
}

function fileFor(dir: string, root: string): string {
  return join(dir, `${createHash("sha256").update(root).digest("hex").slice(0, 24)}.v8`);
}

export async function loadCache(dir: string, root: string, key: string): Promise<ScanCache> {
  try {
    const data = deserialize(await readFile(fileFor(dir, root))) as {
      version: number;
      key: string;
      root: string;
      entries: StoredEntry[];
      commits?: CommitsMemo;
      listing?: ScanCache["listing"];
      unreadable?: string[];
    };
    if (data.version === VERSION && data.key === key && data.root === root) {
      return {
        key,
        entries: new Map(data.entries.map(fromStored)),
        commits: data.commits,
        listing: data.listing,
        unreadable: data.unreadable,
      };
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
      serialize({
        version: VERSION,
        key: cache.key,
        root,
        entries: Array.from(cache.entries, ([path, e]) => toStored(path, e)),
        commits: cache.commits,
        listing: cache.listing,
        unreadable: cache.unreadable,
      }),
    );
    await rename(temp, target);
  } catch {}
}
