/**
 * `get_user_story_requirements`, exactly as specs/user-story-requirements.md says: name, description and
 * input schema (1.7, 4.2), the text format (1.8), sort order (1.6, 3.3), the empty case (1.4, 3.2), type
 * names instead of ids (1.9, 4.1), and its two errors (2.1, 2.2).
 *
 * No payload twice (issue 16, item 5): the text carries each requirement's title and description verbatim,
 * as criterion 1.8 requires; the structured content carries every other field of criterion 1.3 (typed:
 * priority a number, no assignee as null) keyed by reference id, plus the page facts. Together they hold
 * each field once; title and description as data come from get_requirement or list_requirements.
 */
import * as z from "zod";
import type { Requirement } from "../core/domain.js";
import type { Executor } from "../db/database.js";
import { decodeCursor, encodeCursor } from "../db/entity-support.js";
import {
  countRequirementsOfUserStory,
  isRequirementKey,
  requirementsOfUserStoryAfter,
} from "../db/requirements.repo.js";
import { findUserStoryRow, userStoryNotFound } from "../db/user-stories.repo.js";
import { hostedTool, READ } from "./access.js";
import { jsonBytes, pageLimit, textBytes, toolBudget } from "./paging.js";
import { cursor, requirementOutput } from "./schemas.js";

/** What the text does not already carry: criterion 1.3's fields less title and description. */
const requirementFacts = requirementOutput.omit({ title: true, description: true, user_story_id: true });
type RequirementFacts = z.infer<typeof requirementFacts>;

export interface UserStoryRequirements {
  user_story: string;
  /** All requirements linked to the story (the header's N), whatever this page shows. */
  count: number;
  requirements: Requirement[];
  /** When more follow: the cursor of the next page and how many are after this one. */
  next_cursor?: string;
  remaining?: number;
}

/** Entries already formatted while a page was measured, so rendering does not format them again. */
const formatted = new WeakMap<Requirement, string>();

/** One entry of criterion 1.8's format. */
export function formatRequirementEntry(r: Requirement): string {
  const known = formatted.get(r);
  if (known !== undefined) return known;
  const entry = [
    `${r.reference_id}: ${r.title} (Priority: ${r.priority}, Status: ${r.status}, Type: ${r.type_name}, ` +
      `Creator: ${r.creator_username ?? "Unknown"}, Assignee: ${r.assignee_username ?? "Unassigned"})`,
    r.description === "" ? "(no description)" : r.description,
    `Created: ${r.created_at}`,
  ].join("\n");
  formatted.set(r, entry);
  return entry;
}

function factsOf({ title: _t, description: _d, user_story_id: _s, ...facts }: Requirement): RequirementFacts {
  return facts;
}

/** The structured content: the page facts and, per requirement, what its text entry does not carry. */
export function structuredUserStoryRequirements(out: UserStoryRequirements): Record<string, unknown> {
  return { ...out, requirements: out.requirements.map(factsOf) };
}

/** The last line of a page that has a next one (issue item 8): what was shown and the call for the rest. */
function nextPageLine(out: UserStoryRequirements): string {
  const through = out.count - (out.remaining ?? 0);
  const from = through - out.requirements.length + 1;
  return `Requirements ${from}–${through} of ${out.count} are shown. Next page: call get_user_story_requirements with user_story "${out.user_story}" and cursor "${out.next_cursor}".`;
}

export function renderUserStoryRequirements(out: UserStoryRequirements): string {
  if (out.count === 0) {
    // Criterion 3.2: a success whose message explains that nothing is linked.
    return `Found 0 requirements for user story ${out.user_story}. No requirements are currently linked to this user story.`;
  }
  // Criterion 1.8's text; N is the story's total, and a paged answer adds only the next-page line.
  const text = `Found ${out.count} requirements for user story ${out.user_story}:\n\n${out.requirements
    .map(formatRequirementEntry)
    .join("\n\n")}`;
  return out.next_cursor ? `${text}\n\n${nextPageLine(out)}` : text;
}

/** What one requirement adds to this tool's answer: its entry in the text and its structured facts. */
function entryBytes(r: Requirement): number {
  return textBytes(formatRequirementEntry(r)) + 4 + jsonBytes(factsOf(r));
}

/**
 * One page of a story's requirements in the spec's order (criteria 1.6, 3.3), keyed on (priority,
 * created_at, id) so pages neither skip nor repeat; `limit` items at most, fewer when the byte cap ends it.
 */
export async function userStoryRequirementsPage(
  db: Executor,
  workspaceId: number,
  story: { id: number; reference_id: string },
  limit: number,
  cursorText?: string,
): Promise<UserStoryRequirements> {
  const tag = `user_story_requirements:${story.reference_id}`;
  const after = decodeCursor(tag, cursorText, isRequirementKey);
  const budget = toolBudget(limit);
  const rows = await requirementsOfUserStoryAfter(db, workspaceId, story.id, after, limit + 1);
  const requirements: Requirement[] = [];
  let bytes = 0;
  let last: (typeof rows)[number] | undefined;
  for (const row of rows) {
    const size = entryBytes(row.item);
    if (requirements.length >= limit || (requirements.length > 0 && bytes + size > budget.maxBytes)) break;
    requirements.push(row.item);
    bytes += size;
    last = row;
  }
  const next = last !== undefined && requirements.length < rows.length ? last.key : undefined;
  // One count for the header's total and, when a page follows, how many come after this one.
  const { total, after: remaining } = await countRequirementsOfUserStory(db, workspaceId, story.id, next);
  if (!next) return { user_story: story.reference_id, count: total, requirements };
  return {
    user_story: story.reference_id,
    count: total,
    requirements,
    next_cursor: encodeCursor(tag, next),
    remaining,
  };
}

export const getUserStoryRequirementsTool = hostedTool({
  name: "get_user_story_requirements",
  title: "Get user story requirements",
  description: "Get all requirements linked to a specific user story",
  input: z.object({
    // Criteria 1.5, 1.7 and 2.2: only "US-<digits>"; anything else is this validation error.
    user_story: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^US-\d+$/, "Invalid user story reference ID format: expected a user story id like US-047")
      .describe("User story reference ID (e.g., 'US-047')"),
    // Issue item 8: optional paging; without them a story of up to 200 requirements comes whole.
    limit: pageLimit(),
    cursor: cursor().optional(),
  }),
  output: z.object({
    user_story: z.string(),
    count: z.number().int().describe("All requirements linked to the story, on every page."),
    requirements: z
      .array(requirementFacts)
      .describe(
        "Per requirement, in the text's order, the fields its text entry does not carry as data; its title and description are in the text (get_requirement returns them as data).",
      ),
    next_cursor: z
      .string()
      .optional()
      .describe("Present when more requirements follow: pass it as cursor to get them."),
    remaining: z.number().int().optional().describe("How many requirements follow this page."),
  }),
  annotations: READ,
  async handler({ user_story, limit, cursor: after }, ctx): Promise<UserStoryRequirements> {
    const workspaceId = ctx.auth.workspaceId;
    return ctx.database.read(async (db) => {
      // Stored ids are zero-padded to three digits: US-47 and US-0047 name US-047.
      const story =
        (await findUserStoryRow(db, workspaceId, user_story)) ??
        (await findUserStoryRow(
          db,
          workspaceId,
          `US-${String(Number.parseInt(user_story.slice(3), 10)).padStart(3, "0")}`,
        ));
      if (!story) throw userStoryNotFound(user_story); // criterion 2.1: "User story not found" + reference_id
      return userStoryRequirementsPage(db, workspaceId, story, limit, after);
    });
  },
  render: renderUserStoryRequirements,
  structured: structuredUserStoryRequirements,
});
