/**
 * The compact form of the scan cache's entries on disk: columns instead of one object per file (typed
 * arrays of numbers, texts joined into long strings, ids in a string table), so that V8's deserializer
 * reads it in a few milliseconds (it took 40–100 ms for the object graph of 20,000 files) and building the
 * entries back is one pass.
 */
import type { Citation, CitationKind } from "./citations.js";

export type SkipReason = "binary" | "too_large";

export interface CacheEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** The index blob id when git vouched the content was that blob when the file was read. */
  blob?: string;
  /**
   * Modified so shortly before it was read that a later write could keep the same mtime (the clock's
   * granularity): never reused on size and mtime alone.
   */
  racy?: true;
  citations: Citation[];
  skipped?: SkipReason;
}

export interface EncodedEntries {
  /** Paths joined by NUL (never in a path git or the walk reports). */
  paths: string;
  /** Per file: size, mtime, ctime, inode (four numbers each). */
  stamps: Float64Array;
  /** Blob ids joined by NUL, "" for none. */
  blob: string;
  /** Per file, bits 0–1: skip reason (0 none, 1 binary, 2 too large); bit 2: racy. */
  flags: Uint8Array;
  /** Cited ids joined by NUL. */
  ids: string;
  /**
   * Per citation, six numbers: file (position in `paths`), id (position in `ids`), pin (0: none), line,
   * column, kind index + 4 for a reqlix index; then the lengths of its test name (-1: none) and snippet,
   * whose text follows in `text`, one after the other.
   */
  cites: Int32Array;
  lengths: Int32Array;
  text: string;
}

const KINDS: readonly CitationKind[] = ["impl", "test", "doc"];
const KIND_CODE: Record<CitationKind, number> = { impl: 0, test: 1, doc: 2 };
const SKIPS: readonly (SkipReason | undefined)[] = [undefined, "binary", "too_large"];
const NUMBERS = 6;

/**
 * Few, flat values: V8's serializer copies typed arrays and long strings as they are, so the entries of
 * 20,000 files load in milliseconds.
 */
export function encodeEntries(entries: Iterable<[string, CacheEntry]>): EncodedEntries {
  const list = Array.isArray(entries) ? (entries as [string, CacheEntry][]) : [...entries];
  const n = list.length;
  const ids: string[] = [];
  const idAt = new Map<string, number>();
  const paths: string[] = new Array(n);
  const stamps = new Float64Array(n * 4);
  const blob: string[] = new Array(n);
  const flags = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) count += (list[i] as [string, CacheEntry])[1].citations.length;
  const cites = new Int32Array(count * NUMBERS);
  const lengths = new Int32Array(count * 2);
  const text: string[] = [];
  let c = 0;
  for (let i = 0; i < n; i++) {
    const [path, e] = list[i] as [string, CacheEntry];
    paths[i] = path;
    stamps[i * 4] = e.size;
    stamps[i * 4 + 1] = e.mtimeMs;
    stamps[i * 4 + 2] = e.ctimeMs;
    stamps[i * 4 + 3] = e.ino;
    blob[i] = e.blob ?? "";
    flags[i] = (e.skipped === "binary" ? 1 : e.skipped === "too_large" ? 2 : 0) | (e.racy ? 4 : 0);
    for (const cite of e.citations) {
      let id = idAt.get(cite.id);
      if (id === undefined) {
        id = ids.length;
        ids.push(cite.id);
        idAt.set(cite.id, id);
      }
      const o = c * NUMBERS;
      cites[o] = i;
      cites[o + 1] = id;
      cites[o + 2] = cite.revision ?? 0;
      cites[o + 3] = cite.line;
      cites[o + 4] = cite.column;
      cites[o + 5] = KIND_CODE[cite.kind] + (cite.form === "reqlix" ? 4 : 0);
      lengths[c * 2] = cite.test_name === null ? -1 : cite.test_name.length;
      lengths[c * 2 + 1] = cite.snippet.length;
      if (cite.test_name !== null) text.push(cite.test_name);
      text.push(cite.snippet);
      c++;
    }
  }
  return {
    paths: paths.join("\0"),
    stamps,
    blob: blob.join("\0"),
    flags,
    ids: ids.join("\0"),
    cites,
    lengths,
    text: text.join(""),
  };
}

class Corrupt extends Error {}
const check = (ok: boolean) => {
  if (!ok) throw new Corrupt("cache entries do not decode");
};

/** The entries back; throws when the data is not what `encodeEntries` writes (a corrupt file). */
export function decodeEntries(data: EncodedEntries): Map<string, CacheEntry> {
  const { stamps, flags, cites, lengths, text } = data;
  check(typeof data.paths === "string" && typeof data.blob === "string" && typeof data.ids === "string");
  check(stamps instanceof Float64Array && flags instanceof Uint8Array && typeof text === "string");
  check(cites instanceof Int32Array && lengths instanceof Int32Array);
  const paths = data.paths === "" ? [] : data.paths.split("\0");
  const blobs = data.blob.split("\0");
  const ids = data.ids === "" ? [] : data.ids.split("\0");
  const n = paths.length;
  const count = cites.length / NUMBERS;
  check(stamps.length === n * 4 && flags.length === n && blobs.length === Math.max(n, 1));
  check(Number.isInteger(count) && lengths.length === count * 2);
  const citations: Citation[][] = new Array(n);
  let at = 0;
  for (let c = 0; c < count; c++) {
    const o = c * NUMBERS;
    const file = cites[o] as number;
    const id = ids[cites[o + 1] as number];
    const code = cites[o + 5] as number;
    const kind = KINDS[code & 3];
    const testLength = lengths[c * 2] as number;
    const snippetLength = lengths[c * 2 + 1] as number;
    check(file >= 0 && file < n && id !== undefined && kind !== undefined && snippetLength >= 0);
    let test_name: string | null = null;
    if (testLength >= 0) {
      test_name = text.slice(at, at + testLength);
      at += testLength;
    }
    const snippet = text.slice(at, at + snippetLength);
    at += snippetLength;
    check(at <= text.length);
    const path = paths[file] as string;
    let list = citations[file];
    if (!list) {
      list = [];
      citations[file] = list;
    }
    list.push({
      id: id as string,
      revision: (cites[o + 2] as number) || null,
      file: path,
      line: cites[o + 3] as number,
      column: cites[o + 4] as number,
      kind: kind as CitationKind,
      test_name,
      snippet,
      form: code & 4 ? "reqlix" : "hosted",
    });
  }
  check(at === text.length);
  const entries = new Map<string, CacheEntry>();
  const none: Citation[] = [];
  for (let i = 0; i < n; i++) {
    const f = flags[i] as number;
    const entry: CacheEntry = {
      size: stamps[i * 4] as number,
      mtimeMs: stamps[i * 4 + 1] as number,
      ctimeMs: stamps[i * 4 + 2] as number,
      ino: stamps[i * 4 + 3] as number,
      citations: citations[i] ?? none,
    };
    const b = blobs[i] as string;
    if (b !== "") entry.blob = b;
    const skipped = SKIPS[f & 3];
    if (skipped) entry.skipped = skipped;
    if (f & 4) entry.racy = true;
    entries.set(paths[i] as string, entry);
  }
  return entries;
}
