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

/**
 * Tracked files plus untracked ones git does not ignore, relative to `root`, `/`-separated; undefined when
 * `root` is not in a git work tree (or git is missing). One process: its cost is paid on every rescan.
 */
export async function gitFiles(root: string): Promise<string[] | undefined> {
  let out: string;
  try {
    out = await git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"]);
  } catch {
    return undefined;
  }
  return out.split("\0").filter((p) => p.length > 0);
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
