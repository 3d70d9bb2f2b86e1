/**
 * Deletes (issue item 18): editor and above (access.ts, from the annotations). Each runs in one write
 * transaction; a delete that would orphan children or break a depends_on link is refused, naming what
 * blocks, unless `cascade: true`. The result lists every id removed. Deleted ids are never reissued; each
 * removed item's history ends with a `delete` revision carrying the call's change_note and source.
 */
import * as z from "zod";
import {
  deleteAcceptanceCriterion,
  deleteEpic,
  deleteRequirement,
  deleteUserStory,
} from "../db/deletes.repo.js";
import { actor, DELETE, hostedTool } from "./access.js";
import { criterionId, epicId, requirementId, userStoryId } from "./schemas.js";

const cascade = (what: string) =>
  z
    .boolean()
    .default(false)
    .describe(
      `Also delete ${what}. Default false: the delete is refused and the answer names what blocks it.`,
    );

const deletedOutput = z.object({
  reference_id: z.string().describe("The entity you asked to delete."),
  deleted: z
    .object({
      epics: z.array(z.string()),
      user_stories: z.array(z.string()),
      requirements: z.array(z.string()),
      acceptance_criteria: z.array(z.string()),
      relationships: z.array(
        z.object({
          source_requirement_id: z.string(),
          relationship_type: z.string(),
          target_requirement_id: z.string(),
        }),
      ),
    })
    .describe("Every reference id removed by this call, by kind. Removed ids are never reused."),
});

export const deleteEpicTool = hostedTool({
  name: "delete_epic",
  title: "Delete epic",
  description:
    "Delete an epic for good. Refused while it still has user stories (the answer lists them): delete or move them first, or pass cascade: true to delete the epic with all its stories, their requirements, acceptance criteria and every relationship touching those requirements. Returns every id removed. Cannot be undone; confirm with the user first.",
  input: z.object({
    epic_id: epicId(),
    cascade: cascade(
      "its user stories, their requirements and acceptance criteria, and relationships to those requirements",
    ),
  }),
  output: deletedOutput,
  annotations: DELETE,
  recordsHistory: true,
  handler: ({ epic_id, cascade }, ctx) =>
    ctx.database.write((tx) => deleteEpic(tx, ctx.auth.workspaceId, epic_id, cascade, actor(ctx))),
});

export const deleteUserStoryTool = hostedTool({
  name: "delete_user_story",
  title: "Delete user story",
  description:
    "Delete a user story for good. Refused while it still has requirements or acceptance criteria (the answer lists them): delete or move them first, or pass cascade: true to delete them with it, along with every relationship touching those requirements. Returns every id removed. Cannot be undone; confirm with the user first.",
  input: z.object({
    user_story_id: userStoryId(),
    cascade: cascade("its requirements and acceptance criteria, and relationships to those requirements"),
  }),
  output: deletedOutput,
  annotations: DELETE,
  recordsHistory: true,
  handler: ({ user_story_id, cascade }, ctx) =>
    ctx.database.write((tx) => deleteUserStory(tx, ctx.auth.workspaceId, user_story_id, cascade, actor(ctx))),
});

export const deleteRequirementTool = hostedTool({
  name: "delete_requirement",
  title: "Delete requirement",
  description:
    "Delete a requirement for good, with its own relationships. Refused while another requirement depends_on it (the answer names the links): remove them with delete_relationship first, or pass cascade: true to remove them with it. Returns every id and link removed. Its history (and that of every link removed) stays readable with get_history. To retire a requirement but keep it in the tree, set status Obsolete with update_requirement instead.",
  input: z.object({
    requirement_id: requirementId(),
    cascade: cascade("the depends_on links of other requirements that point at it"),
  }),
  output: deletedOutput,
  annotations: DELETE,
  recordsHistory: true,
  handler: ({ requirement_id, cascade }, ctx) =>
    ctx.database.write((tx) =>
      deleteRequirement(tx, ctx.auth.workspaceId, requirement_id, cascade, actor(ctx)),
    ),
});

export const deleteAcceptanceCriteriaTool = hostedTool({
  name: "delete_acceptance_criteria",
  title: "Delete acceptance criterion",
  description:
    "Delete one acceptance criterion (AC-001…) of a user story for good. Returns its id. Cannot be undone; to reword a criterion use update_acceptance_criteria instead.",
  input: z.object({ acceptance_criteria_id: criterionId() }),
  output: deletedOutput,
  annotations: DELETE,
  recordsHistory: true,
  handler: ({ acceptance_criteria_id }, ctx) =>
    ctx.database.write((tx) =>
      deleteAcceptanceCriterion(tx, ctx.auth.workspaceId, acceptance_criteria_id, actor(ctx)),
    ),
});

/** Leaf first: the order tools/list shows them. */
export const deleteTools = [
  deleteAcceptanceCriteriaTool,
  deleteRequirementTool,
  deleteUserStoryTool,
  deleteEpicTool,
];
