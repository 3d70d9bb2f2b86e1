/**
 * Beyond the spec (issue 5, item 2): when a docset's folder exists locally, `search_docs` searches it
 * itself and returns the matching lines with context, saving the assistant a round trip.
 *
 * Files are streamed in chunks (memory does not grow with file size), lines are matched case-insensitively
 * against literal terms, and the search stops at `maxMatches` — after reading on just far enough to know
 * whether more matches exist (`truncated`). Budgets of bytes, files and time (default 64 MiB, 10,000 files,
 * 2 s) bound a huge folder; hitting one also sets `truncated`. Binary files, dot-entries and symbolic links
 * are skipped; the walk order is sorted, so the same folder always gives the same answer.
 */
import { open, opendir } from "node:fs/promises";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";

export interface FolderMatch {
  /** Path relative to the docset folder, forward slashes. */
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
  /** The term (as given) that matched this line. */
  term: string;
  before: string[];
  after: string[];
}

export interface FolderSearchResult {
  matches: FolderMatch[];
  /** More matches exist than were returned, or a budget stopped the search before the end. */
  truncated: boolean;
  files_searched: number;
}

export interface FolderSearchOptions {
  terms: readonly string[];
  maxMatches: number;
  contextLines: number;
  signal?: AbortSignal;
  /** Stop after reading this many bytes in total (then `truncated`). */
  maxBytes?: number;
  /** Stop after this many files (then `truncated`). */
  maxFiles?: number;
  /** Stop after this many milliseconds (then `truncated`): the answer must not wait on a huge folder. */
  maxMillis?: number;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_FILES = 10_000;
const DEFAULT_MAX_MILLIS = 2_000;
/** A matched line is shown around its first hit, context lines from their start; both at most this long. */
const MAX_LINE_CHARS = 300;
/** A "line" longer than this (minified HTML, data) is cut here so memory stays bounded. */
const MAX_PENDING_CHARS = 1024 * 1024;

function clip(line: string, at = 0): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const start = Math.max(0, Math.min(at - Math.floor(MAX_LINE_CHARS / 3), line.length - MAX_LINE_CHARS));
  return `${start > 0 ? "…" : ""}${line.slice(start, start + MAX_LINE_CHARS)}${start + MAX_LINE_CHARS < line.length ? "…" : ""}`;
}

async function* walk(root: string, rel: string, signal?: AbortSignal): AsyncGenerator<string> {
  const dir = await opendir(rel === "" ? root : join(root, rel));
  const entries: { name: string; isDir: boolean }[] = [];
  for await (const entry of dir) {
    if (entry.name.startsWith(".") || entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) entries.push({ name: entry.name, isDir: true });
    else if (entry.isFile()) entries.push({ name: entry.name, isDir: false });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (signal?.aborted) return;
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDir) yield* walk(root, path, signal);
    else yield path;
  }
}

interface Budget {
  bytes: number;
  /** `performance.now()` after which the search stops. */
  deadline: number;
  exhausted: boolean;
}

/** One buffer for every read: files are read in place, never whole (memory stays flat). */
const CHUNK_BYTES = 256 * 1024;

/** How many "\n" are in `text` (native indexOf is much faster than a per-character loop). */
function countLines(text: string): number {
  let n = 0;
  let at = text.indexOf("\n");
  while (at !== -1) {
    n++;
    at = text.indexOf("\n", at + 1);
  }
  return n;
}

/**
 * Scans one file; pushes matches until `result.matches` holds `maxMatches`, then returns `true` as soon as
 * one more match shows up (the caller then knows the list is truncated).
 *
 * Text is handled a block of whole lines at a time: the block is lowercased once and searched with
 * `indexOf`; only a block holding a match (or owing context lines to an earlier one) is split into lines.
 */
async function scanFile(
  root: string,
  path: string,
  lowered: readonly string[],
  terms: readonly string[],
  options: FolderSearchOptions,
  result: FolderSearchResult,
  budget: Budget,
  buffer: Buffer,
): Promise<boolean> {
  const handle = await open(join(root, path), "r");
  const decoder = new StringDecoder("utf8");
  let before: string[] = [];
  let awaitingAfter: FolderMatch[] = [];
  let pending = "";
  let lineNo = 0;
  let first = true;
  let moreFound = false;

  const onLine = (line: string): boolean => {
    lineNo++;
    if (awaitingAfter.length > 0) {
      for (const m of awaitingAfter) m.after.push(clip(line));
      awaitingAfter = awaitingAfter.filter((m) => m.after.length < options.contextLines);
    }
    // Past the cap we only read on to give the last match its context.
    if (moreFound) return awaitingAfter.length === 0;
    const lower = line.toLowerCase();
    let hit = -1;
    let at = -1;
    for (let i = 0; i < lowered.length; i++) {
      at = lower.indexOf(lowered[i] as string);
      if (at !== -1) {
        hit = i;
        break;
      }
    }
    if (hit !== -1) {
      if (result.matches.length >= options.maxMatches) {
        moreFound = true;
        return awaitingAfter.length === 0;
      }
      const match: FolderMatch = {
        path,
        line: lineNo,
        text: clip(line, at),
        term: terms[hit] as string,
        before: [...before],
        after: [],
      };
      result.matches.push(match);
      if (options.contextLines > 0) awaitingAfter.push(match);
    }
    if (options.contextLines > 0) {
      before.push(clip(line));
      if (before.length > options.contextLines) before.shift();
    }
    return false;
  };

  /** `block` is whole lines joined by "\n" (no trailing one). Returns true to stop reading the file. */
  const onBlock = (block: string): boolean => {
    if (awaitingAfter.length === 0) {
      const lower = block.toLowerCase();
      let any = false;
      for (const term of lowered) {
        if (lower.includes(term)) {
          any = true;
          break;
        }
      }
      if (!any) {
        // Fast path: no match, no context owed; keep line count and the trailing context lines.
        lineNo += countLines(block) + 1;
        if (options.contextLines > 0) {
          let cut = block.length;
          for (let i = 0; i < options.contextLines && cut > 0; i++) cut = block.lastIndexOf("\n", cut - 1);
          const tail = block.slice(cut + 1).split("\n");
          before = [...before, ...tail]
            .slice(-options.contextLines)
            .map((l) => clip(l.endsWith("\r") ? l.slice(0, -1) : l));
        }
        return false;
      }
    }
    for (const raw of block.split("\n")) {
      if (onLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw)) return true;
    }
    return false;
  };

  let stop = false;
  try {
    for (;;) {
      if (options.signal?.aborted) break;
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (first) {
        first = false;
        if (chunk.subarray(0, 8000).includes(0)) break; // binary: not documentation text
      }
      budget.bytes += bytesRead;
      pending += decoder.write(chunk);
      const lastNl = pending.lastIndexOf("\n");
      if (lastNl !== -1) {
        const block = pending.slice(0, lastNl);
        pending = pending.slice(lastNl + 1);
        if (onBlock(block)) {
          stop = true;
          break;
        }
      }
      if (pending.length > MAX_PENDING_CHARS) {
        stop = onLine(pending);
        pending = "";
        if (stop) break;
      }
      if (budget.bytes >= (options.maxBytes ?? DEFAULT_MAX_BYTES) || performance.now() > budget.deadline) {
        budget.exhausted = true;
        break;
      }
    }
    if (!stop && !first && !budget.exhausted) {
      pending += decoder.end();
      if (pending.length > 0) onLine(pending.endsWith("\r") ? pending.slice(0, -1) : pending);
    }
  } finally {
    await handle.close();
  }
  return moreFound;
}

export async function searchFolder(root: string, options: FolderSearchOptions): Promise<FolderSearchResult> {
  const result: FolderSearchResult = { matches: [], truncated: false, files_searched: 0 };
  const lowered = options.terms.map((t) => t.toLowerCase());
  if (lowered.length === 0 || options.maxMatches <= 0) return result;
  const budget: Budget = {
    bytes: 0,
    deadline: performance.now() + (options.maxMillis ?? DEFAULT_MAX_MILLIS),
    exhausted: false,
  };
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for await (const path of walk(root, "", options.signal)) {
    if (options.signal?.aborted) {
      result.truncated = true;
      break;
    }
    if (result.files_searched >= maxFiles || performance.now() > budget.deadline) {
      result.truncated = true;
      break;
    }
    result.files_searched++;
    let more: boolean;
    try {
      more = await scanFile(root, path, lowered, options.terms, options, result, budget, buffer);
    } catch {
      continue; // unreadable file (permissions, vanished mid-walk): skip it, keep searching
    }
    if (more || budget.exhausted) {
      result.truncated = true;
      break;
    }
  }
  if (options.signal?.aborted) result.truncated = true;
  return result;
}
