/**
 * The compact form of the scan cache's entries on disk: columns instead of one object per file (typed
 * arrays of numbers, texts joined into long strings, ids in a string table), so that V8's deserializer
 * reads it in a few milliseconds (it took 40–100 ms for the object graph of 20,000 files) and building the
 * entries back is one pass. The citations stay in their columns until a file's are asked for: a rescan's
 * coverage reads their facts (id, form, kind, pin) there, and makes objects only of those it lists.
 */
import type { Citation, CitationKind, IdForm } from "./citations.js";

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
  /**
   * How the rules classified the file when it was read (the cache holds entries only under the rules they
   * were made with: its key), so a rescan classifies the files it visits without compiling the globs.
   */
  kind?: CitationKind;
}

export interface EncodedEntries {
  /** Paths joined by NUL (never in a path git or the walk reports). */
  paths: string;
  /** Where each path starts in `paths`, and one past the end + 1 (n + 1 numbers): no scan when read. */
  pathAt: Int32Array;
  /** Per file: size, mtime, ctime, inode (four numbers each). */
  stamps: Float64Array;
  /** Blob ids joined by NUL, "" for none. */
  blob: string;
  /** Where each blob id starts in `blob` (as `pathAt`). */
  blobAt: Int32Array;
  /** Per file, bits 0–1: skip reason (0 none, 1 binary, 2 too large); bit 2: racy; bits 3–4: kind + 1. */
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
  /**
   * Open-addressing table of row + 1 by path hash (`pathTable`), made when written so that a new process
   * finds a path without hashing every stored one first. Trusted only as a hint: every hit is checked
   * against the path, a miss is confirmed by a search of `paths`.
   */
  table?: Int32Array;
  /** Where each file's citations start in `cites` (in citations), then their count (n + 1 numbers). */
  first?: Int32Array;
  /** Totals over every file, so a rescan need not pass over them all (see StoredEntries.totals). */
  totals?: EntryTotals;
}

export interface EntryTotals {
  /** Per id of `ids`: its impl, test and doc citations. */
  counts: Int32Array;
  /** Per id: 1 when its citations are reqlix indices. */
  reqlix: Uint8Array;
  /** Per id: the lowest revision a citation pins it to (0: none pinned). */
  minPin: Int32Array;
  /** Files skipped as binary, as too large. */
  skips: Int32Array;
}

export const KINDS: readonly CitationKind[] = ["impl", "test", "doc"];
const KIND_CODE: Record<CitationKind, number> = { impl: 0, test: 1, doc: 2 };
export const SKIPS: readonly (SkipReason | undefined)[] = [undefined, "binary", "too_large"];
export const NUMBERS = 6;

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
  const first = new Int32Array(n + 1);
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
    flags[i] =
      (e.skipped === "binary" ? 1 : e.skipped === "too_large" ? 2 : 0) |
      (e.racy ? 4 : 0) |
      (e.kind === undefined ? 0 : (KIND_CODE[e.kind] + 1) << 3);
    first[i] = c;
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
  first[n] = c;
  const counts = new Int32Array(ids.length * 3);
  const reqlix = new Uint8Array(ids.length);
  const minPin = new Int32Array(ids.length);
  for (let k = 0; k < c; k++) {
    const id = cites[k * NUMBERS + 1] as number;
    const code = cites[k * NUMBERS + 5] as number;
    const pin = cites[k * NUMBERS + 2] as number;
    counts[id * 3 + (code & 3)] = (counts[id * 3 + (code & 3)] as number) + 1;
    if (code & 4) reqlix[id] = 1;
    if (pin !== 0 && (minPin[id] === 0 || pin < (minPin[id] as number))) minPin[id] = pin;
  }
  const skips = new Int32Array(2);
  for (let i = 0; i < n; i++) {
    const skip = (flags[i] as number) & 3;
    if (skip === 1 || skip === 2) skips[skip - 1] = (skips[skip - 1] as number) + 1;
  }
  return {
    paths: paths.join("\0"),
    pathAt: startsOf(paths),
    stamps,
    blob: blob.join("\0"),
    blobAt: startsOf(blob),
    flags,
    ids: ids.join("\0"),
    cites,
    lengths,
    text: text.join(""),
    table: pathTable(paths),
    first,
    totals: { counts, reqlix, minPin, skips },
  };
}

/** FNV-1a over a string's UTF-16 units (paths from the same source hash alike). */
export function hashOf(s: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The size of the path table for `n` rows minus one (a power of two, at most half full). */
export const tableMask = (n: number): number => (1 << Math.ceil(Math.log2(n * 2 + 1))) - 1;

/** The path table of `pathTable`'s rows (see EncodedEntries.table). */
export function pathTable(paths: string[]): Int32Array {
  const mask = tableMask(paths.length);
  const table = new Int32Array(mask + 1);
  for (let r = 0; r < paths.length; r++) {
    const path = paths[r] as string;
    let slot = hashOf(path, 0, path.length) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = r + 1;
  }
  return table;
}

/** Where each of the parts starts once joined by NUL, then one past the end + 1. */
function startsOf(parts: string[]): Int32Array {
  const at = new Int32Array(parts.length + 1);
  let from = 0;
  for (let i = 0; i < parts.length; i++) {
    at[i] = from;
    from += (parts[i] as string).length + 1;
  }
  at[parts.length] = from;
  return at;
}

class Corrupt extends Error {}
export const check = (ok: boolean) => {
  if (!ok) throw new Corrupt("cache entries do not decode");
};

/** What coverage needs of a citation (the rest is decoded only for the few it lists). */
export interface CitationFacts {
  id: string;
  form: IdForm;
  kind: CitationKind;
  revision: number | null;
}

/** The stored citations of every entry decoded from one file, each decoded when its file's are asked for. */
export class Columns {
  constructor(
    readonly ids: string[],
    readonly cites: Int32Array,
    readonly lengths: Int32Array,
    readonly text: string,
    /** Where each citation's text (test name, then snippet) starts in `text` (computed when first needed). */
    private at?: Int32Array,
  ) {}

  get textAt(): Int32Array {
    if (!this.at) {
      const count = this.lengths.length / 2;
      const at = new Int32Array(count);
      let sum = 0;
      for (let c = 0; c < count; c++) {
        at[c] = sum;
        const testLength = this.lengths[c * 2] as number;
        sum += Math.max(testLength, 0) + (this.lengths[c * 2 + 1] as number);
      }
      this.at = at;
    }
    return this.at;
  }

  facts(c: number, into: CitationFacts): void {
    const o = c * NUMBERS;
    const code = this.cites[o + 5] as number;
    into.id = this.ids[this.cites[o + 1] as number] as string;
    into.form = code & 4 ? "reqlix" : "hosted";
    into.kind = KINDS[code & 3] as CitationKind;
    into.revision = (this.cites[o + 2] as number) || null;
  }

  citation(c: number, file: string): Citation {
    const o = c * NUMBERS;
    const code = this.cites[o + 5] as number;
    const testLength = this.lengths[c * 2] as number;
    let at = this.textAt[c] as number;
    let test_name: string | null = null;
    if (testLength >= 0) {
      test_name = this.text.slice(at, at + testLength);
      at += testLength;
    }
    // The key order of a citation the matcher makes: JSON renderings of both are the same bytes.
    return {
      id: this.ids[this.cites[o + 1] as number] as string,
      form: code & 4 ? "reqlix" : "hosted",
      revision: (this.cites[o + 2] as number) || null,
      file,
      line: this.cites[o + 3] as number,
      column: this.cites[o + 4] as number,
      kind: KINDS[code & 3] as CitationKind,
      test_name,
      snippet: this.text.slice(at, at + (this.lengths[c * 2 + 1] as number)),
    };
  }
}

/**
 * An entry read from disk. A rescan needs the citations of the few files it reads again and the facts of
 * the others' (coverage): the objects of a file's citations are made when first asked for.
 */
export class StoredEntry implements CacheEntry {
  blob?: string;
  racy?: true;
  skipped?: SkipReason;
  kind?: CitationKind;
  #list: Citation[] | undefined;

  constructor(
    readonly size: number,
    readonly mtimeMs: number,
    readonly ctimeMs: number,
    readonly ino: number,
    private readonly path: string,
    private readonly columns: Columns,
    private readonly from: number,
    private readonly to: number,
  ) {}

  get citations(): Citation[] {
    if (this.#list === undefined) {
      const list: Citation[] = [];
      for (let c = this.from; c < this.to; c++) list.push(this.columns.citation(c, this.path));
      this.#list = list;
    }
    return this.#list;
  }

  get count(): number {
    return this.to - this.from;
  }

  /** The facts of each citation, in order, without making their objects (unless made already). */
  eachFact(visit: (facts: CitationFacts, index: number) => void, into: CitationFacts): void {
    for (let c = this.from; c < this.to; c++) {
      this.columns.facts(c, into);
      visit(into, c - this.from);
    }
  }

  /** This entry with another blob. */
  withBlob(blob: string): StoredEntry {
    const copy = new StoredEntry(
      this.size,
      this.mtimeMs,
      this.ctimeMs,
      this.ino,
      this.path,
      this.columns,
      this.from,
      this.to,
    );
    copy.blob = blob;
    if (this.racy) copy.racy = true;
    if (this.skipped) copy.skipped = this.skipped;
    if (this.kind) copy.kind = this.kind;
    return copy;
  }
}

/** An entry with another blob (a stored entry's citations stay undecoded). */
export function withBlob(entry: CacheEntry, blob: string): CacheEntry {
  return entry instanceof StoredEntry ? entry.withBlob(blob) : { ...entry, blob };
}

/** How many citations an entry has, without decoding a stored one's. */
export function citationCount(entry: CacheEntry): number {
  return entry instanceof StoredEntry ? entry.count : entry.citations.length;
}
