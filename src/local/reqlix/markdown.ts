/**
 * The markdown rules of a category file (G.F.2, G.F.3), in one place so that every reader and writer
 * sees the same structure:
 *
 * - A chapter heading is a line that starts with `# ` at column 0 (G.F.2); a requirement heading starts
 *   with `## ` (G.F.3). `###` and deeper are body text. The heading text is trimmed of spaces and tabs.
 * - Lines inside a fenced code block are never headings. A fence opens with a line of 0–3 spaces then
 *   at least three backticks or tildes (a backtick fence's info string holds no backtick) and closes with
 *   the same character, at least as many, and nothing else but spaces (CommonMark). An unclosed fence
 *   runs to the end of the file.
 * - Lines end with LF or CRLF; the CR is not part of the line's text.
 */

export type HeadingLevel = 1 | 2;

/** `# ` / `## ` at column 0 → level and trimmed text; anything else → undefined. */
export function headingOf(line: string): { level: HeadingLevel; text: string } | undefined {
  if (line.charCodeAt(0) !== 0x23) return undefined;
  if (line.startsWith("# ")) return { level: 1, text: trimBlank(line.slice(2)) };
  if (line.startsWith("## ")) return { level: 2, text: trimBlank(line.slice(3)) };
  return undefined;
}

export function trimBlank(s: string): string {
  return s.replace(/^[ \t]+|[ \t]+$/g, "");
}

const BACKTICK = 0x60;
const TILDE = 0x7e;
const SPACE = 0x20;
const TAB = 0x09;

/** Tracks fenced code blocks across lines fed in file order (as text, or as bytes of a read buffer). */
export class FenceTracker {
  private openChar = 0;
  private openLength = 0;
  /** Text of the line that opened the current fence (for error messages). */
  openedBy: string | undefined;

  get inFence(): boolean {
    return this.openChar !== 0;
  }

  /** Feeds one line; returns true when the line is a fence delimiter or inside a fence (so not a heading). */
  feed(line: string): boolean {
    return this.step(
      line.length,
      (i) => line.charCodeAt(i),
      () => line,
    );
  }

  /** The same for the bytes [start, end) of a buffer (the line without its line ending): nothing is decoded
   * unless the line opens a fence. */
  feedBytes(buf: Buffer, start: number, end: number): boolean {
    return this.step(
      end - start,
      (i) => buf[start + i] as number,
      () => buf.toString("utf8", start, end),
    );
  }

  // The CommonMark rules of the module comment, on character codes (ASCII only matter here).
  private step(length: number, at: (i: number) => number, text: () => string): boolean {
    let i = 0;
    while (i < length && i < 4 && at(i) === SPACE) i++;
    const ch = i < 4 && i < length ? at(i) : 0;
    let run = 0;
    if (ch === BACKTICK || ch === TILDE) while (i + run < length && at(i + run) === ch) run++;
    if (this.openChar !== 0) {
      if (run >= 3 && ch === this.openChar && run >= this.openLength) {
        let k = i + run;
        while (k < length && (at(k) === SPACE || at(k) === TAB)) k++;
        if (k === length) {
          this.openChar = 0;
          this.openLength = 0;
          this.openedBy = undefined;
        }
      }
      return true;
    }
    if (run < 3) return false;
    if (ch === BACKTICK) for (let k = i + run; k < length; k++) if (at(k) === BACKTICK) return false; // inline code
    this.openChar = ch;
    this.openLength = run;
    this.openedBy = text();
    return true;
  }
}

export interface RequirementHeading {
  /** The index exactly as written in the file. */
  index: string;
  categoryPrefix: string;
  chapterPrefix: string;
  number: number;
  title: string;
}

const REQ_HEADING = /^([^\s:]+):(?:[ \t]+(.*))?$/;
const INDEX = /^([^.\s:]+)\.([^.\s:]+)\.(\d+)$/;

/** `## {index}: {title}` (G.F.3) → its parts; a level-2 heading of another shape is not a requirement. */
export function parseRequirementHeading(text: string): RequirementHeading | undefined {
  const m = REQ_HEADING.exec(text);
  if (!m) return undefined;
  const index = m[1] as string;
  const parts = parseIndex(index);
  if (!parts) return undefined;
  return { index, ...parts, title: trimBlank(m[2] ?? "") };
}

export interface IndexParts {
  categoryPrefix: string;
  chapterPrefix: string;
  number: number;
}

/** Splits an index on dots (G.F.4, G.GRQ.3): `{category_prefix}.{chapter_prefix}.{number}`. */
export function parseIndex(index: string): IndexParts | undefined {
  const m = INDEX.exec(index);
  if (!m) return undefined;
  const number = Number(m[3]);
  if (!Number.isSafeInteger(number)) return undefined;
  return { categoryPrefix: m[1] as string, chapterPrefix: m[2] as string, number };
}

/** Index equality: same parts, letters compared case-insensitively, numbers as numbers (never by prefix). */
export function sameIndex(a: IndexParts, b: IndexParts): boolean {
  return (
    a.number === b.number &&
    a.categoryPrefix.toUpperCase() === b.categoryPrefix.toUpperCase() &&
    a.chapterPrefix.toUpperCase() === b.chapterPrefix.toUpperCase()
  );
}

export function samePrefix(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}

/**
 * A requirement body as the tools exchange it: LF line endings, no leading or trailing blank lines.
 * Insert returns exactly what a later read returns.
 */
export function normalizeBody(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let first = 0;
  let last = lines.length - 1;
  while (first <= last && isBlank(lines[first] as string)) first++;
  while (last >= first && isBlank(lines[last] as string)) last--;
  return lines.slice(first, last + 1).join("\n");
}

export function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

/**
 * Why a body cannot be stored as-is, or undefined. A body line read as a heading would split the
 * requirement (or the chapter); an unclosed fence would hide every heading after it.
 */
export function bodyProblem(body: string): string | undefined {
  const fences = new FenceTracker();
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.includes("\u0000")) return `text line ${i + 1} contains a NUL character; remove it`;
    if (fences.feed(line)) continue;
    const heading = headingOf(line);
    if (heading) {
      const what = heading.level === 1 ? "a chapter heading (`# `)" : "a requirement heading (`## `)";
      return (
        `text line ${i + 1} starts with "${"#".repeat(heading.level)} ", which would be read as ${what} and split ` +
        "the requirement. Use `###` or deeper for headings inside a requirement, or put the line in a code block."
      );
    }
  }
  if (fences.inFence) {
    return `text opens a code fence ("${fences.openedBy?.trim()}") that is never closed; add a closing fence line so the headings after it stay visible.`;
  }
  return undefined;
}
