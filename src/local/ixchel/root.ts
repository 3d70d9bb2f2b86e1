/**
 * Repository targeting (US-003): `repo` is any path inside the repository, the root is the nearest ancestor
 * (or the path itself) that holds `.ixchel/`; without `repo`, the companion's working directory.
 * ixchel_init and the first ixchel_create make `.ixchel/` when there is none (hardening #16).
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { DomainError } from "../../core/errors.js";

export const IXCHEL_FOLDER = ".ixchel";

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The folder `repo` (or `cwd`) names: the path itself, or the folder of a file. */
function startFolder(repo: string | undefined, cwd: string): { start: string; folder: string } {
  const start = repo === undefined || repo.trim() === "" ? cwd : isAbsolute(repo) ? repo : resolve(cwd, repo);
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(start);
  } catch {
    throw DomainError.invalid(`repo: the path ${start} does not exist; pass a path inside the repository`, [
      { field: "repo", message: "path does not exist" },
    ]);
  }
  return { start, folder: stats.isDirectory() ? resolve(start) : dirname(resolve(start)) };
}

function nearestAbove(folder: string, has: (dir: string) => boolean): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    if (has(dir)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Returns the repository root for `repo` (AC-003.1), or for `cwd` when `repo` is missing (AC-003.2). */
export function findRepoRoot(repo: string | undefined, cwd: string): string {
  const { start, folder } = startFolder(repo, cwd);
  const root = nearestAbove(folder, (dir) => isDirectory(join(dir, IXCHEL_FOLDER)));
  if (root) return root;
  throw DomainError.notFound(
    `No ${IXCHEL_FOLDER}/ folder in ${start} or any folder above it. Call ixchel_init (or ixchel_create, which makes it) to start a knowledge graph there, or pass repo: a path inside a repository that has ${IXCHEL_FOLDER}/.`,
    start,
  );
}

/**
 * The root for `repo`, making `.ixchel/` when no folder above holds one: at the top of the git working
 * tree the path is in (the nearest folder above holding `.git`), else in the path's own folder. Idempotent.
 */
export function initRepoRoot(repo: string | undefined, cwd: string): { root: string; created: boolean } {
  const { folder } = startFolder(repo, cwd);
  const found = nearestAbove(folder, (dir) => isDirectory(join(dir, IXCHEL_FOLDER)));
  if (found) return { root: found, created: false };
  // An absolute repo is the client's explicit choice; a relative one may not climb out of the working
  // directory to create something there (`..` from the project is not the project).
  const out = relative(resolve(cwd), folder);
  if (
    repo !== undefined &&
    repo.trim() !== "" &&
    !isAbsolute(repo) &&
    (out.startsWith("..") || isAbsolute(out))
  ) {
    throw DomainError.invalid(
      `repo: "${repo}" leads outside the working directory ${cwd}, and there is no ${IXCHEL_FOLDER}/ there to use. To start a knowledge graph in ${folder}, pass its absolute path as repo.`,
      [{ field: "repo", message: "relative path outside the working directory" }],
    );
  }
  const root = nearestAbove(folder, (dir) => existsSync(join(dir, ".git"))) ?? folder;
  try {
    mkdirSync(join(root, IXCHEL_FOLDER));
  } catch (error) {
    // Another process made it a moment ago: the same outcome.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !isDirectory(join(root, IXCHEL_FOLDER)))
      throw error;
    return { root, created: false };
  }
  return { root, created: true };
}
