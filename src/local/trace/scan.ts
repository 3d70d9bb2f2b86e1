/**
 * The trace scan: the working copy's files (`git ls-files` in a git repository, else a walk honouring
 * `.gitignore`), filtered by `.reqlix/trace.yaml`, each read once and searched for citations, with a cache
 * keyed by path and git blob id (files git reports unchanged are not even stat'ed) or size and mtime, so a
 * rescan reads only what changed. No hosted dependency: the companion and the CLI share it.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import { type CacheEntry, cacheDir, loadCache, type ScanCache, type SkipReason, saveCache } from "./cache.js";
import { type Citation, type CitationKind, CitationMatcher } from "./citations.js";
import { loadTraceConfig, type TraceConfig } from "./config.js";
import { type CommitCitation, commitsCiting, type GitListing, gitListing } from "./git.js";
import { CatalogReader, type LocalCatalog } from "./requirements.js";
import { walkFiles } from "./walk.js";

export interface ScanSummary {
  /** Files considered after include/exclude. */
  files: number;
  /** Files read by this scan (the others came from the cache). */
  read: number;
  skipped: { binary: number; too_large: number; unreadable: number };
}

export interface ScanResult extends ScanSummary {
  root: string;
  git: boolean;
  head: { sha: string | null; branch: string | null };
  config: TraceConfig;
  catalog: LocalCatalog;
  matcher: CitationMatcher;
  /** Citations by file, in file order. */
  byFile: Map<string, Citation[]>;
  commits: CommitCitation[];
  scanned_at: string;
  duration_ms: number;
  /** Milliseconds per phase (listing, files, commits, cache), for benchmarks and diagnostics. */
  timing: Record<string, number>;
}

/** What survives between scans of one project (the companion keeps it in memory). */
export interface ScanState {
  cache?: ScanCache;
  catalog: CatalogReader;
  /** Each path's kind under the include/exclude rules (null: not scanned), for the rules of `key`. */
  kinds?: {
    key: string;
    byPath: Map<string, CitationKind | null>;
    of: (path: string) => CitationKind | null;
  };
}

export function newScanState(): ScanState {
  return { catalog: new CatalogReader() };
}

export interface ScanOptions {
  env: Readonly<Record<string, string | undefined>>;
  state?: ScanState;
  /** Load and save the on-disk cache (the CLI); the companion keeps its cache in memory only. */
  persist?: boolean;
  signal?: AbortSignal;
}

/** Binary as git decides it: a NUL byte in the first 8000 bytes. */
function isBinary(buf: Buffer, length: number): boolean {
  return buf.subarray(0, Math.min(length, 8000)).includes(0);
}

export function classifier(config: TraceConfig): (path: string) => CitationKind {
  const doc = picomatch(config.docs, { dot: true });
  const test = picomatch(config.tests, { dot: true });
  return (path) => (doc(path) ? "doc" : test(path) ? "test" : "impl");
}

export function fileFilter(config: TraceConfig, requirementsRel: string | null): (path: string) => boolean {
  const include = picomatch(config.include, { dot: true });
  const exclude = config.exclude.length > 0 ? picomatch(config.exclude, { dot: true }) : () => false;
  // The requirement files define ids rather than cite them; .reqlix/ holds the configuration.
  const own = requirementsRel ? `${requirementsRel}/` : undefined;
  return (path) =>
    !path.startsWith(".reqlix/") && !(own && path.startsWith(own)) && include(path) && !exclude(path);
}

let readBuffer = Buffer.allocUnsafe(1 << 20);

type ReadOutcome =
  | { bytes: Buffer; size: number; mtimeMs: number }
  | { skipped: SkipReason; size: number; mtimeMs: number }
  | { skipped: "unreadable" | "not_file" };

/**
 * Reads one file into the shared buffer, never through a symbolic link (O_NOFOLLOW); size and mtime come
 * from the open descriptor, so a cold scan needs no separate stat.
 */
function readOne(abs: string, cap: number): ReadOutcome {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      skipped: code === "ELOOP" || code === "ENOENT" || code === "EISDIR" ? "not_file" : "unreadable",
    };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { skipped: "not_file" };
    const size = info.size;
    const mtimeMs = info.mtimeMs;
    if (size > cap) return { skipped: "too_large", size, mtimeMs };
    if (readBuffer.length < size) readBuffer = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, readBuffer, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    if (isBinary(readBuffer, got)) return { skipped: "binary", size, mtimeMs };
    return { bytes: readBuffer.subarray(0, got), size, mtimeMs };
  } catch {
    return { skipped: "unreadable" };
  } finally {
    closeSync(fd);
  }
}

function cacheKey(config: TraceConfig, matcher: CitationMatcher, catalog: LocalCatalog): string {
  const { historyCommits: _h, ...rules } = config;
  return createHash("sha256")
    .update(JSON.stringify([matcher.source, rules, catalog.relPath]))
    .digest("hex");
}

/** Scans the project at `root` (an absolute, real path). */
export async function scanProject(root: string, options: ScanOptions): Promise<ScanResult> {
  const started = performance.now();
  const state = options.state ?? newScanState();
  // git status runs while the configuration and the cache load; it needs the cache only for what to list.
  let settle: (known: { stamp: string; digest: string } | undefined) => void = () => {};
  const listingRun = gitListing(root, new Promise((resolve) => (settle = resolve)));
  try {
    return await scanWith(root, options, state, listingRun, settle, started);
  } finally {
    settle(undefined); // a scan refused early leaves no git run waiting
  }
}

async function scanWith(
  root: string,
  options: ScanOptions,
  state: ScanState,
  listingRun: Promise<GitListing | undefined>,
  settle: (known: { stamp: string; digest: string } | undefined) => void,
  started: number,
): Promise<ScanResult> {
  const timing: Record<string, number> = {};
  let lap = started;
  const mark = (phase: string) => {
    const now = performance.now();
    timing[phase] = Math.round(now - lap);
    lap = now;
  };
  const config = await loadTraceConfig(root);
  const catalog = await state.catalog.read(root, options.env);
  const matcher = new CitationMatcher(config.hostedPrefixes, config.reqlixIndices ? catalog.prefixes : []);
  const key = cacheKey(config, matcher, catalog);
  const dir = cacheDir(options.env);
  let cache = state.cache?.key === key ? state.cache : undefined;
  if (!cache) cache = options.persist ? await loadCache(dir, root, key) : { key, entries: new Map() };
  mark("setup");
  const known = cache.listing;
  // An index byte for byte as at the last scan need not be listed again (git status still runs).
  settle(cache.entries.size > 0 && known?.stamp ? { stamp: known.stamp, digest: known.digest } : undefined);
  const listing = await listingRun;
  const git = listing !== undefined;
  const head = listing?.head ?? { sha: null, branch: null };
  // While git's index is as at the last scan, only the files git reported changed or untracked then or
  // now (and unreadable ones) can differ from the cache: a rescan visits those alone.
  const incremental = listing && known?.digest === listing.indexDigest && cache.entries.size > 0;
  let paths: Iterable<string>;
  let blobOf: (path: string) => string | undefined;
  let listed: (path: string, blob: string | undefined) => boolean = () => true;
  if (incremental) {
    const visit = new Set([...known.dirty, ...listing.dirty, ...(cache.unreadable ?? [])]);
    paths = visit;
    const blobs = await listing.blobsOf([...visit]);
    blobOf = (path) => blobs.get(path);
    // Reported before but neither now nor clean in the index: deleted or ignored since.
    const now = new Set(listing.dirty);
    listed = (path, blob) => blob !== undefined || now.has(path);
  } else {
    const all = listing?.all?.();
    paths = all?.paths ?? (await walkFiles(root));
    blobOf = (path) => all?.blobs.get(path);
  }
  mark("listing");
  if (state.kinds?.key !== key) {
    const wanted = fileFilter(config, catalog.relPath);
    const kindOf = classifier(config);
    state.kinds = { key, byPath: new Map(), of: (path) => (wanted(path) ? kindOf(path) : null) };
  }
  const kinds = state.kinds;
  const kindFor = (path: string): CitationKind | null => {
    let kind = kinds.byPath.get(path);
    if (kind === undefined) {
      kind = kinds.of(path);
      kinds.byPath.set(path, kind);
    }
    return kind;
  };
  const entries = incremental ? new Map(cache.entries) : new Map<string, CacheEntry>();
  const unreadable = new Set<string>();
  let read = 0;
  let blobsAdded = false;
  let sinceYield = 0;
  for (const path of paths) {
    const kind = kindFor(path);
    if (kind === null) continue;
    const blob = blobOf(path);
    if (!listed(path, blob)) {
      entries.delete(path);
      continue;
    }
    const old = cache.entries.get(path);
    let entry: CacheEntry | undefined;
    if (old && blob !== undefined && old.blob !== undefined) {
      // git vouches for the content: the same blob is the same file, another blob another one.
      if (old.blob === blob) entry = old;
    } else if (old) {
      // Otherwise a stat first: an unchanged file is not opened at all.
      const info = lstatSync(join(root, path), { throwIfNoEntry: false });
      if (!info?.isFile()) {
        entries.delete(path); // deleted, a symbolic link (never followed) or a submodule
        continue;
      }
      if (old.size === info.size && old.mtimeMs === info.mtimeMs) {
        entry = old.blob === blob ? old : { ...old, blob };
        if (blob !== undefined && old.blob === undefined) blobsAdded = true;
      }
    }
    if (!entry) {
      read++;
      const got = readOne(join(root, path), config.maxFileBytes);
      if (!("size" in got)) {
        entries.delete(path);
        if (got.skipped === "unreadable") unreadable.add(path);
        continue;
      }
      entry =
        "bytes" in got
          ? { size: got.size, mtimeMs: got.mtimeMs, citations: matcher.scan(got.bytes, path, kind) }
          : { size: got.size, mtimeMs: got.mtimeMs, citations: [], skipped: got.skipped };
      if (blob !== undefined) entry.blob = blob;
      if (++sinceYield >= 256) {
        // Let the companion answer other requests during a long cold scan, and honour cancellation.
        sinceYield = 0;
        await new Promise((r) => setImmediate(r));
        options.signal?.throwIfAborted();
      }
    }
    entries.set(path, entry);
  }
  const summary: ScanSummary = {
    files: entries.size + unreadable.size,
    read,
    skipped: { binary: 0, too_large: 0, unreadable: unreadable.size },
  };
  const byFile = new Map<string, Citation[]>();
  for (const [path, entry] of entries) {
    if (entry.skipped) summary.skipped[entry.skipped]++;
    if (entry.citations.length > 0) byFile.set(path, entry.citations);
  }
  mark("files");
  const fresh: ScanCache = {
    key,
    entries,
    commits: cache.commits,
    listing: listing && {
      digest: listing.indexDigest,
      dirty: listing.dirty,
      ...(listing.indexStamp ? { stamp: listing.indexStamp } : {}),
    },
    unreadable: [...unreadable],
  };
  state.cache = fresh;
  let commits: CommitCitation[] = [];
  let commitsChanged = false;
  if (git && head.sha && config.historyCommits > 0) {
    const c = fresh.commits;
    if (c && c.head === head.sha && c.limit === config.historyCommits && c.source === matcher.source)
      commits = c.list;
    else {
      commits = await commitsCiting(root, config.historyCommits, matcher);
      fresh.commits = { head: head.sha, limit: config.historyCommits, source: matcher.source, list: commits };
      commitsChanged = true;
    }
  }
  mark("commits");
  const listingChanged =
    fresh.listing?.digest !== cache.listing?.digest ||
    fresh.listing?.stamp !== cache.listing?.stamp ||
    fresh.listing?.dirty.join("\0") !== cache.listing?.dirty.join("\0");
  if (
    options.persist &&
    (read > 0 || commitsChanged || entries.size !== cache.entries.size || blobsAdded || listingChanged)
  )
    await saveCache(dir, root, fresh, cache);
  mark("save");
  return {
    ...summary,
    root,
    git,
    head,
    config,
    catalog,
    matcher,
    byFile,
    commits,
    scanned_at: new Date().toISOString(),
    duration_ms: Math.round(performance.now() - started),
    timing,
  };
}
