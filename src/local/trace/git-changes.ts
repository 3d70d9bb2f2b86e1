/**
 * What changed in a git working copy since the last scan, asked of git as cheaply as it can answer exactly:
 * - `git diff-files` (tracked files whose stat data differs from the index; git compares the content of the
 *   racily clean ones itself): every other tracked file's content is its index blob, so a cache entry keyed
 *   by path and blob id needs no look at the file at all;
 * - the untracked files git does not ignore (the scanner includes them): `git ls-files -o`, or, while the
 *   folders' mtimes and the ignore rules stay, the last answer (untracked-memo.ts);
 * - `git ls-files -s` (paths and blob ids) only when the index is not byte for byte the one of the last scan
 *   (its trailing checksum, read without running git);
 * - HEAD and the branch from the repository's files (`git rev-parse` when they are not in the simple form).
 * `git status` answers all of it in one run but also walks every folder for untracked files and diffs HEAD
 * against the index: a rescan here runs one git process, which only stats the tracked files.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { git } from "./git.js";
import { type GitDirs, startProbe, takeEarlyProbe } from "./git-probe.js";
import { hash64 } from "./hash.js";
import { listUntracked, recall, type UntrackedMemo } from "./untracked-memo.js";

/** Runs git; undefined when it fails (not a repository, no commit yet, git missing). */
async function gitOr(root: string, args: string[]): Promise<string | undefined> {
  try {
    return await git(root, args);
  } catch {
    return undefined;
  }
}

export interface GitHead {
  sha: string | null;
  branch: string | null;
}

/** The index listing: tracked regular files (no symbolic link, no submodule) and their stage-0 blob ids. */
export interface IndexListing {
  /** Digest of the listing: equal digests, equal tracked files and blobs. */
  digest: string;
  paths: string[];
  /** The blob of each path with one (a path in conflict has none). */
  blobs: Map<string, string>;
}

export interface GitChanges {
  head: GitHead;
  /** The index file's own checksum (with its size and mtime), or null when it cannot be trusted. */
  stamp: string | null;
  /** Tracked paths whose stat data differs from the index (edited, touched, deleted, in conflict). */
  modified: string[];
  /** Untracked files git does not ignore. */
  untracked: string[];
  /** What vouches for `untracked` at the next scan, when anything can (made while the scan goes on). */
  untrackedMemo: Promise<UntrackedMemo | undefined>;
  /** The index listing; undefined when the caller's stamp matched (the index is unchanged). */
  index?: IndexListing;
  /** Blob ids of the given tracked paths as the index holds them now (only those git lists). */
  blobsOf(paths: string[]): Promise<Map<string, string>>;
  /** `Date.now()` before git looked at any file: a file modified after it has a later mtime. */
  probedAt: number;
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * HEAD and its branch from the repository's files (HEAD, a loose ref or packed-refs), saving a git
 * process; undefined when they are not in that simple form (reftable, a symbolic ref to another), for git
 * to answer.
 */
function headFromFiles(dirs: GitDirs): GitHead | undefined {
  try {
    const head = readFileSync(join(dirs.dir, "HEAD"), "utf8").trim();
    if (SHA.test(head)) return { sha: head, branch: null };
    const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
    if (!ref) return undefined;
    const branch = ref.slice("refs/heads/".length);
    try {
      const loose = readFileSync(join(dirs.common, ref), "utf8").trim();
      return SHA.test(loose) ? { sha: loose, branch } : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
    }
    let packed = "";
    try {
      packed = readFileSync(join(dirs.common, "packed-refs"), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
    }
    for (const line of packed.split("\n")) {
      const space = line.indexOf(" ");
      if (space > 0 && line.slice(space + 1) === ref) {
        const sha = line.slice(0, space);
        return SHA.test(sha) ? { sha, branch } : undefined;
      }
    }
    // No such ref: an unborn branch, unless the refs live elsewhere (reftable).
    const reftable = statSync(join(dirs.common, "reftable"), { throwIfNoEntry: false }) !== undefined;
    return reftable ? undefined : { sha: null, branch };
  } catch {
    return undefined;
  }
}

const regular = (record: string) => record.startsWith("100644 ") || record.startsWith("100755 ");

/** Parses `git ls-files -s -z`: "mode blob stage\tpath" records; a path in conflict has up to three. */
function parseIndex(listing: string, wanted?: Set<string>): { paths: string[]; blobs: Map<string, string> } {
  const paths: string[] = [];
  const blobs = new Map<string, string>();
  let previous = "";
  for (const record of listing.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const path = record.slice(tab + 1);
    if (path === previous) continue;
    previous = path;
    if (!regular(record)) continue; // symbolic link or submodule: never read
    if (wanted && !wanted.has(path)) continue;
    paths.push(path);
    if (record.charCodeAt(tab - 1) === 48 /* stage 0 */) blobs.set(path, record.slice(7, tab - 2));
  }
  return { paths, blobs };
}

async function readHead(root: string): Promise<GitHead> {
  // "sha\nrefs/heads/name\n", or "sha\nHEAD\n" when detached; fails before the first commit.
  const out = await gitOr(root, ["rev-parse", "HEAD", "--symbolic-full-name", "HEAD"]);
  if (out !== undefined) {
    const [sha = "", ref = ""] = out.split("\n");
    return {
      sha: /^[0-9a-f]{40,64}$/.test(sha) ? sha : null,
      branch: ref === "HEAD" || ref === "" ? null : ref.replace(/^refs\/heads\//, ""),
    };
  }
  const branch = await gitOr(root, ["symbolic-ref", "-q", "--short", "HEAD"]);
  return { sha: null, branch: branch?.trim() || null };
}

/**
 * The working copy's changes as git sees them. The index is listed unless its stamp equals the known one,
 * and the untracked files are listed unless the known memo still vouches for them (a promise, so the
 * caller may load its cache while git already runs). Undefined when `root` is not in a git work tree (or
 * git is missing). Paths are relative to `root` (which may be a folder of the work tree).
 */
export async function gitChanges(
  root: string,
  knownRun: Promise<{ stamp: string | null; untracked?: UntrackedMemo } | undefined>,
): Promise<GitChanges | undefined> {
  // The probe `reqlix-mcp trace` started for this folder before the scanner loaded, else one now. Its stamp
  // was read before git ran: a change to the index while it runs is seen by the next scan.
  const { probedAt, dirs, stamp, modified: modifiedRun } = takeEarlyProbe(root) ?? startProbe(root);
  const fromFiles = dirs ? headFromFiles(dirs) : undefined;
  const headRun = fromFiles ? Promise.resolve(fromFiles) : readHead(root);
  const known = await knownRun;
  const indexKnown = stamp !== null && stamp === known?.stamp;
  const listRun = indexKnown ? undefined : git(root, ["ls-files", "-s", "-z"]);
  listRun?.catch(() => {});
  const recalled = recall(known?.untracked, root, stamp);
  let modifiedOut: string;
  let listing: string | undefined;
  let untracked: { untracked: string[]; memo: Promise<UntrackedMemo | undefined> };
  try {
    [modifiedOut, listing, untracked] = await Promise.all([
      modifiedRun,
      listRun,
      recalled
        ? { untracked: recalled, memo: Promise.resolve(known?.untracked) }
        : // A memo pays off from the second scan on: a scan without a cache (CI) makes none.
          listUntracked(root, stamp, known ? dirs : null),
    ]);
  } catch {
    return undefined;
  }
  const modified = modifiedOut.split("\0").filter((p) => p !== "");
  const head = await headRun;
  let index: IndexListing | undefined;
  if (listing !== undefined) {
    const parsed = parseIndex(listing);
    index = { digest: hash64(listing), ...parsed };
  }
  return {
    head,
    stamp,
    modified,
    untracked: untracked.untracked,
    untrackedMemo: untracked.memo,
    index,
    probedAt,
    async blobsOf(paths) {
      if (paths.length === 0) return new Map();
      if (index) {
        const wanted = new Set(paths);
        return new Map([...index.blobs].filter(([p]) => wanted.has(p)));
      }
      // Literal pathspecs: a path is never read as a pattern. Many paths: the whole index (a bounded
      // command line).
      const args =
        paths.length <= 500
          ? ["--literal-pathspecs", "ls-files", "-s", "-z", "--", ...paths]
          : ["ls-files", "-s", "-z"];
      return parseIndex(await git(root, args), new Set(paths)).blobs;
    },
  };
}
