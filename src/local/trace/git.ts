/** The few git facts the trace scanner needs, read through the `git` command (never a library). */
import { execFile } from "node:child_process";
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
  /**
   * Tracked files (regular files only: no symbolic link, no submodule) plus untracked ones git does not
   * ignore, relative to `root`, `/`-separated, in index order then untracked.
   */
  paths: string[];
  /**
   * The index's blob id of each tracked file whose working copy git reports unchanged: its content is that
   * blob, so a rescan need not stat it. Files changed in the working copy, untracked or in conflict have none.
   */
  blobs: Map<string, string>;
  head: { sha: string | null; branch: string | null };
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
    const mode = record.slice(0, 6);
    if (mode !== "100644" && mode !== "100755") continue; // symbolic link or submodule: never read
    paths.push(path);
    if (!changed.has(path) && record.charCodeAt(tab - 1) === 48 /* stage 0 */)
      blobs.set(path, record.slice(7, tab - 2));
  }
  for (const path of untracked) paths.push(path);
  return { paths, blobs, head: { sha, branch } };
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

/** HEAD's commit and branch (null before the first commit, or on a detached HEAD for the branch). */
/** HEAD's commit and branch (null before the first commit; branch null on a detached HEAD). */
export async function headCommit(root: string): Promise<{ sha: string | null; branch: string | null }> {
  try {
    const [sha = "", refs = ""] = (await git(root, ["log", "-1", "--no-color", "--format=%H%n%D"])).split(
      "\n",
    );
    const branch = /^HEAD -> ([^,]+)/.exec(refs)?.[1] ?? null;
    return { sha: sha.trim() || null, branch };
  } catch {
    return { sha: null, branch: null };
  }
}
