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

/** True when `root` is inside a git work tree (and git is installed). */
export async function isGitWorkTree(root: string): Promise<boolean> {
  try {
    return (await git(root, ["rev-parse", "--is-inside-work-tree"])).trim() === "true";
  } catch {
    return false;
  }
}

/** Tracked files plus untracked ones git does not ignore, relative to `root`, `/`-separated. */
export async function gitFiles(root: string): Promise<string[]> {
  const out = await git(root, [
    "ls-files",
    "-z",
    "--cached",
    "--others",
    "--exclude-standard",
    "--deduplicate",
  ]);
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

export async function headCommit(root: string): Promise<{ sha: string | null; branch: string | null }> {
  let sha: string | null = null;
  let branch: string | null = null;
  try {
    sha = (await git(root, ["rev-parse", "HEAD"])).trim() || null;
  } catch {}
  try {
    const b = (await git(root, ["symbolic-ref", "--quiet", "--short", "HEAD"])).trim();
    branch = b || null;
  } catch {}
  return { sha, branch };
}
