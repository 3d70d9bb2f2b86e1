/** The few git facts the trace scanner needs, read through the `git` command (never a library). */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import type { CitationMatcher } from "./citations.js";

function git(root: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-C", root, ...args],
      { maxBuffer: 1 << 30, encoding: "utf8", env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

export interface GitListing {
  head: { sha: string | null; branch: string | null };
  /** Digest of the index listing: equal digests, equal tracked files and blobs. */
  indexDigest: string;
  /** Tracked files git reports changed in the working copy (or in conflict), and untracked ones. */
  dirty: string[];
  /**
   * Tracked regular files (no symbolic link, no submodule) then untracked ones git does not ignore,
   * relative to `root`, `/`-separated; and the index blob id of each tracked file git reports unchanged
   * (its content is that blob, so a rescan need not stat it).
   */
  all(): { paths: string[]; blobs: Map<string, string> };
  /** One file's unchanged blob id as in `all()`, found without parsing the whole listing. */
  blobOf(path: string): string | undefined;
}

/**
 * The working copy as git sees it, from two processes run side by side: `git ls-files -s` (the index, with
 * blob ids) and `git status --porcelain=v2` (what differs from it, untracked files, HEAD and branch; git
 * stats the files itself, in parallel). Undefined when `root` is not in a git work tree (or git is missing).
 */
export async function gitListing(root: string): Promise<GitListing | undefined> {
  let index: string;
  let status: string;
  try {
    [index, status] = await Promise.all([
      git(root, ["ls-files", "-s", "-z"]),
      git(root, [
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--ignore-submodules=all",
        "--no-renames",
      ]),
    ]);
  } catch {
    return undefined;
  }
  const changed = new Set<string>();
  const untracked: string[] = [];
  let sha: string | null = null;
  let branch: string | null = null;
  for (const record of status.split("\0")) {
    if (record.startsWith("# branch.oid ")) {
      const oid = record.slice(13);
      sha = /^[0-9a-f]{7,64}$/.test(oid) ? oid : null;
    } else if (record.startsWith("# branch.head ")) {
      const name = record.slice(14);
      branch = name === "(detached)" ? null : name;
    } else if (record.startsWith("1 ")) {
      // "1 XY sub mH mI mW hH hI path": a working-copy change (Y) means the content is not the index blob.
      if (record[3] !== ".") changed.add(fieldsAfter(record, 8));
    } else if (record.startsWith("u ")) changed.add(fieldsAfter(record, 10));
    else if (record.startsWith("? ")) untracked.push(record.slice(2));
  }
  const regular = (record: string) => record.startsWith("100644 ") || record.startsWith("100755 ");
  return {
    head: { sha, branch },
    indexDigest: createHash("sha256").update(index).digest("hex"),
    dirty: [...changed, ...untracked],
    all() {
      const paths: string[] = [];
      const blobs = new Map<string, string>();
      let previous = "";
      for (const record of index.split("\0")) {
        // "mode blob stage\tpath"; a path in conflict has up to three stages, listed together.
        const tab = record.indexOf("\t");
        if (tab < 0) continue;
        const path = record.slice(tab + 1);
        if (path === previous) continue;
        previous = path;
        if (!regular(record)) continue; // symbolic link or submodule: never read
        paths.push(path);
        if (!changed.has(path) && record.charCodeAt(tab - 1) === 48 /* stage 0 */)
          blobs.set(path, record.slice(7, tab - 2));
      }
      for (const path of untracked) paths.push(path);
      return { paths, blobs };
    },
    blobOf(path) {
      if (changed.has(path)) return undefined;
      const needle = `\t${path}\0`;
      for (let at = index.indexOf(needle); at >= 0; at = index.indexOf(needle, at + 1)) {
        const start = index.lastIndexOf("\0", at) + 1;
        const record = index.slice(start, at);
        // A whole record's head only (a path may itself hold a tab): "mode blob 0".
        if (/^\d{6} [0-9a-f]{40,64} 0$/.test(record))
          return regular(record) ? record.slice(7, -2) : undefined;
      }
      return undefined;
    },
  };
}

/** The rest of a space-separated record after `n` fields (a path may hold spaces). */
function fieldsAfter(record: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = record.indexOf(" ", at) + 1;
  return record.slice(at);
}

export interface CommitCitation {
  sha: string;
  ids: string[];
  /** The subject line, at most 200 characters. */
  subject: string;
}

const US = "\x1f";
const RS = "\x1e";

/** The last `limit` commits reachable from HEAD whose message cites an id. */
export async function commitsCiting(
  root: string,
  limit: number,
  matcher: CitationMatcher,
): Promise<CommitCitation[]> {
  if (limit <= 0) return [];
  let out: string;
  try {
    out = await git(root, ["log", `-n${limit}`, "--no-color", `--format=%H${US}%s${US}%b${RS}`]);
  } catch {
    return []; // no commit yet
  }
  const commits: CommitCitation[] = [];
  for (const record of out.split(RS)) {
    const [sha, subject = "", body = ""] = record.replace(/^\n+/, "").split(US);
    if (!sha) continue;
    const ids = matcher.idsIn(`${subject}\n${body}`).map((f) => f.id);
    if (ids.length > 0)
      commits.push({ sha, ids, subject: subject.length <= 200 ? subject : `${subject.slice(0, 199)}…` });
  }
  return commits;
}
