/**
 * Repository targeting (US-003): `repo` is any path inside the repository, the root is the nearest ancestor
 * (or the path itself) that holds `.ixchel/`; without `repo`, the companion's working directory.
 */
import { statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { DomainError } from "../../core/errors.js";

export const IXCHEL_FOLDER = ".ixchel";

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Returns the repository root for `repo` (AC-003.1), or for `cwd` when `repo` is missing (AC-003.2). */
export function findRepoRoot(repo: string | undefined, cwd: string): string {
  const start = repo === undefined || repo.trim() === "" ? cwd : isAbsolute(repo) ? repo : resolve(cwd, repo);
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(start);
  } catch {
    throw DomainError.invalid(`repo: the path ${start} does not exist; pass a path inside the repository`, [
      { field: "repo", message: "path does not exist" },
    ]);
  }
  let dir = stats.isDirectory() ? resolve(start) : dirname(resolve(start));
  for (;;) {
    if (isDirectory(join(dir, IXCHEL_FOLDER))) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw DomainError.notFound(
    `No ${IXCHEL_FOLDER}/ folder in ${start} or any folder above it. Pass repo: a path inside a repository that has ${IXCHEL_FOLDER}/, or create ${IXCHEL_FOLDER}/ at the repository root.`,
    start,
  );
}
