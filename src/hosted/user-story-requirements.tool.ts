/**
 * `get_user_story_requirements`, exactly as specs/user-story-requirements.md says: name, description and
 * input schema (1.7, 4.2), the text format (1.8), sort order (1.6, 3.3), the empty case (1.4, 3.2), type
 * names instead of ids (1.9, 4.1), and its two errors (2.1, 2.2).
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
import { pageLimit, textBytes, toolBudget } from "./paging.js";
import { cursor, requirementOutput } from "./schemas.js";

export interface UserStoryRequirements {
  user_story: string;
  /** All requirements linked to the story (the header's N), whatever this page shows. */
  count: number;
  requirements: Requirement[];
  /** When more follow: the cursor of the next page and how many are after this one. */
  next_cursor?: string;
  remaining?: number;
}

/** One entry of criterion 1.8's format. */
export function formatRequirementEntry(r: Requirement): string {
  return [
    `${r.reference_id}: ${r.title} (Priority: ${r.priority}, Status: ${r.status}, Type: ${r.type_name}, ` +
      `Creator: ${r.creator_username ?? "Unknown"}, Assignee: ${r.assignee_username ?? "Unassigned"})`,
    r.description === "" ? "(no description)" : r.description,
    `Created: ${r.created_at}`,
  ].join("\n");
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

/** What one requirement adds to this tool's answer: its entry in the text and its structured object. */
function entryBytes(r: Requirement): number {
  return textBytes(`${formatRequirementEntry(r)}\n\n`) + textBytes(JSON.stringify(r));
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
  const count = await countRequirementsOfUserStory(db, workspaceId, story.id);
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
  if (!last || requirements.length === rows.length) {
    return { user_story: story.reference_id, count, requirements };
  }
  return {
    user_story: story.reference_id,
    count,
    requirements,
    next_cursor: encodeCursor(tag, last.key),
    remaining: await countRequirementsOfUserStory(db, workspaceId, story.id, last.key),
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
    requirements: z.array(requirementOutput),
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
});
