/**
 * A cache file's entries back from what `encodeEntries` wrote (cache-format.ts), checked: every column in
 * one pass, or, for data whose checksum matched (cache.ts), only its shape. What comes back is the Map over
 * the stored columns (stored-entries.ts); a bad column throws, and the scan runs cold.
 */
import { Columns, check, type EncodedEntries, type EntryTotals, NUMBERS, tableMask } from "./cache-format.js";
import { StoredEntries } from "./stored-entries.js";

/**
 * Checks the stored offsets of the NUL-joined parts of `joined` (n + 1 of them): each part ends where the
 * next starts, after a NUL, and the last at the end. A few reads per row; scanning the text for the NULs
 * cost a new process ~14 ms (1.3 MB of paths and blob ids, before the loop is optimised).
 */
function checkOffsets(at: unknown, joined: string, n: number): Int32Array {
  check(at instanceof Int32Array && at.length === n + 1);
  const offsets = at as Int32Array;
  check(offsets[0] === 0 && offsets[n] === joined.length + 1);
  // No call in the loop but charCodeAt: a new process runs it before V8 has optimised it.
  let ok = true;
  let previous = 0;
  for (let i = 1; i < n; i++) {
    const end = offsets[i] as number;
    if (end <= previous || joined.charCodeAt(end - 1) !== 0) {
      ok = false;
      break;
    }
    previous = end;
  }
  check(ok && (offsets[n] as number) > previous);
  return offsets;
}

/** Stored totals of the right shape for `ids` ids, or none. */
function totalsOf(totals: EntryTotals | undefined, ids: number): EntryTotals | undefined {
  if (!totals || typeof totals !== "object") return undefined;
  const { counts, reqlix, minPin, skips } = totals;
  return counts instanceof Int32Array &&
    counts.length === ids * 3 &&
    reqlix instanceof Uint8Array &&
    reqlix.length === ids &&
    minPin instanceof Int32Array &&
    minPin.length === ids &&
    skips instanceof Int32Array &&
    skips.length === 2
    ? totals
    : undefined;
}

/**
 * The entries back; throws when the data is not what `encodeEntries` writes (a corrupt file). Every column
 * is checked here, in one pass over the numbers: a citation decoded later cannot fail. `trusted`: the data
 * is byte for byte what `encodeEntries` made (its checksum matched, see cache.ts), so only its shape is
 * checked: the passes over every file and citation are what a new process's rescan spent most on.
 */
export function decodeEntries(data: EncodedEntries, trusted = false): StoredEntries {
  const { stamps, flags, cites, lengths, text } = data;
  check(typeof data.paths === "string" && typeof data.blob === "string" && typeof data.ids === "string");
  check(stamps instanceof Float64Array && flags instanceof Uint8Array && typeof text === "string");
  check(cites instanceof Int32Array && lengths instanceof Int32Array);
  const n = flags.length;
  const { first } = data;
  if (
    trusted &&
    first instanceof Int32Array &&
    first.length === n + 1 &&
    data.pathAt instanceof Int32Array &&
    data.pathAt.length === n + 1 &&
    data.blobAt instanceof Int32Array &&
    data.blobAt.length === n + 1
  ) {
    const ids = data.ids === "" ? [] : data.ids.split("\0");
    const columns = new Columns(ids, cites, lengths, text);
    const table = data.table instanceof Int32Array && n > 0 ? data.table : undefined;
    return new StoredEntries(
      data.paths,
      data.pathAt,
      data.blob,
      data.blobAt,
      stamps,
      flags,
      columns,
      first.subarray(0, n),
      first.subarray(1),
      n,
      table,
      totalsOf(data.totals, ids.length),
    );
  }
  const pathAt = n === 0 ? new Int32Array(1) : checkOffsets(data.pathAt, data.paths, n);
  const blobAt = n === 0 ? new Int32Array(1) : checkOffsets(data.blobAt, data.blob, n);
  const ids = data.ids === "" ? [] : data.ids.split("\0");
  const count = cites.length / NUMBERS;
  check(stamps.length === n * 4 && (n > 0 || (data.paths === "" && data.blob === "")));
  check(Number.isInteger(count) && lengths.length === count * 2);
  // Citations are stored file by file: each file's are one run, found here with the text's offsets.
  const textAt = new Int32Array(count);
  const from = new Int32Array(n);
  const to = new Int32Array(n);
  const idCount = ids.length;
  const textLength = text.length;
  let at = 0;
  let previousFile = -1;
  // One pass without calls (a new process runs it unoptimised): the first bad number stops it.
  let ok = true;
  for (let c = 0; c < count; c++) {
    const o = c * NUMBERS;
    const file = cites[o] as number;
    const id = cites[o + 1] as number;
    const code = cites[o + 5] as number;
    const testLength = lengths[c * 2] as number;
    const snippetLength = lengths[c * 2 + 1] as number;
    if (
      file < 0 ||
      file < previousFile ||
      file >= n ||
      !(id >= 0 && id < idCount) ||
      !(code >= 0 && code < 8 && (code & 3) !== 3) ||
      !((cites[o + 2] as number) >= 0) ||
      testLength < -1 ||
      snippetLength < 0
    ) {
      ok = false;
      break;
    }
    if (file !== previousFile) {
      from[file] = c;
      previousFile = file;
    }
    to[file] = c + 1;
    textAt[c] = at;
    at += Math.max(testLength, 0) + snippetLength;
    if (at > textLength) {
      ok = false;
      break;
    }
  }
  check(ok && at === textLength);
  const columns = new Columns(ids, cites, lengths, text, textAt);
  // A stored path table of the right shape is used as a hint (see #probe); any other is ignored.
  const table =
    data.table instanceof Int32Array && n > 0 && data.table.length === tableMask(n) + 1
      ? data.table
      : undefined;
  return new StoredEntries(data.paths, pathAt, data.blob, blobAt, stamps, flags, columns, from, to, n, table);
}
