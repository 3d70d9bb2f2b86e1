/**
 * The commits citing requirement ids, read through the `git` command (never a library); what changed in the
 * working copy is `git-changes.ts`.
 */
import { execFile } from "node:child_process";
import type { CitationMatcher } from "./citations.js";

/** Runs git in `root` without taking optional locks (a scan never writes the index). */
export function git(root: string, args: string[]): Promise<string> {
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
 * Runs git with `input` on its stdin; its stdout when it exits 0 or 1 (check-ignore's "none matched"),
 * else undefined.
 */
export function gitInput(root: string, args: string[], input: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = execFile(
      "git",
      ["-C", root, ...args],
      { maxBuffer: 1 << 30, encoding: "utf8", env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
      (error, stdout) => resolve(!error || error.code === 1 ? stdout : undefined),
    );
    child.stdin?.on("error", () => {});
    child.stdin?.end(input);
  });
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
