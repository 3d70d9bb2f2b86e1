/**
 * `get_user_story_requirements`, exactly as specs/user-story-requirements.md says: name, description and
 * input schema (1.7, 4.2), the text format (1.8), sort order (1.6, 3.3), the empty case (1.4, 3.2), type
 * names instead of ids (1.9, 4.1), and its two errors (2.1, 2.2).
 */
import { z } from "zod";
import type { Requirement } from "../core/domain.js";
import { requirementsOfUserStories } from "../db/requirements.repo.js";
import { findUserStoryRow, userStoryNotFound } from "../db/user-stories.repo.js";
import { hostedTool, READ } from "./access.js";
import { requirementOutput } from "./schemas.js";

export interface UserStoryRequirements {
  user_story: string;
  count: number;
  requirements: Requirement[];
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

export function renderUserStoryRequirements(out: UserStoryRequirements): string {
  if (out.count === 0) {
    // Criterion 3.2: a success whose message explains that nothing is linked.
    return `Found 0 requirements for user story ${out.user_story}. No requirements are currently linked to this user story.`;
  }
  return `Found ${out.count} requirements for user story ${out.user_story}:\n\n${out.requirements
    .map(formatRequirementEntry)
    .join("\n\n")}`;
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
  }),
  output: z.object({
    user_story: z.string(),
    count: z.number().int(),
    requirements: z.array(requirementOutput),
  }),
  annotations: READ,
  async handler({ user_story }, ctx): Promise<UserStoryRequirements> {
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
      const requirements = await requirementsOfUserStories(db, workspaceId, [story.id]);
      return { user_story: story.reference_id, count: requirements.length, requirements };
    });
  },
  render: renderUserStoryRequirements,
});
