/** User stories: create, update, read (with requirements and criteria), list. */
import * as z from "zod";
import { userStoryPage } from "../db/hierarchy.repo.js";
import { createUserStory, listUserStories, updateUserStory } from "../db/user-stories.repo.js";
import { actor, CREATE, hostedTool, READ, requireChanges, UPDATE } from "./access.js";
import { pageLimit, toolBudget } from "./paging.js";
import {
  cursor,
  entityStatus,
  epicId,
  limit,
  newWorkItemFields,
  pageOutput,
  storyTreeOutput,
  userStoryId,
  userStoryOutput,
  workItemChangeFields,
  writtenOutput,
} from "./schemas.js";

export const createUserStoryTool = hostedTool({
  name: "create_user_story",
  title: "Create user story",
  description:
    "Create a user story under an epic. Write the title as the need of a user ('As a shopper, I want to save my cart so that I can finish later'). Returns the whole story with its new reference_id (US-001…). Next: add requirements with create_requirement and testable conditions with create_acceptance_criteria.",
  input: z.object({ epic_id: epicId(), ...newWorkItemFields() }),
  output: writtenOutput("user story", "get_user_story"),
  annotations: CREATE,
  recordsHistory: true,
  handler: (input, ctx) =>
    ctx.database.write((tx) => createUserStory(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const updateUserStoryTool = hostedTool({
  name: "update_user_story",
  title: "Update user story",
  description:
    "Change a user story's title, description, priority, status or assignee, or move it to another epic (epic_id); omitted fields stay as they are. Pass expected_updated_at to refuse the update if someone changed the story since you read it. Returns the whole updated story.",
  input: z.object({
    user_story_id: userStoryId(),
    epic_id: epicId().optional().describe("Move the story to this epic."),
    ...workItemChangeFields(),
  }),
  output: writtenOutput("user story", "get_user_story"),
  annotations: UPDATE,
  recordsHistory: true,
  handler: ({ user_story_id, ...patch }, ctx) => {
    const changes = requireChanges("update_user_story", patch); // checked before a write transaction is opened
    return ctx.database.write((tx) =>
      updateUserStory(tx, ctx.auth.workspaceId, user_story_id, changes, actor(ctx)),
    );
  },
});

export const getUserStoryTool = hostedTool({
  name: "get_user_story",
  title: "Get user story",
  description:
    "Read one user story with its requirements (most important first) and acceptance criteria. Use it before implementing the story; cite the REQ and AC ids your work satisfies. A very large story comes in pages (requirements, then criteria): call again with next_cursor as cursor.",
  input: z.object({ user_story_id: userStoryId(), limit: pageLimit(), cursor: cursor().optional() }),
  output: storyTreeOutput.extend({
    next_cursor: z
      .string()
      .optional()
      .describe("Present when more requirements or criteria follow: pass it as cursor to get them."),
  }),
  annotations: READ,
  handler: ({ user_story_id, limit, cursor: after }, ctx) =>
    ctx.database.read((db) =>
      userStoryPage(db, ctx.auth.workspaceId, user_story_id, toolBudget(limit), after),
    ),
});

export const listUserStoriesTool = hostedTool({
  name: "list_user_stories",
  title: "List user stories",
  description:
    "List user stories in creation order, optionally of one epic (epic_id) and/or with one status. Returns a page and next_cursor when there are more. To find stories by words, use search_global with entity_types ['user_story'].",
  input: z.object({
    epic_id: epicId().optional(),
    status: entityStatus().optional(),
    limit: limit(),
    cursor: cursor().optional(),
  }),
  output: pageOutput(userStoryOutput),
  annotations: READ,
  handler: (input, ctx) => ctx.database.read((db) => listUserStories(db, ctx.auth.workspaceId, input)),
});

export const userStoryTools = [
  createUserStoryTool,
  updateUserStoryTool,
  getUserStoryTool,
  listUserStoriesTool,
];
