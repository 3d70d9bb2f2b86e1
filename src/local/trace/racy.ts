/** When a file's size and mtime cannot vouch for its content (git's "racily clean" problem). */

/**
 * Whether a file modified at `mtimeMs` and read at `readAt` (ms since the epoch) could be written again
 * with the same mtime: the kernel stamps files from a clock that moves in ticks (≤ 10 ms), and some file
 * systems keep whole (FAT: even) seconds. Such a file is never trusted on its size and mtime alone.
 */
export function isRacy(mtimeMs: number, readAt: number): boolean {
  const granularity = mtimeMs % 1000 === 0 ? 2000 : 20;
  return mtimeMs >= readAt - granularity;
}
