/**
 * The order of a git scan's files, which is the order of its citations: tracked files, then untracked ones,
 * each by path compared byte for byte (git's order: `git ls-files` lists both so). A cold scan visits them
 * so; a rescan updates its entries in place, where a path it adds lands last: it restores this order, so
 * that a rescan answers exactly as a cold scan, lists included.
 */

const LONE_UNITS = /[\ud800-\uffff]/;

/** Paths compared as git does, by their UTF-8 bytes (UTF-16 code units order the same below U+D800). */
export function comparePaths(a: string, b: string): number {
  if (LONE_UNITS.test(a) || LONE_UNITS.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The entries in git's order, or `entries` itself when they already are (checked in one pass). */
export function inGitOrder<T>(entries: Map<string, T>, untracked: ReadonlySet<string>): Map<string, T> {
  let previous: string | undefined;
  let previousUntracked = false;
  let sorted = true;
  for (const path of entries.keys()) {
    const isUntracked = untracked.has(path);
    if (
      previous !== undefined &&
      (previousUntracked
        ? !isUntracked || comparePaths(previous, path) > 0
        : !isUntracked && comparePaths(previous, path) > 0)
    ) {
      sorted = false;
      break;
    }
    previous = path;
    previousUntracked = isUntracked;
  }
  if (sorted) return entries;
  const paths = [...entries.keys()];
  const rank = (path: string) => (untracked.has(path) ? 1 : 0);
  paths.sort((a, b) => rank(a) - rank(b) || comparePaths(a, b));
  return new Map(paths.map((path) => [path, entries.get(path) as T]));
}

/**
 * Whether the paths both maps hold come in the same order in each. A delta saved against `before` keeps
 * `before`'s order for those paths, so a scan whose order moved a path (git rm --cached makes a tracked
 * file untracked, a commit the reverse) must write its entries whole.
 */
export function keepsOrder(before: Map<string, unknown>, after: Map<string, unknown>): boolean {
  const old = before.keys();
  for (const path of after.keys()) {
    if (!before.has(path)) continue;
    let next = old.next();
    while (!next.done && !after.has(next.value)) next = old.next();
    if (next.value !== path) return false;
  }
  return true;
}
