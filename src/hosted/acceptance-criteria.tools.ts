/** Acceptance criteria: the testable conditions of a user story. */
import * as z from "zod";
import { createAcceptanceCriterion, updateAcceptanceCriterion } from "../db/acceptance-criteria.repo.js";
import { actor, CREATE, hostedTool, requireChanges, UPDATE } from "./access.js";
import {
  clearableExternalId,
  criterionId,
  expectedUpdatedAt,
  externalId,
  title,
  userStoryId,
  writtenOutput,
} from "./schemas.js";

const criterionText = () =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(20_000)
    .describe("The condition, testable as written; Given/When/Then works well.");

export const createAcceptanceCriteriaTool = hostedTool({
  name: "create_acceptance_criteria",
  title: "Create acceptance criterion",
  description:
    "Add one acceptance criterion to a user story: a condition a tester can check ('Given a saved cart, when the shopper signs in elsewhere, then the cart shows the same items'). Call once per criterion. Returns it with its reference_id (AC-001…).",
  input: z.object({
    user_story_id: userStoryId(),
    description: criterionText(),
    title: title().optional().describe("Short title; default: the first line of the description."),
    external_id: externalId().optional(),
  }),
  output: writtenOutput("acceptance criterion", "get_user_story (in acceptance_criteria)"),
  annotations: CREATE,
  recordsHistory: true,
  handler: (input, ctx) =>
    ctx.database.write((tx) => createAcceptanceCriterion(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const updateAcceptanceCriteriaTool = hostedTool({
  name: "update_acceptance_criteria",
  title: "Update acceptance criterion",
  description:
    "Rewrite an acceptance criterion's text (and optionally its title). Returns the updated criterion.",
  input: z.object({
    acceptance_criteria_id: criterionId(),
    description: criterionText().optional(),
    title: title().optional(),
    external_id: clearableExternalId().optional(),
    expected_updated_at: expectedUpdatedAt().optional(),
  }),
  output: writtenOutput("acceptance criterion", "get_user_story (in acceptance_criteria)"),
  annotations: UPDATE,
  recordsHistory: true,
  handler: ({ acceptance_criteria_id, ...patch }, ctx) => {
    const changes = requireChanges("update_acceptance_criteria", patch); // checked before a write transaction is opened
    return ctx.database.write((tx) =>
      updateAcceptanceCriterion(tx, ctx.auth.workspaceId, acceptance_criteria_id, changes, actor(ctx)),
    );
  },
});

export const acceptanceCriteriaTools = [createAcceptanceCriteriaTool, updateAcceptanceCriteriaTool];
