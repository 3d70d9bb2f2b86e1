/**
 * The first look `git-changes.ts` takes at a working copy: the instant before git looks at any file, the
 * index file's stamp, and `git diff-files` (a stat of every tracked file: the longest step of a rescan)
 * started. `reqlix-mcp trace` starts it before Node compiles the scanner (bin-reqlix-mcp.ts), so that git
 * works while the process loads; the scan takes that run over when it scans the same folder, else starts
 * its own. The outer bundle and the scanner's part each have a copy of this module: the run is handed over
 * on `globalThis`.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { git } from "./git.js";

/** The repository folder of the work tree and its common folder (refs of a linked worktree). */
export interface GitDirs {
  dir: string;
  common: string;
}

export interface GitProbe {
  /** The folder probed (an absolute, real path). */
  root: string;
  /** `Date.now()` before git looked at any file: a file modified after it has a later mtime. */
  probedAt: number;
  dirs: GitDirs | null;
  /** The index file's own checksum (with its size and mtime), or null when it cannot be trusted. */
  stamp: string | null;
  /** `git diff-files`: the tracked paths whose stat data differs from the index, NUL-terminated. */
  modified: Promise<string>;
}

/**
 * The repository folder of a work tree whose top is `root`, and its common folder (a linked worktree keeps
 * refs there); null when git's files cannot be read directly: the index or repository is elsewhere
 * (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE) or `root` is not the top of a work tree.
 */
export function gitDirs(root: string, env: NodeJS.ProcessEnv): GitDirs | null {
  if (env.GIT_DIR || env.GIT_INDEX_FILE || env.GIT_WORK_TREE || env.GIT_COMMON_DIR) return null;
  // Synchronous: a few small reads that decide how git is run, before it is started (each promise-based
  // read would go through the thread pool and delay git's start).
  try {
    let dir = join(root, ".git");
    if (statSync(dir).isFile()) {
      // A linked worktree or a submodule: ".git" names the real folder.
      const m = /^gitdir: (.+)$/m.exec(readFileSync(dir, "utf8"));
      if (!m?.[1]) return null;
      dir = resolve(root, m[1].trim());
    }
    let common = dir;
    try {
      common = resolve(dir, readFileSync(join(dir, "commondir"), "utf8").trim());
    } catch {}
    return { dir, common };
  } catch {
    return null;
  }
}

/**
 * The checksum git writes at the end of the index (over all of it, stat data included, so any change to the
 * index changes it), read without running git. Null when it cannot be trusted (no readable repository
 * folder, or git wrote no checksum: index.skipHash).
 */
export function indexStamp(gitDir: string | undefined): string | null {
  if (!gitDir) return null;
  try {
    const fd = openSync(join(gitDir, "index"), "r");
    try {
      const { size, mtimeMs } = fstatSync(fd);
      if (size < 12 + 32) return null;
      const tail = Buffer.alloc(32);
      readSync(fd, tail, 0, 32, size - 32);
      // SHA-1 repositories end with 20 bytes, SHA-256 ones with 32: the last 32 bytes hold either.
      if (tail.subarray(12).every((b) => b === 0)) return null; // no checksum written
      return `${size}:${mtimeMs}:${tail.toString("hex")}`;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** Takes the instant, then the stamp, then starts git: a change made meanwhile is seen by the next scan. */
export function startProbe(root: string): GitProbe {
  const probedAt = Date.now();
  const dirs = gitDirs(root, process.env);
  const stamp = indexStamp(dirs?.dir);
  const modified = git(root, ["diff-files", "--relative", "--name-only", "-z", "--ignore-submodules=all"]);
  modified.catch(() => {}); // awaited by the scan; not an unhandled rejection meanwhile
  return { root, probedAt, dirs, stamp, modified };
}

const HANDOFF = Symbol.for("reqlix.trace.earlyProbe");
type Handoff = { [HANDOFF]?: GitProbe };

/**
 * For `reqlix-mcp trace <argv>`: starts the probe of the folder the command will scan (its `--root`, else
 * `cwd`) and leaves it for the scan. Nothing when the arguments ask for no scan (help) or name no folder
 * that exists: the command then reports what is wrong, as without it.
 */
export function startEarlyProbe(argv: readonly string[], cwd: string): void {
  let root = cwd;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") return;
    if (arg === "--root") root = argv[++i] ?? "";
    else if (arg.startsWith("--root=")) root = arg.slice("--root=".length);
  }
  if (root === "") return;
  let real: string;
  try {
    real = realpathSync(resolve(cwd, root));
  } catch {
    return;
  }
  (globalThis as Handoff)[HANDOFF] = startProbe(real);
}

/** The probe started early for `root`, handed over once; undefined when there is none for it. */
export function takeEarlyProbe(root: string): GitProbe | undefined {
  const probe = (globalThis as Handoff)[HANDOFF];
  if (probe?.root !== root) return undefined;
  delete (globalThis as Handoff)[HANDOFF];
  return probe;
}
