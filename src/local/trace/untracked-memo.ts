/**
 * The untracked files git does not ignore, remembered between scans and vouched for by directory mtimes
 * (what git's own untracked cache does): creating, deleting or renaming a file changes its folder's mtime,
 * so while every folder git could list has the mtime it had, and the index, every ignore file and every
 * config file git read are unchanged, the untracked files are the ones listed before. A rescan then stats
 * a few hundred folders instead of running `git ls-files -o`, which walks and matches every folder.
 *
 * What can change the answer, and is checked:
 * - the index (its stamp): a file added to or removed from it;
 * - the mtime of every folder under the root except `.git`, nested repositories and folders git reports
 *   wholly ignored (a superset of the folders git reads);
 * - size and mtime of every `.gitignore` in those folders, of `info/exclude`, of `core.excludesFile`, and of
 *   every config file git read (`git config --list --show-origin`) or could read (the user's and the
 *   repository's, even when absent), and the GIT_* / HOME / XDG_CONFIG_HOME environment.
 * A folder or file whose mtime is within the clock's granularity of the listing (racy.ts) makes the memo
 * unusable: the next scan lists again.
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { git, gitInput } from "./git.js";
import { hash64 } from "./hash.js";
import { isRacy } from "./racy.js";

export interface UntrackedMemo {
  /** The index stamp, environment and root the memo was made for. */
  key: string;
  untracked: string[];
  /** [path relative to the root ('' for the root), mtimeMs] of every folder watched. */
  dirs: [string, number][];
  /** [absolute path, "size:mtimeMs" or "-" when absent] of every ignore and config file. */
  files: [string, string][];
}

/** Past this many folders the memo is not kept (a stat per folder per scan would cost more than git). */
const MAX_DIRS = 20_000;

function memoKey(root: string, stamp: string, env: NodeJS.ProcessEnv): string {
  const relevant = Object.keys(env)
    .filter((k) => k.startsWith("GIT_") || k === "HOME" || k === "XDG_CONFIG_HOME")
    .sort()
    .map((k) => `${k}=${env[k]}`);
  return hash64(JSON.stringify([root, stamp, relevant]));
}

function fileStamp(path: string): string {
  const info = lstatSync(path, { throwIfNoEntry: false });
  return info ? `${info.size}:${info.mtimeMs}` : "-";
}

/** The untracked files the memo vouches for, or undefined when anything it depends on changed. */
export function recall(
  memo: UntrackedMemo | undefined,
  root: string,
  stamp: string | null,
): string[] | undefined {
  if (!memo || stamp === null || memo.key !== memoKey(root, stamp, process.env)) return undefined;
  for (const [path, was] of memo.files) if (fileStamp(path) !== was) return undefined;
  // A folder per iteration: the root and a relative path joined by hand (path.join normalises each, which
  // a new process runs unoptimised: ~1 µs a call).
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (const [rel, mtimeMs] of memo.dirs) {
    const info = lstatSync(rel === "" ? root : prefix + rel, { throwIfNoEntry: false });
    if (!info?.isDirectory() || info.mtimeMs !== mtimeMs) return undefined;
  }
  return memo.untracked;
}

/** Config files git may read even when they do not exist yet: creating one must be noticed. */
function candidateConfigs(gitDir: string, commonDir: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, ".config");
  return [
    join(commonDir, "config"),
    join(gitDir, "config.worktree"),
    join(commonDir, "info", "exclude"),
    join(home, ".gitconfig"),
    join(xdg, "git", "config"),
    join(xdg, "git", "ignore"),
    "/etc/gitconfig",
  ];
}

/**
 * Lists the untracked files with `git ls-files -o`, and makes a memo that vouches for them later: its git
 * commands run while the caller goes on (a cold scan reads files meanwhile); undefined when the memo
 * cannot be trusted or made.
 */
export async function listUntracked(
  root: string,
  stamp: string | null,
  repo: { dir: string; common: string } | null,
): Promise<{ untracked: string[]; memo: Promise<UntrackedMemo | undefined> }> {
  const listedAt = Date.now();
  const untracked = split(await git(root, ["ls-files", "-o", "--exclude-standard", "-z"]));
  const memo =
    stamp === null || repo === null
      ? Promise.resolve(undefined)
      : memoFor(root, stamp, repo, listedAt).then(
          (m) => m && { ...m, untracked },
          () => undefined,
        );
  return { untracked, memo };
}

async function memoFor(
  root: string,
  stamp: string,
  repo: { dir: string; common: string },
  listedAt: number,
): Promise<Omit<UntrackedMemo, "untracked"> | undefined> {
  const [ignoredOut, configOut] = await Promise.all([
    git(root, ["ls-files", "-o", "-i", "--exclude-standard", "--directory", "-z"]),
    git(root, ["config", "--list", "--show-origin", "-z"]),
  ]);
  // `--directory` also names folders that hold only ignored files: git still looks inside those. Only the
  // folders a pattern ignores themselves are never read.
  const candidates = split(ignoredOut).filter((p) => p.endsWith("/"));
  let ignoredDirs: string[] = [];
  if (candidates.length > 0) {
    const out = await gitInput(root, ["check-ignore", "--no-index", "-z", "--stdin"], candidates.join("\0"));
    if (out === undefined) return undefined;
    ignoredDirs = split(out);
  }
  return watch(root, stamp, repo, listedAt, ignoredDirs, configOut);
}

const split = (out: string) => out.split("\0").filter((p) => p !== "");

function watch(
  root: string,
  stamp: string,
  repo: { dir: string; common: string },
  listedAt: number,
  ignored: string[],
  configOut: string,
): Omit<UntrackedMemo, "untracked"> | undefined {
  const files = new Set(candidateConfigs(repo.dir, repo.common, process.env));
  // "file:<path>\0key\nvalue\0" records; other origins (command line, environment) are in the key.
  const records = configOut.split("\0");
  for (let i = 0; i + 1 < records.length; i += 2) {
    const origin = records[i] as string;
    if (origin.startsWith("file:")) {
      const path = origin.slice(5);
      files.add(isAbsolute(path) ? path : join(root, path));
    }
    const [key, value] = (records[i + 1] as string).split("\n");
    if (key?.toLowerCase() === "core.excludesfile" && value) {
      const home = process.env.HOME || homedir();
      const path = value.startsWith("~/") ? join(home, value.slice(2)) : value;
      files.add(isAbsolute(path) ? path : join(root, path));
    }
  }
  const ignoredDirs = new Set(ignored.map((p) => (p.endsWith("/") ? p.slice(0, -1) : p)));
  const dirs: [string, number][] = [];
  const pending = [""];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    const abs = rel === "" ? root : join(root, rel);
    const info = lstatSync(abs, { throwIfNoEntry: false });
    if (!info?.isDirectory() || isRacy(info.mtimeMs, listedAt)) return undefined;
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return undefined;
    }
    // A nested repository or submodule: git lists it as one entry and never looks inside.
    if (rel !== "" && entries.some((e) => e.name === ".git")) continue;
    dirs.push([rel, info.mtimeMs]);
    if (dirs.length > MAX_DIRS) return undefined;
    for (const e of entries) {
      const child = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.name === ".gitignore") files.add(join(abs, e.name));
      else if (e.isDirectory() && e.name !== ".git" && !ignoredDirs.has(child)) pending.push(child);
    }
  }
  const stamped: [string, string][] = [];
  for (const path of files) {
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (info && isRacy(info.mtimeMs, listedAt)) return undefined;
    stamped.push([path, info ? `${info.size}:${info.mtimeMs}` : "-"]);
  }
  return { key: memoKey(root, stamp, process.env), dirs, files: stamped };
}
