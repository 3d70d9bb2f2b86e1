/**
 * The compact form of the scan cache's entries on disk: columns instead of one object per file, ids in a
 * string table, each citation a flat run of seven values and only files with citations carrying any.
 * `JSON.parse` of this form and building the entries back takes a few times less than V8's deserializer
 * took for the object graph (20,000 files: ~15 ms against 40–100 ms), and the file is half the size.
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
  ids: string[];
  /** Paths joined by NUL (never in a path git or the walk reports). */
  paths: string;
  size: number[];
  mtime: number[];
  ctime: number[];
  ino: number[];
  /** Blob ids joined by NUL, "" for none. */
  blob: string;
  /** Bits 0–1: skip reason (0 none, 1 binary, 2 too large); bit 2: racy. */
  flags: number[];
  /** Per file with citations: its position in `paths`, then per citation id, pin (0: none), line, column,
   *  kind and form (kind index + 4 for a reqlix index), test name or null, snippet. */
  cites: (number | string | null)[][];
}

const KINDS: readonly CitationKind[] = ["impl", "test", "doc"];
const KIND_CODE: Record<CitationKind, number> = { impl: 0, test: 1, doc: 2 };
const SKIPS: readonly (SkipReason | undefined)[] = [undefined, "binary", "too_large"];
const PER_CITATION = 7;

export function encodeEntries(entries: Iterable<[string, CacheEntry]>): EncodedEntries {
  const ids: string[] = [];
  const idAt = new Map<string, number>();
  const paths: string[] = [];
  const size: number[] = [];
  const mtime: number[] = [];
  const ctime: number[] = [];
  const ino: number[] = [];
  const blob: string[] = [];
  const flags: number[] = [];
  const cites: (number | string | null)[][] = [];
  for (const [path, e] of entries) {
    const at = paths.length;
    paths.push(path);
    size.push(e.size);
    mtime.push(e.mtimeMs);
    ctime.push(e.ctimeMs);
    ino.push(e.ino);
    blob.push(e.blob ?? "");
    flags.push((e.skipped === "binary" ? 1 : e.skipped === "too_large" ? 2 : 0) | (e.racy ? 4 : 0));
    if (e.citations.length === 0) continue;
    const run: (number | string | null)[] = [at];
    for (const c of e.citations) {
      let id = idAt.get(c.id);
      if (id === undefined) {
        id = ids.length;
        ids.push(c.id);
        idAt.set(c.id, id);
      }
      const code = KIND_CODE[c.kind] + (c.form === "reqlix" ? 4 : 0);
      run.push(id, c.revision ?? 0, c.line, c.column, code, c.test_name, c.snippet);
    }
    cites.push(run);
  }
  return { ids, paths: paths.join("\0"), size, mtime, ctime, ino, blob: blob.join("\0"), flags, cites };
}

class Corrupt extends Error {}
const check = (ok: boolean) => {
  if (!ok) throw new Corrupt("cache entries do not decode");
};

/** The entries back; throws when the data is not what `encodeEntries` writes (a corrupt file). */
export function decodeEntries(data: EncodedEntries): Map<string, CacheEntry> {
  const { ids, size, mtime, ctime, ino, flags, cites } = data;
  check(Array.isArray(ids) && Array.isArray(size) && Array.isArray(mtime) && Array.isArray(flags));
  check(Array.isArray(ctime) && Array.isArray(ino));
  check(typeof data.paths === "string" && typeof data.blob === "string" && Array.isArray(cites));
  const paths = data.paths === "" ? [] : data.paths.split("\0");
  const blobs = data.blob.split("\0");
  const n = paths.length;
  check(size.length === n && mtime.length === n && ctime.length === n && ino.length === n);
  check(flags.length === n && blobs.length === Math.max(n, 1));
  const citations: Citation[][] = new Array(n);
  for (const run of cites) {
    const at = run[0] as number;
    check(
      Array.isArray(run) &&
        Number.isInteger(at) &&
        at >= 0 &&
        at < n &&
        (run.length - 1) % PER_CITATION === 0,
    );
    const file = paths[at] as string;
    const list: Citation[] = [];
    for (let j = 1; j < run.length; j += PER_CITATION) {
      const id = ids[run[j] as number];
      const code = run[j + 4] as number;
      const kind = KINDS[code & 3];
      check(typeof id === "string" && kind !== undefined && typeof run[j + 6] === "string");
      list.push({
        id: id as string,
        revision: (run[j + 1] as number) || null,
        file,
        line: run[j + 2] as number,
        column: run[j + 3] as number,
        kind: kind as CitationKind,
        test_name: run[j + 5] as string | null,
        snippet: run[j + 6] as string,
        form: code & 4 ? "reqlix" : "hosted",
      });
    }
    citations[at] = list;
  }
  const entries = new Map<string, CacheEntry>();
  const none: Citation[] = [];
  for (let i = 0; i < n; i++) {
    const f = flags[i] as number;
    const entry: CacheEntry = {
      size: size[i] as number,
      mtimeMs: mtime[i] as number,
      ctimeMs: ctime[i] as number,
      ino: ino[i] as number,
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
