/** The few git facts the trace scanner needs, read through the `git` command (never a library). */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { open, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
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
  /** The index file's own checksum (its trailer), when it has one: equal stamps, equal index. */
  indexStamp: string | null;
  /** Tracked files git reports changed in the working copy (or in conflict), and untracked ones. */
  dirty: string[];
  /**
   * Tracked regular files (no symbolic link, no submodule) then untracked ones git does not ignore,
   * relative to `root`, `/`-separated; and the index blob id of each tracked file git reports unchanged
   * (its content is that blob, so a rescan need not stat it). Undefined when the index was not listed
   * (its stamp was the one given to `gitListing`).
   */
  all?: () => { paths: string[]; blobs: Map<string, string> };
  /** The unchanged blob ids, as in `all()`, of the given files (those git lists as regular files). */
  blobsOf(paths: string[]): Promise<Map<string, string>>;
}

/**
 * The checksum git writes at the end of the index (over all of it, stat data included, so any change to the
 * index changes it), read without running git. Null when it cannot be trusted: the index is elsewhere
 * (GIT_DIR, GIT_INDEX_FILE), `root` is not the top of a work tree, or git wrote no checksum
 * (index.skipHash).
 */
async function indexStamp(root: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (env.GIT_DIR || env.GIT_INDEX_FILE || env.GIT_WORK_TREE) return null;
  try {
    let gitDir = join(root, ".git");
    const info = await stat(gitDir);
    if (info.isFile()) {
      // A linked worktree or a submodule: ".git" names the real folder.
      const m = /^gitdir: (.+)$/m.exec(await readFile(gitDir, "utf8"));
      if (!m?.[1]) return null;
      gitDir = resolve(root, m[1].trim());
    }
    const handle = await open(join(gitDir, "index"), "r");
    try {
      const { size, mtimeMs } = await handle.stat();
      if (size < 12 + 32) return null;
      const tail = Buffer.alloc(32);
      await handle.read(tail, 0, 32, size - 32);
      // SHA-1 repositories end with 20 bytes, SHA-256 ones with 32: the last 32 bytes hold either.
      if (tail.subarray(12).every((b) => b === 0)) return null; // no checksum written
      return `${size}:${mtimeMs}:${tail.toString("hex")}`;
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/**
 * The working copy as git sees it: `git status --porcelain=v2` (what differs from the index, untracked
 * files, HEAD and branch; git stats the files itself, in parallel) and `git ls-files -s` (the index, with
 * blob ids) unless the index is byte for byte the one of `known` (its stamp): then only the blobs a rescan
 * asks for are listed. `git status` starts at once, so the caller can load its cache (and settle `known`)
 * meanwhile. Undefined when `root` is not in a git work tree (or git is missing).
 */
export async function gitListing(
  root: string,
  known?: Promise<{ stamp: string; digest: string } | undefined>,
): Promise<GitListing | undefined> {
  const statusArgs = [
    "status",
    "--porcelain=v2",
    "-z",
    "--branch",
    "--untracked-files=all",
    "--ignore-submodules=all",
    "--no-renames",
  ];
  let index: string | undefined;
  let status: string;
  let stamp: string | null;
  let reused: { stamp: string; digest: string } | undefined;
  try {
    // The stamp is read before git runs: a change to the index while it runs is seen by the next scan.
    stamp = await indexStamp(root, process.env);
    const statusRun = git(root, statusArgs);
    statusRun.catch(() => {}); // awaited below; not an unhandled rejection while `known` settles
    const last = await known;
    reused = last && stamp !== null && stamp === last.stamp ? last : undefined;
    [index, status] = await Promise.all([
      reused ? undefined : git(root, ["ls-files", "-s", "-z"]),
      statusRun,
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
  const blobsIn = (listing: string, wanted: Set<string>) => {
    const blobs = new Map<string, string>();
    for (const record of listing.split("\0")) {
      const tab = record.indexOf("\t");
      if (tab < 0) continue;
      const path = record.slice(tab + 1);
      // "mode blob stage\tpath"; a path in conflict (stages 1-3) has no single blob.
      if (wanted.has(path) && !changed.has(path) && regular(record) && record.charCodeAt(tab - 1) === 48)
        blobs.set(path, record.slice(7, tab - 2));
    }
    return blobs;
  };
  const listed = index;
  const head = { sha, branch };
  const dirty = [...changed, ...untracked];
  if (listed === undefined) {
    return {
      head,
      indexDigest: (reused as { digest: string }).digest,
      indexStamp: stamp,
      dirty,
      async blobsOf(paths) {
        const fresh = new Set(untracked);
        const wanted = new Set(paths.filter((p) => !changed.has(p) && !fresh.has(p)));
        if (wanted.size === 0) return new Map();
        // Literal pathspecs: a path is never read as a pattern. Many paths: the whole index (a bounded
        // command line).
        const only =
          wanted.size <= 500 ? ["--literal-pathspecs", "ls-files", "-s", "-z", "--", ...wanted] : [];
        const out = await git(root, only.length > 0 ? only : ["ls-files", "-s", "-z"]);
        return blobsIn(out, wanted);
      },
    };
  }
  return {
    head,
    indexDigest: createHash("sha256").update(listed).digest("hex"),
    indexStamp: stamp,
    dirty,
    all() {
      const paths: string[] = [];
      const blobs = new Map<string, string>();
      let previous = "";
      for (const record of listed.split("\0")) {
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
    async blobsOf(paths) {
      return blobsIn(listed, new Set(paths));
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
