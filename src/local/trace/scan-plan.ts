/**
 * Which paths a scan visits: every file (a walk, or git's listing when the index changed), or, while the
 * index is byte for byte the one of the last scan, only the files git reports now or reported then, with
 * the blob git vouches for.
 */
import type { ScanCache } from "./cache.js";
import type { GitChanges } from "./git-changes.js";
import { walkFiles } from "./walk.js";

/** The files to visit and what git says of each. */
export interface Plan {
  paths: Iterable<string>;
  /** The index blob of a path git vouches is unchanged (its content is that blob). */
  blobOf(path: string): string | undefined;
  /** False for a visited path that is gone from git's view (deleted or ignored since). */
  listed(path: string, blob: string | undefined): boolean;
}

export async function plan(root: string, cache: ScanCache, changes: GitChanges | undefined): Promise<Plan> {
  if (!changes) return { paths: await walkFiles(root), blobOf: () => undefined, listed: () => true };
  const modified = new Set(changes.modified);
  const untracked = new Set(changes.untracked);
  const index = changes.index;
  if (index) {
    // The index changed (or there is no cache): every tracked file and every untracked one.
    return {
      paths: [...index.paths, ...changes.untracked],
      blobOf: (path) => (modified.has(path) ? undefined : index.blobs.get(path)),
      listed: () => true,
    };
  }
  // The index is byte for byte the one of the last scan, so every tracked file git does not report modified
  // has the content the cache holds for it: only the files reported now or then (and unreadable and racy
  // ones) can differ.
  const visit = new Set([
    ...(cache.listing?.dirty ?? []),
    ...changes.modified,
    ...changes.untracked,
    ...(cache.unreadable ?? []),
    ...(cache.racy ?? []),
  ]);
  // Reported before but not now: clean in the index (its blob), or gone (deleted or ignored since).
  const quiet = [...visit].filter((path) => !modified.has(path) && !untracked.has(path));
  const blobs = await changes.blobsOf(quiet);
  return {
    paths: visit,
    blobOf: (path) => blobs.get(path),
    listed: (path, blob) => blob !== undefined || modified.has(path) || untracked.has(path),
  };
}
