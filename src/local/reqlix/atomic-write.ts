/**
 * Atomic rewrite of a category file: the new content is written to a temp file in the same folder,
 * flushed, then renamed over the original, so a reader (or a crash) sees either the old file or the new
 * one, never a mix. The unchanged parts are streamed from the original in chunks: memory stays flat and
 * every byte outside the edits is kept as it was (line endings, trailing newline or not).
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, type FileHandle, open, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface Splice {
  /** Replace bytes [start, end) of the original with `insert`. */
  start: number;
  end: number;
  insert: string;
}

const CHUNK = 1 << 20;

function tempPrefix(path: string): string {
  return `.${basename(path)}.`;
}

/** Copies bytes [start, end) of `src` to `dst` at `at`; returns the position after them. */
async function copyRange(
  src: FileHandle,
  dst: FileHandle,
  start: number,
  end: number,
  at: number,
  buf: Buffer,
): Promise<number> {
  let pos = start;
  let out = at;
  while (pos < end) {
    const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, end - pos), pos);
    if (bytesRead === 0)
      throw new Error(`file shrank while being rewritten (expected ${end} bytes, got ${pos})`);
    out = await writeAll(dst, buf.subarray(0, bytesRead), out);
    pos += bytesRead;
  }
  return out;
}

async function writeAll(fh: FileHandle, data: Buffer, at: number): Promise<number> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await fh.write(data, done, data.length - done, at + done);
    done += bytesWritten;
  }
  return at + done;
}

/**
 * Writes `original` (which may be absent: `size` 0) with the splices applied. Call it holding the
 * category lock: the lock is what keeps two writers from renaming over each other's work. `beforeRename`
 * (the lock's `assertHeld`) may throw to leave the original untouched.
 *
 * When the first splice is in the second half of the file, the unchanged head is copied by the kernel
 * (`copyFile`: copy_file_range or a reflink, no trip through this process) and only the rest is written.
 */
export async function spliceFile(path: string, splices: Splice[], beforeRename?: () => void): Promise<void> {
  const ordered = [...splices].sort((a, b) => a.start - b.start);
  const temp = join(dirname(path), `${tempPrefix(path)}${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const src = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  try {
    const info = src ? await src.stat() : undefined;
    const size = info?.size ?? 0;
    const headEnd = ordered[0]?.start ?? size;
    const kernelHead = src !== undefined && headEnd >= size / 2 && headEnd > 0;
    let dst: FileHandle;
    let pos = 0;
    if (kernelHead) {
      await copyFile(path, temp, constants.COPYFILE_EXCL); // keeps the mode
      dst = await open(temp, "r+");
      pos = headEnd;
    } else {
      const mode = info ? info.mode & 0o777 : 0o644;
      dst = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
      await dst.chmod(mode); // the original's mode, whatever the umask
    }
    try {
      const buf = Buffer.allocUnsafe(CHUNK);
      let out = pos;
      for (const s of ordered) {
        if (s.start < pos || s.end < s.start || s.end > size)
          throw new Error("overlapping or out-of-range splice");
        if (src) out = await copyRange(src, dst, pos, s.start, out, buf);
        out = await writeAll(dst, Buffer.from(s.insert, "utf8"), out);
        pos = s.end;
      }
      if (src) out = await copyRange(src, dst, pos, size, out, buf);
      if (kernelHead) await dst.truncate(out); // the new content may be shorter than the copy
      await dst.sync();
    } finally {
      await dst.close();
    }
    // The last moment to refuse: the lock may have been taken over while the copy and fsync ran.
    beforeRename?.();
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  } finally {
    await src?.close();
  }
  // Make the rename itself durable.
  const dir = await open(dirname(path), "r").catch(() => undefined);
  if (dir)
    await dir
      .sync()
      .catch(() => {})
      .finally(() => dir.close());
}

/** Removes temp files a killed writer left for this category (call it holding the category lock). */
export async function removeLeftoverTemps(path: string): Promise<void> {
  const prefix = tempPrefix(path);
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((n) => n.startsWith(prefix) && n.endsWith(".tmp"))
      .map((n) => unlink(join(dirname(path), n)).catch(() => {})),
  );
}
