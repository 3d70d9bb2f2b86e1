/**
 * Reading one category file: chapters (G.GCH.3), requirement lists (G.GR.3), single requirements
 * (G.GRQ.3/4) and the facts insert, update and delete need. Every pass streams the file through
 * `scanHeadings` and keeps only what it returns (a list of names, or a few offsets), stopping as soon as
 * it has its answer.
 */
import type { FileHandle } from "node:fs/promises";
import {
  type HeadingLine,
  readRange,
  type ScanOptions,
  type ScanSummary,
  scanHeadings,
} from "./line-scanner.js";
import {
  type IndexParts,
  normalizeBody,
  parseRequirementHeading,
  type RequirementHeading,
  sameIndex,
  samePrefix,
} from "./markdown.js";

export type CategoryEvent =
  | { kind: "chapter"; name: string; line: HeadingLine }
  | { kind: "requirement"; req: RequirementHeading; chapter: string | undefined; line: HeadingLine }
  | { kind: "other"; text: string; chapter: string | undefined; line: HeadingLine };

/** Headings of a category file as chapters and requirements, in order; return `true` to stop. */
export function walkCategory(
  fh: FileHandle,
  // biome-ignore lint/suspicious/noConfusingVoidType: visitors that never stop return nothing
  visit: (event: CategoryEvent) => boolean | undefined | void,
  options: ScanOptions | AbortSignal | undefined = {},
): Promise<ScanSummary> {
  const scan: ScanOptions = options instanceof AbortSignal ? { signal: options } : options;
  let chapter: string | undefined;
  return scanHeadings(
    fh,
    (line) => {
      if (line.level === 1) {
        chapter = line.text;
        return visit({ kind: "chapter", name: line.text, line });
      }
      const req = parseRequirementHeading(line.text);
      if (req) return visit({ kind: "requirement", req, chapter, line });
      return visit({ kind: "other", text: line.text, chapter, line });
    },
    scan,
  );
}

const ZERO = 0x30;
const COLON = 0x3a;

/**
 * A byte-level pre-check for requirement headings that can be one of `targets` (ASCII letters compared
 * case-insensitively, leading zeros of the number allowed), so a scan decodes only those. Undefined when
 * a target holds non-ASCII letters: then every heading is decoded and compared with `sameIndex`.
 */
function indexFilter(targets: IndexParts[], passAll: () => boolean): ScanOptions["wantH2"] {
  const heads = targets.map((t) => `${t.categoryPrefix}.${t.chapterPrefix}.`.toUpperCase());
  if (heads.some((h) => /[^\x21-\x7e]/.test(h))) return undefined;
  const wanted = targets.map((t, i) => ({
    head: Buffer.from(heads[i] as string),
    number: Buffer.from(`${t.number}:`),
  }));
  return (buf, start, end) => {
    if (passAll()) return true;
    let s = start;
    while (s < end && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
    next: for (const w of wanted) {
      if (end - s < w.head.length + w.number.length) continue;
      for (let i = 0; i < w.head.length; i++) {
        let c = buf[s + i] as number;
        if (c >= 0x61 && c <= 0x7a) c -= 32;
        if (c !== w.head[i]) continue next;
      }
      let p = s + w.head.length;
      while (buf[p] === ZERO && buf[p + 1] !== COLON && p + 1 < end) p++;
      if (end - p < w.number.length) continue;
      for (let i = 0; i < w.number.length; i++) if (buf[p + i] !== w.number[i]) continue next;
      return true;
    }
    return false;
  };
}

/** G.GCH.3: level-1 headings, in file order. */
export async function listChapters(fh: FileHandle, signal?: AbortSignal): Promise<string[]> {
  const chapters: string[] = [];
  await walkCategory(
    fh,
    (e) => {
      if (e.kind === "chapter") chapters.push(e.name);
    },
    signal,
  );
  return chapters;
}

export interface ListedRequirement {
  index: string;
  title: string;
}

/** G.GR.3: requirement headings of the first chapter named exactly `chapter`; `undefined` if there is none. */
export async function listRequirements(
  fh: FileHandle,
  chapter: string,
  signal?: AbortSignal,
): Promise<{ requirements: ListedRequirement[] } | { missing: true; chapters: string[] }> {
  const chapters: string[] = [];
  let inside = false;
  let found = false;
  const requirements: ListedRequirement[] = [];
  await walkCategory(
    fh,
    (e) => {
      if (e.kind === "chapter") {
        if (inside) return true; // next chapter: done
        chapters.push(e.name);
        if (e.name === chapter) inside = found = true;
      } else if (inside && e.kind === "requirement") {
        requirements.push({ index: e.req.index, title: e.req.title });
      }
    },
    signal,
  );
  return found ? { requirements } : { missing: true, chapters };
}

/** The category prefix this file already carries: that of its first requirement heading (G.IR.3). */
export async function storedCategoryPrefix(
  fh: FileHandle,
  signal?: AbortSignal,
): Promise<string | undefined> {
  let prefix: string | undefined;
  await walkCategory(
    fh,
    (e) => {
      if (e.kind === "requirement") {
        prefix = e.req.categoryPrefix;
        return true;
      }
    },
    signal,
  );
  return prefix;
}

export interface LocatedRequirement {
  index: string;
  title: string;
  chapter: string;
  /** Offsets of the heading line and of the body's end (the next heading, or the end of the file). */
  start: number;
  headingEnd: number;
  bodyEnd: number;
}

export interface Lookup {
  located: Map<number, LocatedRequirement>;
  /** For targets not found: the chapter that uses their chapter prefix, if any (for the error message). */
  chapterOfPrefix: Map<number, string>;
  size: number;
}

/** A requirement heading's start as reqlix writes it: `## G.G.1:`. */
function canonicalHeading(t: IndexParts): string {
  return `## ${t.categoryPrefix.toUpperCase()}.${t.chapterPrefix.toUpperCase()}.${t.number}:`;
}

/** A requirement heading just met; its body's end is set when the next heading (or the end) comes. */
function locatedAt(e: {
  req: RequirementHeading;
  chapter: string | undefined;
  line: HeadingLine;
}): LocatedRequirement {
  return {
    index: e.req.index,
    title: e.req.title,
    chapter: e.chapter ?? "",
    start: e.line.start,
    headingEnd: e.line.end,
    bodyEnd: -1,
  };
}

/**
 * G.GRQ.3/4: finds each target index (by full index, never by prefix) in one pass, and stops once every
 * target's body is closed by the next heading.
 */
export async function locateRequirements(
  fh: FileHandle,
  targets: IndexParts[],
  signal?: AbortSignal,
  fast = true,
): Promise<Lookup> {
  const located = new Map<number, LocatedRequirement>();
  const chapterOfPrefix = new Map<number, string>();
  let open: LocatedRequirement | undefined;
  const summary = await walkCategory(
    fh,
    (e) => {
      if (open) {
        open.bodyEnd = e.line.start;
        open = undefined;
      }
      if (located.size === targets.length) return true;
      if (e.kind !== "requirement") return false;
      targets.forEach((t, i) => {
        if (!located.has(i) && sameIndex(t, e.req)) {
          // Two spellings of one index (g.g.1, G.G.1) share the heading and its body end.
          open ??= locatedAt(e);
          located.set(i, open);
        }
      });
      return false;
    },
    {
      signal,
      wantH2: indexFilter(targets, () => open !== undefined),
      fastH2: fast ? { needles: targets.map(canonicalHeading), active: () => open === undefined } : undefined,
    },
  );
  for (const r of located.values()) if (r.bodyEnd < 0) r.bodyEnd = summary.size;
  if (fast && located.size < targets.length) {
    // Not found as written by reqlix: look again for other spellings (lower case, leading zeros, spaces).
    return locateRequirements(fh, targets, signal, false);
  }
  if (located.size < targets.length) {
    // Only for the error message: which chapter uses each missing target's chapter prefix.
    await walkCategory(
      fh,
      (e) => {
        if (e.kind !== "requirement") return;
        targets.forEach((t, i) => {
          if (
            !located.has(i) &&
            !chapterOfPrefix.has(i) &&
            samePrefix(t.chapterPrefix, e.req.chapterPrefix)
          ) {
            chapterOfPrefix.set(i, e.chapter ?? "");
          }
        });
      },
      signal,
    );
  }
  return { located, chapterOfPrefix, size: summary.size };
}

/** The body of a located requirement, as the tools return it (LF, no blank lines around). */
export async function readBody(fh: FileHandle, r: LocatedRequirement): Promise<string> {
  const bytes = await readRange(fh, r.headingEnd, r.bodyEnd);
  return normalizeBody(bytes.toString("utf8"));
}

export interface ChapterFacts {
  name: string;
  start: number;
  headingEnd: number;
  /** Start of the next chapter heading, or the end of the file. */
  end: number;
  /** Chapter prefix of its first requirement, if it has one. */
  prefix: string | undefined;
  maxNumber: number;
  /** Requirement title → index, for the uniqueness check (G.IR.3 step 3, G.UR.3 step 4). */
  titles: Map<string, string>;
  /** Requirement headings in the chapter. */
  requirements: number;
  /** Level-2 headings in the chapter that are not requirements. */
  otherHeadings: number;
}

export interface FileFacts {
  summary: ScanSummary;
  /** Category prefix of the first requirement in the file. */
  categoryPrefix: string | undefined;
  /** Every chapter prefix carried by a requirement heading in the file. */
  chapterPrefixes: Set<string>;
  chapter: ChapterFacts | undefined;
}

/**
 * What insert needs: the file's prefixes and the facts of the first chapter named `chapter` (G.IR.3).
 * The first pass decodes only the requirement headings it needs (the file's first, and the target
 * chapter's); all chapter prefixes are collected only when the chapter needs a new prefix.
 */
export async function factsForInsert(
  fh: FileHandle,
  chapter: string,
  signal?: AbortSignal,
  title?: string,
): Promise<FileFacts> {
  let categoryPrefix: string | undefined;
  const chapterPrefixes = new Set<string>();
  let target: ChapterFacts | undefined;
  let inTarget = false;
  let everyHeading = false;
  const titleBytes = title === undefined ? undefined : Buffer.from(title, "utf8");
  const visit = (e: CategoryEvent) => {
    if (e.kind === "chapter") {
      if (inTarget && target) target.end = e.line.start;
      inTarget = false;
      if (!target && e.name === chapter) {
        target = newChapter(e.name, e.line);
        inTarget = true;
      }
      return;
    }
    if (e.kind === "requirement") {
      categoryPrefix ??= e.req.categoryPrefix;
      chapterPrefixes.add(e.req.chapterPrefix.toUpperCase());
    }
    if (inTarget && target) addToChapter(target, e);
  };
  /**
   * Inside the target chapter, once its prefix is known, a requirement heading is counted from its bytes
   * (its number) and decoded only when it may carry the new title: `titles` then holds just the
   * candidates, which is all the uniqueness check needs.
   */
  let prefixBytes: Buffer | undefined;
  const wantH2 = (buf: Buffer, start: number, end: number): boolean => {
    if (everyHeading || categoryPrefix === undefined) return true;
    if (!inTarget || !target) return false;
    if (!target.prefix || !titleBytes) return true;
    prefixBytes ??= Buffer.from(target.prefix.toUpperCase(), "utf8");
    const h = scanHeadingBytes(buf, start, end, prefixBytes);
    if (h === undefined) return true; // an unusual shape: let the parser decide
    if (equalBytes(buf, h.titleStart, h.titleEnd, titleBytes)) return true; // counted when decoded
    target.requirements++;
    if (h.number > target.maxNumber) target.maxNumber = h.number;
    return false;
  };
  let summary = await walkCategory(fh, visit, {
    signal,
    wantH2,
    // Outside the target chapter, once the category prefix is known, only chapter headings matter.
    fastH2: { needles: [], active: () => !everyHeading && !inTarget && categoryPrefix !== undefined },
  });
  if (inTarget && target) target.end = summary.size;
  if (!target?.prefix) {
    // A new chapter prefix must differ from every chapter prefix in the file: read them all.
    everyHeading = true;
    categoryPrefix = undefined;
    chapterPrefixes.clear();
    target = undefined;
    inTarget = false;
    summary = await walkCategory(fh, visit, { signal });
    if (inTarget && target) (target as ChapterFacts).end = summary.size;
  }
  return { summary, categoryPrefix, chapterPrefixes, chapter: target };
}

const SPACE = 0x20;
const TAB = 0x09;
const DOT = 0x2e;

function equalBytes(buf: Buffer, start: number, end: number, bytes: Buffer): boolean {
  if (end - start !== bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (buf[start + i] !== bytes[i]) return false;
  return true;
}

/**
 * Reads `{cat}.{chapter}.{n}: {title}` from the bytes after `## ` without allocating, when it has the
 * parser's shape (no blank inside the index, printable ASCII, a blank or the end after the colon) and its
 * chapter part equals `prefix` (upper-case ASCII; letters compared case-insensitively). Anything else →
 * undefined, and the heading is decoded and parsed instead.
 */
function scanHeadingBytes(
  buf: Buffer,
  start: number,
  end: number,
  prefix: Buffer,
): { number: number; titleStart: number; titleEnd: number } | undefined {
  let s = start;
  while (s < end && (buf[s] === SPACE || buf[s] === TAB)) s++;
  let firstDot = -1;
  let secondDot = -1;
  let colon = -1;
  for (let i = s; i < end; i++) {
    const c = buf[i] as number;
    if (c === COLON) {
      colon = i;
      break;
    }
    if (c <= SPACE || c > 0x7e) return undefined;
    if (c === DOT) {
      if (firstDot < 0) firstDot = i;
      else if (secondDot < 0) secondDot = i;
      else return undefined; // four parts
    }
  }
  if (colon < 0 || firstDot <= s || secondDot <= firstDot + 1 || colon <= secondDot + 1) return undefined;
  if (colon + 1 < end && buf[colon + 1] !== SPACE && buf[colon + 1] !== TAB) return undefined;
  if (secondDot - firstDot - 1 !== prefix.length) return undefined;
  for (let i = 0; i < prefix.length; i++) {
    let c = buf[firstDot + 1 + i] as number;
    if (c >= 0x61 && c <= 0x7a) c -= 32;
    if (c !== prefix[i]) return undefined;
  }
  let number = 0;
  for (let i = secondDot + 1; i < colon; i++) {
    const d = (buf[i] as number) - ZERO;
    if (d < 0 || d > 9) return undefined;
    number = number * 10 + d;
  }
  if (!Number.isSafeInteger(number)) return undefined;
  let titleStart = colon + 1;
  while (titleStart < end && (buf[titleStart] === SPACE || buf[titleStart] === TAB)) titleStart++;
  let titleEnd = end;
  while (titleEnd > titleStart && (buf[titleEnd - 1] === SPACE || buf[titleEnd - 1] === TAB)) titleEnd--;
  return { number, titleStart, titleEnd };
}

function newChapter(name: string, line: HeadingLine): ChapterFacts {
  return {
    name,
    start: line.start,
    headingEnd: line.end,
    end: -1,
    prefix: undefined,
    maxNumber: 0,
    titles: new Map(),
    requirements: 0,
    otherHeadings: 0,
  };
}

function addToChapter(chapter: ChapterFacts, e: CategoryEvent): void {
  if (e.kind === "requirement") {
    chapter.requirements++;
    chapter.prefix ??= e.req.chapterPrefix;
    if (samePrefix(chapter.prefix, e.req.chapterPrefix))
      chapter.maxNumber = Math.max(chapter.maxNumber, e.req.number);
    if (!chapter.titles.has(e.req.title)) chapter.titles.set(e.req.title, e.req.index);
  } else if (e.kind === "other") {
    chapter.otherHeadings++;
  }
}

export interface TargetFacts {
  summary: ScanSummary;
  target: LocatedRequirement | undefined;
  /** The chapter holding the target (undefined when the target sits before any chapter heading). */
  chapter: ChapterFacts | undefined;
  /** For a missing target: the chapter that uses its chapter prefix. */
  chapterOfPrefix: string | undefined;
}

/**
 * What update and delete need: the target requirement and the facts of its chapter (G.UR.3). A fast pass
 * finds the target and where its chapter starts; a second pass reads that chapter only.
 */
export async function factsForTarget(
  fh: FileHandle,
  index: IndexParts,
  signal?: AbortSignal,
): Promise<TargetFacts> {
  let chapterStart = 0;
  let found = false;
  await walkCategory(
    fh,
    (e) => {
      if (e.kind === "chapter") chapterStart = e.line.start;
      else if (e.kind === "requirement" && sameIndex(index, e.req)) {
        found = true;
        return true;
      }
    },
    { signal, wantH2: indexFilter([index], () => false) },
  );
  if (!found) {
    const lookup = await locateRequirements(fh, [index], signal);
    const summary = await walkCategory(fh, () => true, { signal });
    return {
      summary: { ...summary, stopped: false },
      target: undefined,
      chapter: undefined,
      chapterOfPrefix: lookup.chapterOfPrefix.get(0),
    };
  }
  let current: ChapterFacts | undefined;
  let target: LocatedRequirement | undefined;
  let targetChapter: ChapterFacts | undefined;
  let open = false;
  const summary = await walkCategory(
    fh,
    (e) => {
      if (open && target) {
        target.bodyEnd = e.line.start;
        open = false;
      }
      if (e.kind === "chapter") {
        if (current) current.end = e.line.start;
        if (target) return true; // the target's chapter is complete
        current = newChapter(e.name, e.line);
        return;
      }
      if (current) addToChapter(current, e);
      if (e.kind === "requirement" && !target && sameIndex(index, e.req)) {
        target = locatedAt(e);
        targetChapter = current;
        open = true;
      }
    },
    { signal, startAt: chapterStart },
  );
  const t = target as LocatedRequirement | undefined;
  if (t && t.bodyEnd < 0) t.bodyEnd = summary.size;
  const c = current as ChapterFacts | undefined;
  if (c && c.end < 0) c.end = summary.size;
  return { summary, target: t, chapter: targetChapter, chapterOfPrefix: undefined };
}
