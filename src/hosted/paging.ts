/**
 * Paging of whole-story and whole-epic reads (issue item 8): get_user_story_requirements, get_user_story,
 * epic_hierarchy, their resources and the prompts that carry them. A page holds at most `limit` items
 * (default 200, so a normal story comes whole) and ends early before its answer passes
 * MAX_RESPONSE_BYTES; its cursor (the same opaque codec as every list) then continues it.
 */
import * as z from "zod";
import type { AcceptanceCriterion, Epic, Requirement, UserStory } from "../core/domain.js";
import type { PageBudget } from "../db/hierarchy.repo.js";

/** Most bytes one answer may carry on the wire (text and structured content together). */
export const MAX_RESPONSE_BYTES = 1_048_576;

/** Room kept for what no budget measures: the envelope, the next-page line, the header text. */
const HEADROOM = 32 * 1024;

export const DEFAULT_PAGE_ITEMS = 200;
export const MAX_PAGE_ITEMS = 1000;

export const pageLimit = () =>
  z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_ITEMS)
    .default(DEFAULT_PAGE_ITEMS)
    .describe("Most items on a page (a normal story comes whole); a page also ends near 1 MiB.");

const ASCII = /^[^\u0080-\uffff]*$/;

/** UTF-8 length of `text`, counted without encoding it (pages measure every item they hold). */
function utf8(text: string): number {
  if (ASCII.test(text)) return text.length;
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2; // a surrogate pair: 2 UTF-16 units, 4 bytes
        i++;
      } else n += 2;
    } else n += 2;
  }
  return n;
}

type Item = Epic | UserStory | Requirement | AcceptanceCriterion;

/**
 * What an item adds to a tool answer rendered as pretty JSON text plus the same object as structured
 * content: its JSON twice, the text's escapes again, and indentation of a nested line per field.
 */
export function jsonAnswerBytes(item: Item): number {
  const compact = JSON.stringify(item);
  return utf8(compact) + textBytes(compact) + Object.keys(item).length * 16;
}

/** The budget of a tool page (`limit` items within the byte cap). */
export function toolBudget(limit: number, size: (item: Item) => number = jsonAnswerBytes): PageBudget {
  return { limit, maxBytes: MAX_RESPONSE_BYTES - HEADROOM, size };
}

/** Prompts carry less: they are context for one task, and the model can fetch the rest with a tool. */
export const PROMPT_BUDGET: PageBudget = {
  limit: DEFAULT_PAGE_ITEMS,
  maxBytes: 256 * 1024,
  size: (item) => utf8(JSON.stringify(item)),
};

/** What a JSON value adds to an answer as it is (structured content), not as a string. */
export const jsonBytes = (value: unknown) => utf8(JSON.stringify(value));

/**
 * What a string adds inside a JSON answer: its bytes with JSON's escapes (`\n` is two bytes, `\u0001` six),
 * measured on JSON.stringify's own output, which is native and fast.
 */
export function textBytes(text: string): number {
  return utf8(JSON.stringify(text)) - 2;
}
