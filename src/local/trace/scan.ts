/**
 * The trace scan: the working copy's files (`git ls-files` in a git repository, else a walk honouring
 * `.gitignore`), filtered by `.reqlix/trace.yaml`, each read once and searched for citations, with a cache
 * keyed by path and git blob id (files git reports unchanged are not even stat'ed) or size and mtime, so a
 * rescan reads only what changed. No hosted dependency: the companion and the CLI share it.
 */
import { lstatSync } from "node:fs";
import {
  type CacheEntry,
  cacheDir,
  readStoredCache,
  type ScanCache,
  type SkipReason,
  saveCache,
} from "./cache.js";
import { type CitationFacts, citationCount, StoredEntry, withBlob } from "./cache-format.js";
import { type Citation, type CitationKind, CitationMatcher } from "./citations.js";
import { loadTraceConfig, type TraceConfig } from "./config.js";
import type { CitationVisitor, CoverageTally } from "./coverage.js";
import { FileReader, ReadStatus } from "./file-reader.js";
import { type CommitCitation, commitsCiting } from "./git.js";
import { type GitChanges, gitChanges } from "./git-changes.js";
import { inGitOrder, keepsOrder } from "./order.js";
import { isRacy } from "./racy.js";
import { CatalogReader, type LocalCatalog } from "./requirements.js";
import { plan } from "./scan-plan.js";
import { cacheKey, kindRules } from "./scan-rules.js";
import { StoredEntries } from "./stored-entries.js";

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
  /** Citations by file, in file order (made when first read). */
  readonly byFile: Map<string, Citation[]>;
  /**
   * Visits every citation in the order of `byFile` without making objects of the stored ones; with a
   * tally, counts those of untouched stored files in it instead (see CoverageTally).
   */
  eachCitation(visit: CitationVisitor, tally?: CoverageTally): void;
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
  /** Files to read from which a second thread reads them (default: see READ_THREAD_MIN). */
  readThreadMin?: number;
  /** The reader to use instead (tests). */
  reader?: () => FileReader;
}

/**
 * With `REQLIX_TRACE_READ_THREAD=1`, a scan reading at least this many files reads and matches them with a
 * second thread too (below it, starting the thread costs more than it saves). Off by default: on the shared
 * 2-core machine it was measured on (load 15–24, sessions scheduled as groups), two threads were no faster
 * than one; see bench/trace-scan.ts, which times both.
 */
export const READ_THREAD_MIN = 1000;

function readThreadMin(options: ScanOptions): number {
  if (options.readThreadMin !== undefined) return options.readThreadMin;
  return options.env.REQLIX_TRACE_READ_THREAD === "1" ? READ_THREAD_MIN : Number.POSITIVE_INFINITY;
}

/** What the scan does with one visited path: keep an entry, drop it, or read the file (`read`: its index). */
interface Step {
  path: string;
  entry?: CacheEntry;
  drop?: true;
  kind?: CitationKind;
  blob?: string;
  read?: number;
}

/**
 * What vouches for a file's content without reading it: size, mtime, and ctime and inode too (a write
 * that restores the mtime still moves the ctime, which no program can set; an editor's save by rename
 * gives a new inode).
 */
type FileStamp = Pick<CacheEntry, "size" | "mtimeMs" | "ctimeMs" | "ino">;

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** Scans the project at `root` (an absolute, real path). */
export async function scanProject(root: string, options: ScanOptions): Promise<ScanResult> {
  const started = performance.now();
  const state = options.state ?? newScanState();
  // git runs while the configuration and the cache load; it needs the cache only to know whether the index
  // must be listed again.
  let settle: (known: Known) => void = () => {};
  const changesRun = gitChanges(root, new Promise((resolve) => (settle = resolve)));
  try {
    return await scanWith(root, options, state, changesRun, settle, started);
  } finally {
    settle(undefined); // a scan refused early leaves no git run waiting
  }
}

/** What the last scan knew of git's view (the index stamp, the untracked files' memo). */
type Known = ScanCache["listing"] | undefined;

async function scanWith(
  root: string,
  options: ScanOptions,
  state: ScanState,
  changesRun: Promise<GitChanges | undefined>,
  settle: (known: Known) => void,
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
  const dir = cacheDir(options.env);
  // The stored cache's facts first: they hold the parsed requirement files, which decide the key.
  const stored = options.persist && !state.cache ? await readStoredCache(dir, root) : undefined;
  if (stored?.catalog) state.catalog.seed(stored.catalog);
  const catalog = await state.catalog.read(root, options.env);
  const matcher = new CitationMatcher(config.hostedPrefixes, config.reqlixIndices ? catalog.prefixes : []);
  const key = cacheKey(config, matcher, catalog);
  let cache = state.cache?.key === key ? state.cache : undefined;
  if (!cache && options.persist && state.cache) {
    const again = await readStoredCache(dir, root);
    if (again?.key === key) cache = again.open();
  }
  mark("setup");
  if (!cache) cache = stored?.key === key ? stored.open() : { key, entries: new Map() };
  mark("decode");
  settle(cache.entries.size > 0 && cache.listing ? cache.listing : undefined);
  const changes = await changesRun;
  const git = changes !== undefined;
  const head = changes?.head ?? { sha: null, branch: null };
  const incremental = changes !== undefined && changes.index === undefined;
  const { paths, blobOf, listed } = await plan(root, cache, changes);
  // A file modified after this instant has a later mtime (see racy.ts).
  const readAt = changes?.probedAt ?? Date.now();
  mark("listing");
  if (state.kinds?.key !== key) {
    // The globs are compiled when a path's kind is neither remembered nor in its cache entry.
    let rules: ((path: string) => CitationKind | null) | undefined;
    const of = (path: string) => {
      rules ??= kindRules(key, config, catalog);
      return rules(path);
    };
    state.kinds = { key, byPath: new Map(), of };
  }
  const kinds = state.kinds;
  const kindFor = (path: string): CitationKind | null => {
    let kind = kinds.byPath.get(path);
    if (kind === undefined) {
      kind = cache.entries.get(path)?.kind ?? kinds.of(path);
      kinds.byPath.set(path, kind);
    }
    return kind;
  };
  // A rescan updates the entries in place when it owns them (loaded from disk for this scan), else a copy.
  let entries = incremental
    ? cache.owned
      ? cache.entries
      : new Map(cache.entries)
    : new Map<string, CacheEntry>();
  /** Paths whose entry this scan set or removed (a visit may do both). */
  const touched = new Set<string>();
  const drop = (path: string) => {
    if (entries.delete(path)) touched.add(path);
  };
  const unreadable = new Set<string>();
  const racy: string[] = [];
  /** A path this scan added to the entries: it is last, maybe out of order. */
  let added = false;
  // First what each visited path needs (its cached entry, a drop, or a read), then the reads, then the
  // entries in the visit order (the order of the results).
  const steps: Step[] = [];
  // Paths are relative and normalised (git's or the walk's): joined by hand, not by path.join (see recall).
  const prefix = root.endsWith("/") ? root : `${root}/`;
  const toRead: string[] = [];
  const readSteps: Step[] = [];
  for (const path of paths) {
    const kind = kindFor(path);
    if (kind === null) continue;
    const blob = blobOf(path);
    if (!listed(path, blob)) {
      steps.push({ path, drop: true });
      continue;
    }
    const old = cache.entries.get(path);
    if (old && blob !== undefined && old.blob !== undefined) {
      // git vouches for the content: the same blob is the same file, another blob another one.
      if (old.blob === blob) {
        steps.push({ path, entry: old });
        continue;
      }
    } else if (old && !old.racy) {
      // Otherwise a stat first: an unchanged file is not opened at all.
      const info = lstatSync(prefix + path, { throwIfNoEntry: false });
      if (!info?.isFile()) {
        steps.push({ path, drop: true }); // deleted, a symbolic link (never followed) or a submodule
        continue;
      }
      if (sameStamp(old, info)) {
        // Unchanged since a read that was not racy: the content read then is the content now, and the
        // blob git vouches for now.
        steps.push({ path, entry: blob === undefined || old.blob === blob ? old : withBlob(old, blob) });
        continue;
      }
    }
    const step: Step = { path, kind, blob, read: toRead.length };
    steps.push(step);
    readSteps.push(step);
    toRead.push(prefix + path);
  }
  const got: (CacheEntry | SkipReason | "unreadable" | "not_file")[] = new Array(toRead.length);
  const readFiles = (reader: FileReader) =>
    reader.read(
      toRead,
      config.maxFileBytes,
      (index, file) => {
        const step = readSteps[index] as Step & { kind: CitationKind };
        const { status, stamp: s, at } = file;
        if (status === ReadStatus.Unreadable || status === ReadStatus.NotFile) {
          got[index] = status === ReadStatus.Unreadable ? "unreadable" : "not_file";
          return;
        }
        const stamp = {
          size: s[at] as number,
          mtimeMs: s[at + 1] as number,
          ctimeMs: s[at + 2] as number,
          ino: s[at + 3] as number,
        };
        const entry: CacheEntry =
          status === ReadStatus.Read
            ? {
                ...stamp,
                citations: file.citations ?? matcher.scan(file.bytes, step.path, step.kind),
                kind: step.kind,
              }
            : {
                ...stamp,
                citations: [],
                skipped: status === ReadStatus.Binary ? "binary" : "too_large",
                kind: step.kind,
              };
        // Modified since git looked, or so recently that a later write could keep its mtime: neither the
        // blob nor size and mtime vouch for what was read, so the next scan reads it again.
        if (isRacy(stamp.mtimeMs, readAt) || isRacy(stamp.ctimeMs, readAt)) entry.racy = true;
        else if (step.blob !== undefined) entry.blob = step.blob;
        got[index] = entry;
      },
      async () => {
        // Let the companion answer other requests during a long cold scan, and honour cancellation.
        await new Promise((resolve) => setImmediate(resolve));
        options.signal?.throwIfAborted();
      },
      // The thread matches what it reads too (the matching is most of a cold scan's work).
      {
        matcher,
        rel: readSteps.map((step) => step.path),
        kinds: readSteps.map((step) => step.kind as CitationKind),
      },
    );
  await readFiles(
    options.reader?.() ??
      (toRead.length >= readThreadMin(options) ? FileReader.start() : FileReader.inline()),
  );
  for (const step of steps) {
    const { path } = step;
    let entry = step.entry;
    if (step.read !== undefined) {
      const outcome = got[step.read];
      if (typeof outcome !== "object") {
        drop(path);
        if (outcome === "unreadable") unreadable.add(path);
        continue;
      }
      entry = outcome;
    }
    if (!entry) {
      drop(path);
      continue;
    }
    if (entry.racy) racy.push(path);
    const was = entries.get(path);
    if (was !== entry) {
      touched.add(path);
      if (was === undefined) added = true;
    }
    entries.set(path, entry);
  }
  const read = toRead.length;
  if (!incremental) for (const path of cache.entries.keys()) if (!entries.has(path)) touched.add(path);
  // A path this rescan added is last: back to the order of a cold scan (which is in it already).
  const ordered =
    changes && incremental && (added || cache.unordered)
      ? inGitOrder(entries, new Set(changes.untracked))
      : entries;
  // A full visit (the index changed) lists in a cold scan's order, which a path that became tracked or
  // untracked moved from the stored one.
  const reordered = ordered !== entries || (!incremental && !keepsOrder(cache.entries, ordered));
  entries = ordered;
  const summary: ScanSummary = {
    files: entries.size + unreadable.size,
    read,
    skipped: { binary: 0, too_large: 0, unreadable: unreadable.size },
  };
  // The files with citations; a stored entry's are decoded only when asked for (a rescan's coverage reads
  // their facts, see eachCitation), and the untouched rows of a cache file are no objects at all (a row).
  // With a cache file's totals, the summary and coverage need no pass over its untouched rows: the list is
  // made only when asked for (byFile, a visit of every citation).
  let cited: ([string, CacheEntry] | number)[] | undefined;
  const rows = entries instanceof StoredEntries ? entries : undefined;
  const citedItems = (): ([string, CacheEntry] | number)[] => {
    if (!cited) {
      const list: ([string, CacheEntry] | number)[] = [];
      const add = (path: string, entry: CacheEntry) => {
        if (citationCount(entry) > 0) list.push([path, entry]);
      };
      if (rows) rows.tally({ binary: 0, too_large: 0 }, list, add);
      else for (const [path, entry] of entries) add(path, entry);
      cited = list;
    }
    return cited;
  };
  const skippedOf = (_path: string, entry: CacheEntry) => {
    if (entry.skipped) summary.skipped[entry.skipped]++;
  };
  if (!rows?.tallyTotals(summary.skipped, skippedOf)) {
    const list: ([string, CacheEntry] | number)[] = [];
    const count = (path: string, entry: CacheEntry) => {
      skippedOf(path, entry);
      if (citationCount(entry) > 0) list.push([path, entry]);
    };
    if (rows) rows.tally(summary.skipped, list, count);
    else for (const [path, entry] of entries) count(path, entry);
    cited = list;
  }
  let byFile: Map<string, Citation[]> | undefined;
  const untrackedMemo = await changes?.untrackedMemo;
  mark("files");
  const fresh: ScanCache = {
    key,
    entries,
    commits: cache.commits,
    listing: changes && {
      stamp: changes.stamp,
      digest: changes.index?.digest ?? (cache.listing?.digest as string),
      dirty: [...changes.modified, ...changes.untracked],
      ...(untrackedMemo ? { untracked: untrackedMemo } : {}),
    },
    unreadable: [...unreadable],
    racy,
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
  const same = (a?: string[], b?: string[]) => (a ?? []).join("\0") === (b ?? []).join("\0");
  const listingChanged =
    fresh.listing?.digest !== cache.listing?.digest ||
    fresh.listing?.stamp !== cache.listing?.stamp ||
    fresh.listing?.untracked !== cache.listing?.untracked ||
    !same(fresh.listing?.dirty, cache.listing?.dirty) ||
    !same(fresh.racy, cache.racy) ||
    !same(fresh.unreadable, cache.unreadable);
  const catalogFiles = state.catalog.export();
  const catalogChanged =
    stored === undefined || JSON.stringify(catalogFiles) !== JSON.stringify(stored.catalog);
  if (options.persist && (read > 0 || commitsChanged || touched.size > 0 || listingChanged || catalogChanged))
    // A delta keeps the stored order, adding paths last: a new order is written whole.
    await saveCache(dir, root, fresh, catalogFiles, reordered ? undefined : cache, touched);
  mark("save");
  return {
    ...summary,
    root,
    git,
    head,
    config,
    catalog,
    matcher,
    get byFile() {
      byFile ??= new Map(
        citedItems().map((item) =>
          typeof item === "number"
            ? [(rows as StoredEntries).rowPath(item), (rows as StoredEntries).entryAt(item).citations]
            : [item[0], item[1].citations],
        ),
      );
      return byFile;
    },
    eachCitation(visit, tally) {
      const facts: CitationFacts = { id: "", form: "hosted", kind: "impl", revision: null };
      // One list function for all files (a visitor calls it before the next citation): no closure per file.
      let row = 0;
      let entry: CacheEntry | undefined;
      const list = () => (entry ? entry.citations : (rows as StoredEntries).entryAt(row).citations);
      const special = (r: number, c: number, index: number) => {
        row = r;
        entry = undefined;
        (rows as StoredEntries).factsAt(c, facts);
        visit(facts, list, index);
      };
      const visitEntry = (e: CacheEntry) => {
        entry = e;
        if (e instanceof StoredEntry) e.eachFact((f, i) => visit(f, list, i), facts);
        else {
          const all = e.citations;
          for (let i = 0; i < all.length; i++) visit(all[i] as Citation, list, i);
        }
      };
      // The untouched rows counted from the cache file's totals, the other files visited (see countTotals).
      if (tally && rows?.countTotals(tally, (_path, e) => visitEntry(e))) return;
      const cited = citedItems();
      for (let k = 0; k < cited.length; k++) {
        const item = cited[k] as number | [string, CacheEntry];
        if (typeof item === "number" && tally) {
          // A run of untouched rows: counted in place (see CoverageTally).
          let end = k + 1;
          while (end < cited.length && typeof cited[end] === "number") end++;
          (rows as StoredEntries).tallyRows(cited, k, end, tally, special);
          k = end - 1;
          continue;
        }
        if (typeof item === "number") {
          row = item;
          entry = undefined;
          (rows as StoredEntries).eachRowFact(item, visit, list, facts);
          continue;
        }
        visitEntry(item[1]);
      }
    },
    commits,
    scanned_at: new Date().toISOString(),
    duration_ms: Math.round(performance.now() - started),
    timing,
  };
}
