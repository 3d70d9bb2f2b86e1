/**
 * Where the bytes go for insert (G.IR.3 step 5, G.IR.4), update (G.UR.3 step 5, G.UR.4) and delete.
 * Each plan is a list of splices over the original file; every byte outside them is kept, and the text
 * written uses the file's own line ending. Layout written: a blank line before and after every heading,
 * `## {index}: {title}`, the body, and a line ending after it (except at the end of a file that had no
 * trailing newline: that stays so).
 */
import type { FileHandle } from "node:fs/promises";
import { DomainError } from "../../core/errors.js";
import type { Splice } from "./atomic-write.js";
import type { ChapterFacts, FileFacts, LocatedRequirement } from "./category-file.js";
import { contentEnd, isBlankRange, readRange, type ScanSummary } from "./line-scanner.js";

const NL = 0x0a;
const CR = 0x0d;

async function byteAt(fh: FileHandle | undefined, pos: number): Promise<number | undefined> {
  if (!fh || pos < 0) return undefined;
  return (await readRange(fh, pos, pos + 1))[0];
}

function withEol(text: string, eol: string): string {
  return eol === "\n" ? text : text.split("\n").join(eol);
}

export function requirementBlock(index: string, title: string, body: string, eol: string): string {
  return `## ${index}: ${title}${eol}${eol}${withEol(body, eol)}`;
}

function openFenceError(summary: ScanSummary): DomainError {
  return DomainError.conflict(
    `The category file ends inside a code fence opened by the line "${summary.openFence?.trim()}", so anything appended after it would be hidden in the code block. Close that fence (add a line with the same fence characters) and retry.`,
  );
}

/**
 * Puts `content` (starting with a heading) right after the last non-blank line of [from, to): one blank
 * line before it, a blank line kept or added before the heading that follows.
 */
async function insertAfterContent(
  fh: FileHandle | undefined,
  summary: ScanSummary,
  from: number,
  to: number,
  content: string,
): Promise<Splice> {
  const { eol, size } = summary;
  const at = fh ? await contentEnd(fh, from, to) : 0;
  const atStart = at <= summary.bomLength; // nothing before it but a byte-order mark
  const hasEol = atStart || (await byteAt(fh, at - 1)) === NL;
  const lead = atStart ? "" : hasEol ? eol : eol + eol;
  const atEof = at === size;
  // At the end of a file that had no trailing newline, keep it that way.
  const trail = atEof && !hasEol ? "" : eol;
  // A heading right after the insertion point (no blank line in between) gets one.
  const gap = !atEof && at === to && to < size ? eol : "";
  return { start: at, end: at, insert: lead + content + trail + gap };
}

/** G.IR.3 step 5: append to the chapter (after its last non-blank line), or a new chapter at the end (step 2). */
export async function planInsert(
  fh: FileHandle | undefined,
  facts: FileFacts,
  chapter: string,
  block: string,
): Promise<Splice[]> {
  const { summary } = facts;
  const target = facts.chapter;
  if (target) {
    if (target.end === summary.size && summary.openFence !== undefined) throw openFenceError(summary);
    return [await insertAfterContent(fh, summary, target.start, target.end, block)];
  }
  if (summary.openFence !== undefined) throw openFenceError(summary);
  const { eol } = summary;
  return [
    await insertAfterContent(
      fh,
      summary,
      summary.bomLength,
      summary.size,
      `# ${chapter}${eol}${eol}${block}`,
    ),
  ];
}

/** G.UR.3 step 5, G.UR.4: replace the heading and body in place; the blank lines and all after it stay. */
export async function planUpdate(
  fh: FileHandle,
  summary: ScanSummary,
  target: LocatedRequirement,
  block: string,
): Promise<Splice[]> {
  const { eol, size } = summary;
  const end = Math.max(target.headingEnd, await contentEnd(fh, target.headingEnd, target.bodyEnd));
  const hasEol = (await byteAt(fh, end - 1)) === NL;
  const gap = end === target.bodyEnd && target.bodyEnd < size ? eol : "";
  return [{ start: target.start, end, insert: block + (hasEol ? eol : "") + gap }];
}

/**
 * Delete: removes the requirement's heading and body; when its chapter is left with no requirement and
 * no other text, the chapter heading goes too. Removing the tail of the file also removes the blank
 * lines before it but keeps the file's trailing blank lines and its trailing newline (or its absence).
 */
export async function planDelete(
  fh: FileHandle,
  summary: ScanSummary,
  target: LocatedRequirement,
  chapter: ChapterFacts | undefined,
): Promise<{ splices: Splice[]; chapterRemoved: boolean }> {
  const { size, bomLength } = summary;
  let start = target.start;
  let end = target.bodyEnd;
  let chapterRemoved = false;
  if (
    chapter &&
    chapter.requirements === 1 &&
    chapter.otherHeadings === 0 &&
    (await isBlankRange(fh, chapter.headingEnd, target.start)) &&
    (await isBlankRange(fh, target.bodyEnd, chapter.end))
  ) {
    start = Math.max(chapter.start, bomLength);
    end = chapter.end;
    chapterRemoved = true;
  }
  if (end < size) return { splices: [{ start, end, insert: "" }], chapterRemoved };
  // Removing the last block of the file: cut from the end of the last line that stays to the end of the
  // block's own content, so the file's trailing blank lines (if any) stay, and a file that ended without
  // a newline still does.
  const stop = await contentEnd(fh, start, size);
  let cut = await contentEnd(fh, bomLength, start);
  if (
    stop === size &&
    (await byteAt(fh, size - 1)) !== NL &&
    cut > bomLength &&
    (await byteAt(fh, cut - 1)) === NL
  ) {
    cut -= (await byteAt(fh, cut - 2)) === CR ? 2 : 1;
  }
  return { splices: [{ start: cut, end: stop, insert: "" }], chapterRemoved };
}
