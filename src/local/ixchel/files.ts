/**
 * File system helpers of the ixchel toolset: the walk over `.ixchel/`, content hashes and atomic writes.
 * Every write lands through a temp file in the same folder and a rename (or link), so a reader never sees
 * half a file.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  type Dirent,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

export const CACHE_FOLDER = ".cache";

/**
 * Every `*.md` file under `dir`, as `/`-separated paths relative to it, sorted. Hidden entries (the cache,
 * temp files) and symbolic links are skipped: a link could lead the tools to read or write outside `.ixchel/`.
 */
export function listMarkdown(dir: string): string[] {
  const out: string[] = [];
  const visit = (abs: string, rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (error) {
      // A sub-folder another process removed between the two reads (never the root itself).
      if (rel !== "" && (error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      // `<entity>.md.lock/` is a writer's cross-process lock (local/file-lock.ts), not content.
      if (entry.isDirectory() && entry.name.endsWith(".md.lock")) continue;
      if (entry.isDirectory()) visit(join(abs, entry.name), childRel);
      else if (entry.isFile() && entry.name.endsWith(".md")) out.push(childRel);
    }
  };
  visit(dir, "");
  return out.sort();
}

/**
 * A file's bytes and the stat of what was read, in the system calls a plain read makes anyway (open, fstat,
 * read, close): a cold sync reads every file, and a separate stat per file cost a quarter of it. With
 * `into`, a file that fits in into[offset…] is read there (bytes is then a view of it): the sync reads many
 * files into one buffer.
 */
export function readWithStats(path: string, into?: Buffer, offset = 0): { bytes: Buffer; stats: Stats } {
  const fd = openSync(path, "r");
  try {
    const stats = fstatSync(fd);
    const bytes =
      into && stats.size <= into.length - offset
        ? into.subarray(offset, offset + stats.size)
        : Buffer.allocUnsafe(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break; // shrunk since the fstat: keep what is there, the next sync sees the new size
      read += n;
    }
    return { bytes: read === bytes.length ? bytes : bytes.subarray(0, read), stats };
  } finally {
    closeSync(fd);
  }
}

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Replaces (or creates) `path` atomically. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, data, { flag: "wx" });
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Creates `path` atomically and only if it does not exist yet (throws EEXIST otherwise). */
export function createFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, data, { flag: "wx" });
    linkSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}
