/**
 * The entries of a cache file as a Map that keeps them in their columns: a rescan after a few changes visits
 * a few paths, so it finds those through a hash table over the stored paths and makes objects of only
 * their entries. Making 20,000 entry objects and a Map of them cost a new process ~60 ms of its ~200
 * (decoding, then the garbage collector copying and promoting what survives); coverage and the summary
 * read the untouched rows in place (`tally`, `eachRowFact`). Everything else sees a Map: writes keep a Map's order (a
 * set of a present path keeps its place, a new path goes last).
 */
import {
  type CacheEntry,
  type CitationFacts,
  type Columns,
  type EntryTotals,
  hashOf,
  KINDS,
  NUMBERS,
  pathTable,
  SKIPS,
  StoredEntry,
} from "./cache-format.js";
import type { Citation } from "./citations.js";
import type { CitationVisitor, CoverageTally } from "./coverage.js";

/** Lookups answered by searching the joined paths before a table of them is built (none stored). */
const SEARCHES = 64;

export class StoredEntries implements Map<string, CacheEntry> {
  readonly [Symbol.toStringTag] = "Map";
  /** Rows removed (deleted, or deleted and set again: then in `tail`). */
  #removed: Uint8Array;
  #removedCount = 0;
  /** The rows removed, in the order removed (`clear` removes every row: #cleared). */
  #removedList: number[] = [];
  #cleared = false;
  /** Entry objects of rows, made when asked for or set in place. */
  #made = new Map<number, CacheEntry>();
  /** Paths set that no row holds: after the rows, in the order set. */
  #tail = new Map<string, CacheEntry>();
  /** Open-addressing table of row + 1 by path hash, built on the first lookup. */
  #table: Int32Array | undefined;
  #searches = 0;
  /** The table was built here (not read from a file): its misses are misses. */
  #trusted = false;
  /** Rows found by a search: a visited path is looked up several times (has, get, set). */
  #found = new Map<string, number>();

  constructor(
    private readonly paths: string,
    private readonly pathAt: Int32Array,
    private readonly blobs: string,
    private readonly blobAt: Int32Array,
    private readonly stamps: Float64Array,
    private readonly flags: Uint8Array,
    private readonly columns: Columns,
    /** Per row, its citations' range in the columns. */
    private readonly from: Int32Array,
    private readonly to: Int32Array,
    readonly rows: number,
    table?: Int32Array,
    /** The stored totals over every row (from a file whose checksum matched), or none. */
    private readonly totals?: EntryTotals,
  ) {
    this.#removed = new Uint8Array(rows);
    this.#table = table;
  }

  /** The made rows in row order, then the paths set that no row holds. */
  #eachOther(entry: (path: string, entry: CacheEntry) => void): void {
    const made = [...this.#made.keys()].sort((a, b) => a - b);
    for (const r of made) entry(this.rowPath(r), this.#made.get(r) as CacheEntry);
    for (const [path, e] of this.#tail) entry(path, e);
  }

  /** Per id of the stored table, its citations in the rows that still count (neither removed nor replaced). */
  #liveCounts(): Int32Array | undefined {
    const totals = this.totals;
    if (!totals || this.#cleared) return undefined;
    const counts = Int32Array.from(totals.counts);
    const cites = this.columns.cites;
    for (const r of [...this.#made.keys(), ...this.#removedList]) {
      for (let c = this.from[r] as number; c < (this.to[r] as number); c++) {
        const at = (cites[c * NUMBERS + 1] as number) * 3 + ((cites[c * NUMBERS + 5] as number) & 3);
        counts[at] = (counts[at] as number) - 1;
      }
    }
    return counts;
  }

  /**
   * The summary's pass from the stored totals: adds the untouched rows' skip counts to `skipped` and gives
   * `entry` every other entry, in order; false (nothing done) without totals.
   */
  tallyTotals(
    skipped: { binary: number; too_large: number },
    entry: (path: string, entry: CacheEntry) => void,
  ): boolean {
    const totals = this.totals;
    if (!totals || this.#cleared) return false;
    let binary = totals.skips[0] as number;
    let tooLarge = totals.skips[1] as number;
    for (const r of [...this.#made.keys(), ...this.#removedList]) {
      const skip = (this.flags[r] as number) & 3;
      if (skip === 1) binary--;
      else if (skip === 2) tooLarge--;
    }
    skipped.binary += binary;
    skipped.too_large += tooLarge;
    this.#eachOther(entry);
    return true;
  }

  /**
   * Counts the untouched rows' citations in `tally` from the stored totals, then gives `entry` every other
   * entry, in order; false (nothing counted or given) without totals, or when an id the untouched rows cite
   * is an orphan or pinned below its revision somewhere: those citations must be listed in order (the
   * ordered pass, `tallyRows`).
   */
  countTotals(tally: CoverageTally, entry: (path: string, entry: CacheEntry) => void): boolean {
    const totals = this.totals;
    const live = this.#liveCounts();
    if (!totals || !live) return false;
    const t = tally.table(this.columns.ids);
    const n = this.columns.ids.length;
    for (let i = 0; i < n; i++) {
      if ((live[i * 3] as number) + (live[i * 3 + 1] as number) + (live[i * 3 + 2] as number) === 0) continue;
      if (t.state[i] === 0) tally.resolve(t, i, totals.reqlix[i] ? "reqlix" : "hosted");
      const pin = totals.minPin[i] as number;
      if (t.state[i] === 2 || (pin !== 0 && pin < (t.current[i] as number))) return false;
    }
    for (let k = 0; k < live.length; k++) t.counts[k] = (t.counts[k] as number) + (live[k] as number);
    this.#eachOther(entry);
    return true;
  }

  #row(path: string): number {
    const n = this.rows;
    if (n === 0) return -1;
    let r = this.#found.get(path);
    if (r !== undefined) return r;
    let table = this.#table;
    if (!table && this.#searches < SEARCHES) {
      // A few lookups: each a search of the joined paths (native, ~10 µs) rather than a table of all.
      this.#searches++;
      r = this.#search(path);
    } else {
      if (!table) {
        const paths: string[] = new Array(n);
        for (let i = 0; i < n; i++) paths[i] = this.rowPath(i);
        table = pathTable(paths);
        this.#table = table;
        this.#trusted = true;
      }
      r = this.#probe(table, path);
    }
    this.#found.set(path, r);
    return r;
  }

  /** The row of `path` by the table; a stored table is a hint: its misses are confirmed by a search. */
  #probe(table: Int32Array, path: string): number {
    const n = this.rows;
    const mask = table.length - 1;
    let slot = hashOf(path, 0, path.length) & mask;
    for (let probes = 0; probes <= mask; probes++) {
      const r = (table[slot] as number) - 1;
      if (r < 0 || r >= n) break;
      const start = this.pathAt[r] as number;
      if ((this.pathAt[r + 1] as number) - 1 - start === path.length && this.paths.startsWith(path, start))
        return r;
      slot = (slot + 1) & mask;
    }
    return this.#trusted ? -1 : this.#search(path);
  }

  #search(path: string): number {
    const paths = this.paths;
    for (let at = paths.indexOf(path); at >= 0; at = paths.indexOf(path, at + 1)) {
      const end = at + path.length;
      if (
        (at === 0 || paths.charCodeAt(at - 1) === 0) &&
        (end === paths.length || paths.charCodeAt(end) === 0)
      ) {
        // The row whose path starts at `at`: a binary search of the offsets.
        let lo = 0;
        let hi = this.rows - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if ((this.pathAt[mid] as number) < at) lo = mid + 1;
          else hi = mid;
        }
        return this.pathAt[lo] === at ? lo : -1;
      }
    }
    return -1;
  }

  #live(path: string): number {
    const r = this.#row(path);
    return r >= 0 && this.#removed[r] === 0 ? r : -1;
  }

  rowPath(r: number): string {
    return this.paths.slice(this.pathAt[r] as number, (this.pathAt[r + 1] as number) - 1);
  }

  /** The entry of a row (made once, or the one set in its place). */
  entryAt(r: number): CacheEntry {
    let entry = this.#made.get(r);
    if (entry === undefined) {
      const s = r * 4;
      const stored = new StoredEntry(
        this.stamps[s] as number,
        this.stamps[s + 1] as number,
        this.stamps[s + 2] as number,
        this.stamps[s + 3] as number,
        this.rowPath(r),
        this.columns,
        this.from[r] as number,
        this.to[r] as number,
      );
      const blob = this.blobs.slice(this.blobAt[r] as number, (this.blobAt[r + 1] as number) - 1);
      if (blob !== "") stored.blob = blob;
      const f = this.flags[r] as number;
      const skipped = SKIPS[f & 3];
      if (skipped) stored.skipped = skipped;
      if (f & 4) stored.racy = true;
      const kind = KINDS[((f >> 3) & 3) - 1];
      if (kind) stored.kind = kind;
      entry = stored;
      this.#made.set(r, entry);
    }
    return entry;
  }

  /**
   * The summary's pass: counts the untouched rows' skip reasons into `skipped` and pushes each with
   * citations to `cited` (in one loop without calls: a new process runs it unoptimised); `entry` gets the
   * others, in order.
   */
  tally(
    skipped: { binary: number; too_large: number },
    cited: (number | [string, CacheEntry])[],
    entry: (path: string, entry: CacheEntry) => void,
  ): void {
    const { flags, from, to } = this;
    const removed = this.#removed;
    const made = this.#made;
    const anyMade = made.size > 0;
    let binary = 0;
    let tooLarge = 0;
    for (let r = 0; r < this.rows; r++) {
      if (removed[r] !== 0) continue;
      if (anyMade) {
        const e = made.get(r);
        if (e !== undefined) {
          entry(this.rowPath(r), e);
          continue;
        }
      }
      const skip = (flags[r] as number) & 3;
      if (skip === 1) binary++;
      else if (skip === 2) tooLarge++;
      if ((to[r] as number) > (from[r] as number)) cited.push(r);
    }
    skipped.binary += binary;
    skipped.too_large += tooLarge;
    for (const [path, e] of this.#tail) entry(path, e);
  }

  /** The facts of stored citation `c` (see Columns.facts). */
  factsAt(c: number, into: CitationFacts): void {
    this.columns.facts(c, into);
  }

  /**
   * Counts the citations of the untouched rows `items[start..end)` in `tally` in one loop without calls
   * (a new process runs it unoptimised); `special(r, c, index)` gets those coverage must see one by one
   * (an orphan's, a suspect), in order.
   */
  tallyRows(
    items: readonly unknown[],
    start: number,
    end: number,
    tally: CoverageTally,
    special: (r: number, c: number, index: number) => void,
  ): void {
    const t = tally.table(this.columns.ids);
    const { state, current, counts } = t;
    const cites = this.columns.cites;
    const { from, to } = this;
    for (let k = start; k < end; k++) {
      const r = items[k] as number;
      const first = from[r] as number;
      const last = to[r] as number;
      for (let c = first; c < last; c++) {
        const o = c * NUMBERS;
        const id = cites[o + 1] as number;
        const code = cites[o + 5] as number;
        let s = state[id] as number;
        if (s === 0) {
          tally.resolve(t, id, code & 4 ? "reqlix" : "hosted");
          s = state[id] as number;
        }
        const pin = cites[o + 2] as number;
        if (s === 2 || (pin !== 0 && pin < (current[id] as number))) special(r, c, c - first);
        else {
          const at = id * 3 + (code & 3);
          counts[at] = (counts[at] as number) + 1;
        }
      }
    }
  }

  /** The facts of an untouched row's citations, in order, with the row's list (see CitationVisitor). */
  eachRowFact(r: number, visit: CitationVisitor, list: () => Citation[], into: CitationFacts): void {
    const from = this.from[r] as number;
    const to = this.to[r] as number;
    for (let c = from; c < to; c++) {
      this.columns.facts(c, into);
      visit(into, list, c - from);
    }
  }

  get size(): number {
    return this.rows - this.#removedCount + this.#tail.size;
  }

  has(path: string): boolean {
    return this.#tail.has(path) || this.#live(path) >= 0;
  }

  get(path: string): CacheEntry | undefined {
    const e = this.#tail.get(path);
    if (e !== undefined) return e;
    const r = this.#live(path);
    return r < 0 ? undefined : this.entryAt(r);
  }

  set(path: string, entry: CacheEntry): this {
    if (!this.#tail.has(path)) {
      const r = this.#live(path);
      if (r >= 0) {
        this.#made.set(r, entry);
        return this;
      }
    }
    this.#tail.set(path, entry);
    return this;
  }

  delete(path: string): boolean {
    if (this.#tail.delete(path)) return true;
    const r = this.#live(path);
    if (r < 0) return false;
    this.#removed[r] = 1;
    this.#removedCount++;
    this.#removedList.push(r);
    this.#made.delete(r);
    return true;
  }

  clear(): void {
    this.#cleared = true;
    this.#removed.fill(1);
    this.#removedCount = this.rows;
    this.#made.clear();
    this.#tail.clear();
  }

  *entries(): MapIterator<[string, CacheEntry]> {
    for (let r = 0; r < this.rows; r++) if (this.#removed[r] === 0) yield [this.rowPath(r), this.entryAt(r)];
    yield* this.#tail;
  }

  *keys(): MapIterator<string> {
    for (let r = 0; r < this.rows; r++) if (this.#removed[r] === 0) yield this.rowPath(r);
    yield* this.#tail.keys();
  }

  *values(): MapIterator<CacheEntry> {
    for (const [, entry] of this.entries()) yield entry;
  }

  [Symbol.iterator](): MapIterator<[string, CacheEntry]> {
    return this.entries();
  }

  forEach(visit: (entry: CacheEntry, path: string, map: Map<string, CacheEntry>) => void): void {
    for (const [path, entry] of this.entries()) visit(entry, path, this);
  }
}
