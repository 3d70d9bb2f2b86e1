/** Requirements: create, update, read (with relationships), list. */
import * as z from "zod";
import { relationshipsOfRequirement } from "../db/relationships.repo.js";
import {
  createRequirement,
  getRequirement,
  listRequirements,
  updateRequirement,
} from "../db/requirements.repo.js";
import { actor, CREATE, hostedTool, READ, requireChanges, UPDATE } from "./access.js";
import { coverageOfOne, coverageOutput } from "./coverage.js";
import {
  assignee,
  clearableAssignee,
  clearableExternalId,
  cursor,
  description,
  expectedUpdatedAt,
  externalId,
  limit,
  pageOutput,
  priority,
  relationshipOutput,
  requirementId,
  requirementOutput,
  requirementStatus,
  title,
  userStoryId,
  writtenOutput,
} from "./schemas.js";

const typeName = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe(
      "Requirement type name, any case, e.g. Functional, Non-Functional; the workspace's types: list_requirement_types.",
    );

export const createRequirementTool = hostedTool({
  name: "create_requirement",
  title: "Create requirement",
  description:
    "Create a requirement under a user story: one verifiable statement of what the system must do or how well ('The API responds within 200 ms at p95'). Check first with search_requirements that it does not exist. Returns it with its new reference_id (REQ-001…); cite that id in code, commits and tests.",
  input: z.object({
    user_story_id: userStoryId(),
    title: title(),
    description: description().optional(),
    type: typeName(),
    priority: priority(),
    status: requirementStatus().optional().describe("Default Draft."),
    assignee: assignee().optional(),
    external_id: externalId().optional(),
  }),
  output: writtenOutput("requirement", "get_requirement"),
  annotations: CREATE,
  recordsHistory: true,
  handler: (input, ctx) =>
    ctx.database.write((tx) => createRequirement(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const updateRequirementTool = hostedTool({
  name: "update_requirement",
  title: "Update requirement",
  description:
    "Change a requirement's fields or move it to another user story; omitted fields stay as they are. Mark it Active when agreed, Obsolete when it no longer applies (rather than deleting it). Returns the updated requirement.",
  input: z.object({
    requirement_id: requirementId(),
    user_story_id: userStoryId().optional().describe("Move the requirement to this user story."),
    title: title().optional(),
    description: description().optional(),
    type: typeName().optional(),
    priority: priority().optional(),
    status: requirementStatus().optional(),
    assignee: clearableAssignee().optional(),
    external_id: clearableExternalId().optional(),
    expected_updated_at: expectedUpdatedAt().optional(),
  }),
  output: writtenOutput("requirement", "get_requirement"),
  annotations: UPDATE,
  recordsHistory: true,
  handler: ({ requirement_id, ...patch }, ctx) => {
    const changes = requireChanges("update_requirement", patch); // checked before a write transaction is opened
    return ctx.database.write((tx) =>
      updateRequirement(tx, ctx.auth.workspaceId, requirement_id, changes, actor(ctx)),
    );
  },
});

export const getRequirementTool = hostedTool({
  name: "get_requirement",
  title: "Get requirement",
  description:
    "Read one requirement: its text, type, status, priority, people, timestamps, trace coverage and its relationships (outgoing and incoming). Read it before implementing or changing the behaviour it describes.",
  input: z.object({ requirement_id: requirementId() }),
  output: requirementOutput.extend({
    coverage: coverageOutput(),
    relationships: z.object({ outgoing: z.array(relationshipOutput), incoming: z.array(relationshipOutput) }),
  }),
  annotations: READ,
  handler: ({ requirement_id }, ctx) =>
    ctx.database.read(async (db) => ({
      ...(await getRequirement(db, ctx.auth.workspaceId, requirement_id)),
      coverage: await coverageOfOne(db, ctx.auth.workspaceId, requirement_id),
      relationships: await relationshipsOfRequirement(db, ctx.auth.workspaceId, requirement_id),
    })),
});

export const listRequirementsTool = hostedTool({
  name: "list_requirements",
  title: "List requirements",
  description:
    "List requirements in creation order, filtered by user story, status, type and/or priority. Returns a page and next_cursor when there are more. To find requirements by words use search_requirements; for one story's requirements sorted by importance use get_user_story_requirements.",
  input: z.object({
    user_story_id: userStoryId().optional(),
    status: requirementStatus().optional(),
    type: typeName().optional(),
    priority: priority().optional(),
    limit: limit(),
    cursor: cursor().optional(),
  }),
  output: pageOutput(requirementOutput),
  annotations: READ,
  handler: (input, ctx) => ctx.database.read((db) => listRequirements(db, ctx.auth.workspaceId, input)),
});

export const requirementTools = [
  createRequirementTool,
  updateRequirementTool,
  getRequirementTool,
  listRequirementsTool,
];
