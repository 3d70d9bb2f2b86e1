/**
 * Reading the files a scan must search. A cold scan spends about as much time in the kernel (open, fstat,
 * read, close of every file) as in matching, so when there are many files a second thread reads them ahead
 * into batches handed over without a copy (transferred buffers) while this thread matches: the two cores
 * `git grep` uses by default, used the same way. Few files, one core or a thread that cannot start: the same
 * reads inline. Both paths run one function, `readFileInto`, so what is read is the same either way.
 */
import * as fs from "node:fs";
import { availableParallelism } from "node:os";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { type Citation, type CitationKind, type CitationMatcher, citationKernel } from "./citations.js";

/** What reading one file gave (numbers: the reader thread sends them in a byte array). */
export const ReadStatus = { Read: 0, Binary: 1, TooLarge: 2, Unreadable: 3, NotFile: 4 } as const;
export type ReadStatus = (typeof ReadStatus)[keyof typeof ReadStatus];

/** Numbers kept per file: size, mtimeMs, ctimeMs, ino (from the open descriptor), length read. */
export const STAMP = 5;

/** Where a read goes: `reserve(n)` makes room for n bytes at `used`, which a kept read advances. */
export interface ReadTarget {
  buf: Uint8Array;
  used: number;
  reserve(bytes: number): void;
}

/**
 * Reads one file, never through a symbolic link (O_NOFOLLOW; O_NONBLOCK so a FIFO cannot hang the scan),
 * into `t.buf` at `t.used`; its stamp goes to `s[at…at+4]` (not for Unreadable and NotFile). A file with a
 * NUL in its first 8000 bytes is binary, as git decides it, and its bytes are not kept.
 * Self-contained on purpose (nothing but its parameters and built-ins): the reader thread runs its source.
 */
export function readFileInto(
  f: typeof fs,
  path: string,
  cap: number,
  t: ReadTarget,
  s: Float64Array,
  at: number,
): ReadStatus {
  let fd: number;
  try {
    fd = f.openSync(path, f.constants.O_RDONLY | f.constants.O_NOFOLLOW | f.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: string } | null)?.code;
    return code === "ELOOP" || code === "ENOENT" || code === "EISDIR" ? 4 : 3;
  }
  try {
    const info = f.fstatSync(fd);
    if (!info.isFile()) return 4;
    const size = info.size;
    s[at] = size;
    s[at + 1] = info.mtimeMs;
    s[at + 2] = info.ctimeMs;
    s[at + 3] = info.ino;
    s[at + 4] = 0;
    if (size > cap) return 2;
    t.reserve(size);
    const buf = t.buf;
    const start = t.used;
    let got = 0;
    while (got < size) {
      const n = f.readSync(fd, buf, start + got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    s[at + 4] = got;
    if (buf.subarray(start, start + Math.min(got, 8000)).includes(0)) return 1;
    t.used = start + got;
    return 0;
  } catch {
    return 3;
  } finally {
    f.closeSync(fd);
  }
}

/** One file as read: its status, stamp (see STAMP) and, when read, its bytes (valid until the next file). */
export interface FileRead {
  status: ReadStatus;
  stamp: Float64Array;
  at: number;
  /** Empty when the thread matched the file already (`citations`). */
  bytes: Buffer;
  /** The file's citations, when the thread matched it. */
  citations?: Citation[];
}

/** What the thread needs to match the files it reads as the main thread would. */
export interface MatchJob {
  matcher: CitationMatcher;
  /** Per path: the relative path the citations name, and its kind. */
  rel: readonly string[];
  kinds: readonly CitationKind[];
}

/** Reads `paths[from…to)` in order, inline. */
function readInline(
  paths: readonly string[],
  from: number,
  to: number,
  cap: number,
  each: (index: number, file: FileRead) => void,
): void {
  const stamp = new Float64Array(STAMP);
  const target: ReadTarget = {
    buf: inlineBuffer,
    used: 0,
    reserve(bytes) {
      if (this.buf.length < bytes) {
        inlineBuffer = Buffer.allocUnsafe(bytes);
        this.buf = inlineBuffer;
      }
    },
  };
  for (let i = from; i < to; i++) {
    target.used = 0;
    const status = readFileInto(fs, paths[i] as string, cap, target, stamp, 0);
    const length = status === ReadStatus.Read ? (stamp[4] as number) : 0;
    each(i, { status, stamp, at: 0, bytes: Buffer.from(target.buf.buffer, target.buf.byteOffset, length) });
  }
}
let inlineBuffer = Buffer.allocUnsafe(1 << 20);

/** Files per chunk: the unit either thread claims. */
const CHUNK = 64;
/** The main thread pauses (yields to other work) every this many chunks it reads: 256 files. */
const PAUSE_CHUNKS = 4;
/** Chunks the thread may have read and not yet handed over (bounds memory). */
const AHEAD = 8;

// Shared counters (Int32Array): the next chunk to claim, stop, chunks the main thread consumed from the
// reader, chunks the reader posted.
const NEXT = 0;
const STOP = 1;
const CONSUMED = 2;
const POSTED = 3;

/** A chunk read by the thread: its files' statuses, stamps and bytes one after the other. */
interface Chunk {
  chunk: number;
  status: Uint8Array;
  stamps: Float64Array;
  /** Per file, when the thread matched them. */
  cites?: Citation[][];
  buf: ArrayBuffer;
  /** Where the chunk's bytes start in `buf`. */
  offset: number;
}

// The reader thread: claims chunks from the shared counter (as the main thread does), reads each into one
// buffer and posts it on its port, transferred; waits (it alone) when AHEAD chunks are not yet consumed.
const READER_SOURCE = `"use strict";
const { parentPort } = require("node:worker_threads");
const fs = require("node:fs");
var __name = (f) => f; // a transpiler keeping function names may have wrapped some in it
const readFileInto = (${readFileInto.toString()});
const { CitationMatcher } = (${citationKernel.toString()})();
parentPort.once("message", ({ paths, cap, shared: sab, port, match }) => {
  const matcher = match && new CitationMatcher(match.hosted, match.reqlix);
  const shared = new Int32Array(sab);
  const chunks = Math.ceil(paths.length / ${CHUNK});
  const s = new Float64Array(${STAMP});
  for (let posted = 0; ; posted++) {
    while (posted - Atomics.load(shared, ${CONSUMED}) >= ${AHEAD} && Atomics.load(shared, ${STOP}) === 0)
      Atomics.wait(shared, ${CONSUMED}, Atomics.load(shared, ${CONSUMED}), 50);
    if (Atomics.load(shared, ${STOP}) !== 0) break;
    const chunk = Atomics.add(shared, ${NEXT}, 1);
    if (chunk >= chunks) break;
    const end = Math.min(paths.length, (chunk + 1) * ${CHUNK});
    const status = new Uint8Array(end - chunk * ${CHUNK});
    const stamps = new Float64Array(status.length * ${STAMP});
    // Not zero-filled (allocUnsafeSlow: its own ArrayBuffer, transferable): every byte handed over is read.
    const t = { buf: Buffer.allocUnsafeSlow(1 << 20), used: 0, reserve(n) {
      if (t.used + n <= t.buf.length) return;
      const grown = Buffer.allocUnsafeSlow(Math.max(t.buf.length * 2, t.used + n));
      grown.set(t.buf.subarray(0, t.used));
      t.buf = grown;
    } };
    const cites = matcher ? [] : undefined;
    for (let i = chunk * ${CHUNK}, k = 0; i < end; i++, k++) {
      const start = t.used;
      status[k] = readFileInto(fs, paths[i], cap, t, s, 0);
      stamps.set(s, k * ${STAMP});
      if (!matcher) continue;
      // Matched here: only the citations go back, and the bytes' room is used again.
      cites.push(status[k] === 0 ? matcher.scan(t.buf.subarray(start, t.used), match.rel[i], match.kinds[i]) : []);
      t.used = start;
    }
    const buf = t.buf.buffer;
    port.postMessage({ chunk, status, stamps, cites, buf, offset: t.buf.byteOffset }, [status.buffer, stamps.buffer, buf]);
    Atomics.add(shared, ${POSTED}, 1);
    Atomics.notify(shared, ${POSTED});
  }
  port.close();
});
`;

/**
 * Reads files for a scan: with a reader thread when one could start, else inline. The thread only helps:
 * both threads claim chunks of files from one shared counter, the main thread takes the thread's chunks when
 * they are there and otherwise reads the next chunk itself, so it never waits for the thread (a thread starved
 * of CPU on a busy machine costs nothing) except for the chunks the thread holds at the very end.
 */
export class FileReader {
  private worker: Worker | undefined;
  private failed = false;
  /** Chunks the thread delivered (diagnostics and tests). */
  threadChunks = 0;

  private constructor(private readonly share = true) {}

  /**
   * Starts the thread when the machine has a second core; reads are inline otherwise. `share: false` (for
   * tests): the main thread reads nothing while the thread runs, so the thread reads every chunk.
   */
  static start(options: { share?: boolean } = {}): FileReader {
    const reader = new FileReader(options.share ?? true);
    if (availableParallelism() < 2) return reader;
    try {
      // No execArgv: the thread runs plain CommonJS and needs none of the parent's loaders.
      const worker = new Worker(READER_SOURCE, { eval: true, execArgv: [] });
      worker.unref();
      worker.on("error", () => {
        reader.failed = true;
      });
      worker.on("exit", () => {
        reader.failed = true;
      });
      reader.worker = worker;
    } catch {}
    return reader;
  }

  /** No thread: `read` reads inline. */
  static inline(): FileReader {
    return new FileReader();
  }

  /**
   * Reads `paths` (absolute) and gives each file to `each` (not in order: by index), calling `pause`
   * between chunks (the caller yields to other work there, and may throw to cancel). Ends the thread.
   */
  async read(
    paths: readonly string[],
    cap: number,
    each: (index: number, file: FileRead) => void,
    pause: () => Promise<void>,
    match?: MatchJob,
  ): Promise<void> {
    const worker = this.worker;
    const chunks = Math.ceil(paths.length / CHUNK);
    if (!worker || this.failed) {
      this.close();
      for (let c = 0; c < chunks; c++) {
        readInline(paths, c * CHUNK, Math.min(paths.length, (c + 1) * CHUNK), cap, each);
        if (c % PAUSE_CHUNKS === PAUSE_CHUNKS - 1) await pause();
      }
      return;
    }
    const shared = new Int32Array(new SharedArrayBuffer(16));
    const { port1, port2 } = new MessageChannel();
    const done = new Uint8Array(chunks); // 1: read by either thread
    const take = (message: Chunk) => {
      const bytes = Buffer.from(message.buf, message.offset);
      const first = message.chunk * CHUNK;
      let offset = 0;
      for (let k = 0; k < message.status.length; k++) {
        const status = message.status[k] as ReadStatus;
        const citations = message.cites?.[k];
        const length =
          status === ReadStatus.Read && !citations ? (message.stamps[k * STAMP + 4] as number) : 0;
        each(first + k, {
          status,
          stamp: message.stamps,
          at: k * STAMP,
          bytes: bytes.subarray(offset, offset + length),
          citations,
        });
        offset += length;
      }
      done[message.chunk] = 1;
      this.threadChunks++;
      Atomics.add(shared, CONSUMED, 1);
      Atomics.notify(shared, CONSUMED);
    };
    const drain = () => {
      for (let m = receiveMessageOnPort(port1); m; m = receiveMessageOnPort(port1)) take(m.message as Chunk);
    };
    try {
      const job = match && {
        hosted: match.matcher.hostedPrefixes,
        reqlix: match.matcher.reqlixPrefixes,
        rel: match.rel,
        kinds: match.kinds,
      };
      worker.postMessage({ paths, cap, shared: shared.buffer, port: port2, match: job }, [port2]);
      let own = 0; // chunks this thread read
      while (!this.share && !this.failed && done.includes(0)) {
        const posted = Atomics.load(shared, POSTED);
        drain();
        if (done.includes(0)) Atomics.wait(shared, POSTED, posted, 5);
        await pause();
      }
      for (;;) {
        drain();
        const chunk = Atomics.add(shared, NEXT, 1);
        if (chunk >= chunks) break;
        readInline(paths, chunk * CHUNK, Math.min(paths.length, (chunk + 1) * CHUNK), cap, each);
        done[chunk] = 1;
        if (++own % PAUSE_CHUNKS === 0) await pause();
      }
      // Every chunk is claimed: the thread's posted chunks are on the port; the one it may still be reading
      // is worth a few milliseconds' wait, not more (reading it here takes about as long).
      for (let waited = 0; waited < 10 && !this.failed && done.includes(0); waited++) {
        const posted = Atomics.load(shared, POSTED);
        drain();
        if (done.includes(0)) Atomics.wait(shared, POSTED, posted, 1);
      }
      drain();
    } finally {
      Atomics.store(shared, STOP, 1);
      Atomics.notify(shared, CONSUMED);
      port1.close();
      this.close();
    }
    // Chunks the thread claimed and did not deliver in time (slow, failed): read here.
    for (let c = 0; c < chunks; c++) {
      if (done[c]) continue;
      readInline(paths, c * CHUNK, Math.min(paths.length, (c + 1) * CHUNK), cap, each);
      await pause();
    }
  }

  /** Ends the thread (idempotent). */
  close(): void {
    if (!this.worker) return;
    void this.worker.terminate();
    this.worker = undefined;
  }
}
