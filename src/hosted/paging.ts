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
    .describe(
      `Most items on one page (1–${MAX_PAGE_ITEMS}, default ${DEFAULT_PAGE_ITEMS}, so a normal story comes whole). A page also ends early near 1 MiB; next_cursor then continues it.`,
    );

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text).length;

/** Bytes JSON escaping adds to `text` inside a JSON string: `\"`, `\\`, `\n` add one; `\u0001` adds five. */
function escapes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c === 8 || c === 9 || c === 10 || c === 12 || c === 13) n++;
    else if (c < 32) n += 5;
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
  return 2 * utf8(compact) + escapes(compact) + Object.keys(item).length * 16;
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

/** What a string adds inside a JSON answer (its bytes plus its escapes). */
export function textBytes(text: string): number {
  return utf8(text) + escapes(text);
}
