/** Epics: create, update, read, list, and the whole tree under one epic. */
import * as z from "zod";
import { createEpic, getEpic, listEpics, updateEpic } from "../db/epics.repo.js";
import { epicHierarchyPage } from "../db/hierarchy.repo.js";
import { actor, CREATE, hostedTool, READ, requireChanges, UPDATE } from "./access.js";
import { hierarchyWithCoverage, storyTreeWithCoverageOutput } from "./coverage.js";
import { pageLimit, toolBudget } from "./paging.js";
import {
  cursor,
  entityStatus,
  epicId,
  epicOutput,
  limit,
  newWorkItemFields,
  pageOutput,
  workItemChangeFields,
  writtenOutput,
} from "./schemas.js";

export const createEpicTool = hostedTool({
  name: "create_epic",
  title: "Create epic",
  description:
    "Create an epic: a large body of work that groups user stories (e.g. 'Checkout'). Use it when the user describes a new feature area that no existing epic covers (check with search_global or list_epics first; a duplicate title is refused). Returns the whole epic with its new reference_id (EP-001…). Next: add stories with create_user_story.",
  input: z.object(newWorkItemFields()),
  output: writtenOutput("epic", "get_epic"),
  annotations: CREATE,
  recordsHistory: true,
  handler: (input, ctx) =>
    ctx.database.write((tx) => createEpic(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const updateEpicTool = hostedTool({
  name: "update_epic",
  title: "Update epic",
  description:
    "Change an epic's title, description, priority, status or assignee; fields you omit stay as they are. Pass expected_updated_at (the updated_at you read) so a concurrent change is refused as a conflict instead of being overwritten. Returns the whole updated epic.",
  input: z.object({
    epic_id: epicId(),
    ...workItemChangeFields(),
  }),
  output: writtenOutput("epic", "get_epic"),
  annotations: UPDATE,
  recordsHistory: true,
  handler: ({ epic_id, ...patch }, ctx) => {
    const changes = requireChanges("update_epic", patch); // checked before a write transaction is opened
    return ctx.database.write((tx) => updateEpic(tx, ctx.auth.workspaceId, epic_id, changes, actor(ctx)));
  },
});

export const getEpicTool = hostedTool({
  name: "get_epic",
  title: "Get epic",
  description:
    "Read one epic by reference id (e.g. EP-001): title, description, status, priority, people and timestamps. For its stories, requirements and acceptance criteria in one call use epic_hierarchy.",
  input: z.object({ epic_id: epicId() }),
  output: epicOutput,
  annotations: READ,
  handler: ({ epic_id }, ctx) => ctx.database.read((db) => getEpic(db, ctx.auth.workspaceId, epic_id)),
});

export const listEpicsTool = hostedTool({
  name: "list_epics",
  title: "List epics",
  description:
    "List the workspace's epics in creation order, optionally only those with one status. Returns a page of epics and next_cursor when there are more (pass it back as cursor). To find epics by words, use search_global instead.",
  input: z.object({ status: entityStatus().optional(), limit: limit(), cursor: cursor().optional() }),
  output: pageOutput(epicOutput),
  annotations: READ,
  handler: (input, ctx) => ctx.database.read((db) => listEpics(db, ctx.auth.workspaceId, input)),
});

export const epicHierarchyTool = hostedTool({
  name: "epic_hierarchy",
  title: "Epic hierarchy",
  description:
    "Read an epic with everything under it: its user stories, each with its requirements (most important first, with trace coverage) and acceptance criteria. Use it to understand a feature area before planning or coding; cite the ids you rely on. A large epic comes in pages (limit counts stories, requirements and criteria): call again with next_cursor as cursor; a story cut by a page boundary continues at the top of the next page.",
  input: z.object({ epic_id: epicId(), limit: pageLimit(), cursor: cursor().optional() }),
  output: epicOutput.extend({
    user_stories: z.array(storyTreeWithCoverageOutput),
    next_cursor: z
      .string()
      .optional()
      .describe("Present when more of the epic follows: pass it as cursor to get it."),
  }),
  annotations: READ,
  handler: ({ epic_id, limit, cursor: after }, ctx) =>
    ctx.database.read(async (db) =>
      hierarchyWithCoverage(
        db,
        ctx.auth.workspaceId,
        await epicHierarchyPage(db, ctx.auth.workspaceId, epic_id, toolBudget(limit), after),
      ),
    ),
});

export const epicTools = [createEpicTool, updateEpicTool, getEpicTool, listEpicsTool, epicHierarchyTool];
