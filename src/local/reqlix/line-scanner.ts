/**
 * Streaming readers over a category file (G.GCH.3, G.GR.3, G.GRQ.4): the file is read in fixed chunks
 * and only the current chunk (plus one unfinished line) is held, so memory does not grow with file size.
 *
 * `scanHeadings` is the fast path: it looks only at lines that can matter (lines starting with `#`, and
 * lines holding ``` or ~~~ that may open or close a fence) and reports chapter and requirement headings
 * outside fences with their byte offsets. `scanLines` hands every line to the caller (search).
 */
import type { FileHandle } from "node:fs/promises";
import { FenceTracker, type HeadingLevel, trimBlank } from "./markdown.js";

const CHUNK = 1 << 20;
/** Chunk size for reads; tests lower it to put line and fence boundaries across chunks. */
let chunkSize = CHUNK;
export function setChunkSizeForTests(bytes: number): void {
  chunkSize = bytes;
}
const NL = 0x0a;
const CR = 0x0d;
const HASH = 0x23;
const NL_HASH = Buffer.from("\n#");
const BACKTICKS = Buffer.from("```");
const TILDES = Buffer.from("~~~");
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface HeadingLine {
  level: HeadingLevel;
  /** Heading text, trimmed (without the `#`s). */
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just after the line's end of line (or end of file). */
  end: number;
}

export interface ScanSummary {
  size: number;
  /** The file's line ending, from its first line ("\n" when it has none). */
  eol: "\n" | "\r\n";
  /** Bytes of a UTF-8 byte-order mark at the start (0 or 3). */
  bomLength: number;
  /** When the file ends inside a fenced block: the line that opened it. */
  openFence: string | undefined;
  /** True when the visitor stopped the scan early. */
  stopped: boolean;
}

/** Return `true` to stop the scan. */
// biome-ignore lint/suspicious/noConfusingVoidType: visitors that never stop return nothing
export type HeadingVisitor = (heading: HeadingLine) => boolean | undefined | void;

/**
 * Read buffers are reused across scans: allocating 2 MiB of external memory per scan makes V8 collect
 * garbage for it every time (a big share of a 100 MB scan) and raises the peak RSS.
 */
const pool: Buffer[] = [];
function takeBuffer(): Buffer {
  const b = pool.pop();
  return b && b.length === chunkSize * 2 ? b : Buffer.allocUnsafe(chunkSize * 2);
}
function giveBuffer(b: Buffer): void {
  if (b.length === chunkSize * 2 && pool.length < 4) pool.push(b);
}

interface ChunkState {
  buf: Buffer;
  /** File offset of buf[0]. */
  base: number;
  eol: "\n" | "\r\n" | undefined;
  bomLength: number;
}

/** Reads the file chunk by chunk, handing complete lines (region [0, limit) of the buffer) to `region`. */
async function readRegions(
  fh: FileHandle,
  region: (state: ChunkState, limit: number) => boolean,
  signal?: AbortSignal,
  startAt = 0,
): Promise<{ size: number; eol: "\n" | "\r\n"; bomLength: number; stopped: boolean }> {
  const state: ChunkState = { buf: takeBuffer(), base: startAt, eol: undefined, bomLength: 0 };
  try {
    return await readChunks(fh, state, region, signal, startAt);
  } finally {
    giveBuffer(state.buf);
  }
}

async function readChunks(
  fh: FileHandle,
  state: ChunkState,
  region: (state: ChunkState, limit: number) => boolean,
  signal: AbortSignal | undefined,
  startAt: number,
): Promise<{ size: number; eol: "\n" | "\r\n"; bomLength: number; stopped: boolean }> {
  let carry = 0;
  let first = startAt === 0;
  for (;;) {
    signal?.throwIfAborted();
    if (state.buf.length - carry < chunkSize) {
      // One line longer than the buffer: grow (memory follows the longest line, not the file).
      const bigger = Buffer.allocUnsafe(state.buf.length * 2);
      state.buf.copy(bigger, 0, 0, carry);
      state.buf = bigger;
    }
    const { bytesRead } = await fh.read(state.buf, carry, chunkSize, state.base + carry);
    const filled = carry + bytesRead;
    if (first && filled >= 3 && state.buf.subarray(0, 3).equals(BOM)) state.bomLength = 3;
    if (first && bytesRead > 0) first = false;
    if (state.eol === undefined) {
      const nl = state.buf.subarray(0, filled).indexOf(NL);
      if (nl >= 0) state.eol = nl > 0 && state.buf[nl - 1] === CR ? "\r\n" : "\n";
    }
    const eof = bytesRead === 0;
    let limit: number;
    if (eof) {
      limit = filled;
    } else {
      const nl = state.buf.subarray(0, filled).lastIndexOf(NL);
      if (nl < 0) {
        carry = filled;
        continue;
      }
      limit = nl + 1;
    }
    if (limit > 0 && region(state, limit)) {
      // Stopped early: the size is the file's, not how far we read.
      const { size } = await fh.stat();
      return { size, eol: state.eol ?? "\n", bomLength: state.bomLength, stopped: true };
    }
    if (eof)
      return {
        size: state.base + filled,
        eol: state.eol ?? "\n",
        bomLength: state.bomLength,
        stopped: false,
      };
    state.buf.copy(state.buf, 0, limit, filled);
    carry = filled - limit;
    state.base += limit;
  }
}

function lineText(buf: Buffer, start: number, end: number, bomAtStart: boolean): string {
  let stop = end;
  if (stop > start && buf[stop - 1] === NL) stop--;
  if (stop > start && buf[stop - 1] === CR) stop--;
  return buf.toString("utf8", bomAtStart ? start + 3 : start, stop);
}

export interface ScanOptions {
  signal?: AbortSignal | undefined;
  /** Start at this offset, which must be the start of a line outside any fence (e.g. a chapter heading). */
  startAt?: number | undefined;
  /**
   * Byte-level pre-check of a requirement heading line: `textStart` is just after `## `, `textEnd` before
   * the line ending. Return false to skip the line without decoding it (it is still a heading for fence
   * purposes: headings never open or close fences).
   */
  wantH2?: ((buf: Buffer, textStart: number, textEnd: number) => boolean) | undefined;
  /**
   * While `active()` holds, look only for chapter headings and for requirement headings that start with
   * one of `needles` (e.g. `## G.G.1:`), instead of visiting every `#` line: a find-one-requirement scan
   * then costs about what grep costs. Headings in other spellings are not seen in this mode.
   */
  fastH2?: { needles: string[]; active: () => boolean } | undefined;
}

const SPACE = 0x20;

function eolStart(buf: Buffer, start: number, end: number): number {
  let stop = end;
  if (stop > start && buf[stop - 1] === NL) stop--;
  if (stop > start && buf[stop - 1] === CR) stop--;
  return stop;
}

/** Chapter and requirement headings outside fenced blocks, in file order. */
export async function scanHeadings(
  fh: FileHandle,
  visit: HeadingVisitor,
  options: ScanOptions = {},
): Promise<ScanSummary> {
  const fences = new FenceTracker();
  const { wantH2, fastH2 } = options;
  const needles = (fastH2?.needles ?? []).map((n) => Buffer.from(`\n${n}`, "utf8"));
  const H1 = Buffer.from("\n# ");
  // Each searched pattern keeps its next hit, so a region is searched once per pattern, not once per line.
  const patterns = [NL_HASH, H1, ...needles];
  const hits = patterns.map(() => -2);
  const nextHeading = (view: Buffer, from: number, fast: boolean): number => {
    let best = -1;
    for (let i = fast ? 1 : 0; i < (fast ? patterns.length : 1); i++) {
      if (hits[i] !== -1 && (hits[i] as number) < from) hits[i] = view.indexOf(patterns[i] as Buffer, from);
      const at = hits[i] as number;
      if (at >= 0 && (best < 0 || at < best)) best = at;
    }
    return best < 0 ? -1 : best + 1;
  };
  const result = await readRegions(
    fh,
    (state, limit) => {
      const view = state.buf.subarray(0, limit);
      const bomSkip = state.base === 0 ? state.bomLength : 0; // only on the file's first line
      hits.fill(-2);
      // Next candidate of each kind; -2 = not searched yet, -1 = none left in this region.
      let heading = -2;
      let backtick = -2;
      let tilde = -2;
      let pos = 0;
      let fast = fastH2?.active() ?? false;
      for (;;) {
        if (fastH2 && fast !== fastH2.active()) {
          fast = !fast;
          heading = -2; // the mode changed: search again from here
        }
        if (heading !== -1 && heading < pos) {
          if (pos === 0 && view[bomSkip] === HASH) heading = 0;
          else heading = nextHeading(view, pos === 0 ? 0 : pos - 1, fast);
        }
        if (backtick !== -1 && backtick < pos) backtick = view.indexOf(BACKTICKS, pos);
        if (tilde !== -1 && tilde < pos) tilde = view.indexOf(TILDES, pos);
        let next = heading;
        if (backtick >= 0 && (next < 0 || backtick < next)) next = backtick;
        if (tilde >= 0 && (next < 0 || tilde < next)) next = tilde;
        if (next < 0) return false;
        const start = next === heading || next === 0 ? next : view.lastIndexOf(NL, next - 1) + 1;
        const nl = view.indexOf(NL, next);
        const end = nl < 0 ? limit : nl + 1;
        pos = end;
        if (next === heading) {
          // A line starting with `#` never opens or closes a fence: no need to decode it for that.
          if (fences.inFence) continue;
          const h = start + (start === 0 ? bomSkip : 0);
          const level = view[h + 1] === SPACE ? 1 : view[h + 1] === HASH && view[h + 2] === SPACE ? 2 : 0;
          if (level === 0) continue;
          const textEnd = eolStart(view, h, end);
          if (level === 2 && wantH2 && !wantH2(view, h + 3, textEnd)) continue;
          const text = trimBlank(view.toString("utf8", h + level + 1, textEnd));
          if (visit({ level, text, start: state.base + start, end: state.base + end })) return true;
          continue;
        }
        const from = start === 0 ? bomSkip : start;
        fences.feedBytes(view, from, eolStart(view, from, end));
      }
    },
    options.signal,
    options.startAt ?? 0,
  );
  return { ...result, openFence: fences.openedBy };
}

export interface Line {
  text: string;
  start: number;
  end: number;
  /** Not inside (nor a delimiter of) a fenced block. */
  structural: boolean;
}

/** Every line in file order, with fence state; return `true` from `visit` to stop. */
export async function scanLines(
  fh: FileHandle,
  // biome-ignore lint/suspicious/noConfusingVoidType: visitors that never stop return nothing
  visit: (line: Line) => boolean | undefined | void,
  signal?: AbortSignal,
): Promise<ScanSummary> {
  const fences = new FenceTracker();
  const result = await readRegions(
    fh,
    (state, limit) => {
      const view = state.buf.subarray(0, limit);
      let pos = 0;
      while (pos < limit) {
        const nl = view.indexOf(NL, pos);
        const end = nl < 0 ? limit : nl + 1;
        const text = lineText(view, pos, end, state.base + pos === 0 && state.bomLength > 0);
        const structural = !fences.feed(text);
        if (visit({ text, start: state.base + pos, end: state.base + end, structural })) return true;
        pos = end;
      }
      return false;
    },
    signal,
  );
  return { ...result, openFence: fences.openedBy };
}

/** Bytes [start, end) of the file. */
export async function readRange(fh: FileHandle, start: number, end: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(Math.max(0, end - start));
  let done = 0;
  while (done < out.length) {
    const { bytesRead } = await fh.read(out, done, out.length - done, start + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return out.subarray(0, done);
}

function isBlankByte(b: number | undefined): boolean {
  return b === NL || b === CR || b === 0x20 || b === 0x09;
}

/**
 * End of the last non-blank line in [start, end): the offset just after its end of line, or `end` of a
 * last line without one. Returns `start` when the range is blank. Reads backwards in small windows.
 */
export async function contentEnd(fh: FileHandle, start: number, end: number): Promise<number> {
  const WINDOW = 4096;
  let hi = end;
  while (hi > start) {
    const lo = Math.max(start, hi - WINDOW);
    const buf = await readRange(fh, lo, hi);
    for (let i = buf.length - 1; i >= 0; i--) {
      if (!isBlankByte(buf[i])) {
        const at = lo + i;
        // The line holding `at` ends at the next LF (or `end`).
        const after = await readRange(fh, at, end);
        const nl = after.indexOf(NL);
        return nl < 0 ? end : at + nl + 1;
      }
    }
    hi = lo;
  }
  return start;
}

/** True when bytes [start, end) are only spaces, tabs and line endings. */
export async function isBlankRange(fh: FileHandle, start: number, end: number): Promise<boolean> {
  return (await contentEnd(fh, start, end)) === start;
}
