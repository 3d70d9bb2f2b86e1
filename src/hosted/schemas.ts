/**
 * The zod pieces the hosted tools share: reference-id arguments, priorities, statuses, paging, and the
 * output schemas advertised as `outputSchema` (what `structuredContent` holds).
 */
import * as z from "zod";
import { ENTITY_STATUSES, PRIORITY_SCALE_MESSAGE, REQUIREMENT_STATUSES } from "../core/domain.js";
import { externalIdSchema } from "../core/interchange/document.js";
import { formatReference } from "../core/references.js";

/**
 * A reference id argument. The advertised pattern is the canonical form (`^US-\d+$`, user-story spec 1.7);
 * the server also accepts any case and surrounding spaces (DESIGN: lookups are case-insensitive) and
 * normalizes the number's padding, so `us-47` finds US-047.
 */
export function referenceId(prefix: string, label: string, example: string) {
  // The spec's words first (user-story spec 1.7), then what a good value looks like (issue item 13).
  const error = `Invalid ${label} reference ID format: expected a ${label} id like ${example}`;
  const missing = `Missing: pass a ${label} id like ${example}`;
  return z
    .string({ error: (issue) => (issue.input === undefined ? missing : error) })
    .trim()
    .toUpperCase()
    .regex(new RegExp(`^${prefix}-\\d+$`), { error })
    .overwrite((id) => formatReference(prefix, Number.parseInt(id.slice(prefix.length + 1), 10)))
    .describe(`e.g. ${example}`);
}

export const epicId = () => referenceId("EP", "epic", "EP-001");
export const userStoryId = () => referenceId("US", "user story", "US-047");
export const requirementId = () => referenceId("REQ", "requirement", "REQ-048");
export const criterionId = () => referenceId("AC", "acceptance criterion", "AC-012");

export const priority = () =>
  z
    .number({ error: PRIORITY_SCALE_MESSAGE })
    .int({ error: PRIORITY_SCALE_MESSAGE })
    .min(1, { error: PRIORITY_SCALE_MESSAGE })
    .max(4, { error: PRIORITY_SCALE_MESSAGE })
    .describe("1 Critical, 2 High, 3 Medium, 4 Low.");
export const entityStatus = () =>
  z.enum(ENTITY_STATUSES).describe("Workflow status: Backlog, Draft, In Progress, Done or Cancelled.");
export const requirementStatus = () =>
  z
    .enum(REQUIREMENT_STATUSES)
    .describe("Draft (being written), Active (in force), Obsolete (no longer applies).");
export const title = () =>
  z.string().trim().min(1, "must not be empty").max(200).describe("Short, specific title.");
export const description = () => z.string().max(20_000).describe("Markdown text.");
export const assignee = () => z.string().trim().min(1).max(100).describe("Username of a workspace member.");
export const clearableAssignee = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(100)
    .nullable()
    .describe("Username of a workspace member; null removes the assignee.");
const EXTERNAL_ID = "Its id in another tool (ReqIF IDENTIFIER, Jira key), unique per kind";
export const externalId = () => externalIdSchema.describe(`${EXTERNAL_ID}.`);
export const clearableExternalId = () =>
  externalIdSchema.nullable().describe(`${EXTERNAL_ID}; null removes it.`);
export const expectedUpdatedAt = () =>
  z
    .string()
    .describe("The updated_at you read: if the entity changed since, the update is refused (conflict).");
export const limit = () => z.number().int().min(1).max(100).default(20).describe("Most items to return.");
export const cursor = () =>
  z.string().min(1).describe("next_cursor of the previous page, with the same filters.");

/** What create_epic and create_user_story take besides the parent (a requirement also needs a type and a priority). */
export const newWorkItemFields = () => ({
  title: title(),
  description: description().optional(),
  priority: priority().optional().describe("1 Critical, 2 High, 3 Medium (default), 4 Low."),
  assignee: assignee().optional(),
  external_id: externalId().optional(),
});

/** What update_epic and update_user_story can change (update_requirement also takes a type, before priority). */
export const workItemChangeFields = () => ({
  title: title().optional(),
  description: description().optional(),
  priority: priority().optional(),
  status: entityStatus().optional(),
  assignee: clearableAssignee().optional(),
  external_id: clearableExternalId().optional(),
  expected_updated_at: expectedUpdatedAt().optional(),
});

// ----- outputs ------------------------------------------------------------------------------------------

const stamps = {
  created_at: z.string().describe("ISO-8601 UTC"),
  updated_at: z.string().describe("ISO-8601 UTC; pass it back as expected_updated_at when updating"),
};
const people = {
  creator_username: z.string().nullable(),
  assignee_username: z.string().nullable(),
};
/** Shown only when set (interchange, issue 15). */
const interchangeOutput = {
  external_id: z.string().optional().describe("The item's identifier in another tool, when it has one."),
  attributes: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Imported fields reqlix has no column for, when there are any."),
};
const revision = {
  revision: z.number().int().describe("1 as created, +1 on every change; history and approvals name it."),
};

/**
 * Epics, user stories and requirements answer with one shape: a child names its parent right after its own
 * id, and a requirement adds its type after the priority. Key order is what clients see in outputSchema.
 */
function workItemOutput<
  P extends z.ZodRawShape,
  S extends readonly [string, ...string[]],
  E extends z.ZodRawShape,
>(parent: P, statuses: S, extra: E) {
  return z.object({
    reference_id: z.string(),
    ...parent,
    title: z.string(),
    description: z.string(),
    status: z.enum(statuses),
    priority: z.number().int(),
    ...extra,
    ...people,
    ...revision,
    ...stamps,
    ...interchangeOutput,
  });
}

export const epicOutput = workItemOutput({}, ENTITY_STATUSES, {});
export const userStoryOutput = workItemOutput({ epic_id: z.string() }, ENTITY_STATUSES, {});
export const requirementOutput = workItemOutput({ user_story_id: z.string() }, REQUIREMENT_STATUSES, {
  type_name: z.string(),
});

export const criterionOutput = z.object({
  reference_id: z.string(),
  user_story_id: z.string(),
  title: z.string(),
  description: z.string(),
  creator_username: z.string().nullable(),
  ...revision,
  ...stamps,
  ...interchangeOutput,
});

/**
 * A requirement inside a story or an epic tree, as advertised: what identifies it and what it says. The
 * answer carries every field of get_requirement's (less relationships); that shape is listed there once,
 * not again in every tree (issue 12: a lean tools/list).
 */
export const requirementItemOutput = requirementOutput
  .pick({ reference_id: true, title: true, description: true, status: true, priority: true, type_name: true })
  .loose()
  .describe("Each with every field get_requirement shows, less relationships.");

/** A user story with its requirements and acceptance criteria (get_user_story). */
export const storyTreeOutput = userStoryOutput.extend({
  requirements: z.array(requirementItemOutput),
  acceptance_criteria: z.array(criterionOutput),
});

export const relationshipOutput = z.object({
  source_requirement_id: z.string(),
  target_requirement_id: z.string(),
  relationship_type: z.string(),
  creator_username: z.string().nullable(),
  created_at: z.string(),
  revision: z.number().int().describe("1 as created, +1 on every confirm_relationship."),
  source_revision: z.number().int().describe("The source's revision when linked or last confirmed."),
  target_revision: z.number().int().describe("The target's revision when linked or last confirmed."),
  suspect: z
    .boolean()
    .describe("True when an end changed since: check the link still holds, then confirm_relationship."),
});

/**
 * What a write tool advertises: the fields a model uses next. The answer is the whole entity as its read
 * tool shows it (the text carries it all; `structuredContent` too), so the full shape is listed once, on
 * the read tool, not again on every write (issue 12: a lean tools/list).
 */
export function writtenOutput(kind: string, read: string) {
  return z
    .object({
      reference_id: z.string(),
      revision: z.number().int(),
      updated_at: z.string().describe("Pass it back as expected_updated_at to update again."),
    })
    .loose()
    .describe(`The whole ${kind} as ${read} returns it.`);
}

/** What create_relationship and delete_relationship advertise: the link; the answer is all of it. */
export const writtenRelationshipOutput = relationshipOutput
  .pick({ source_requirement_id: true, target_requirement_id: true, relationship_type: true, revision: true })
  .loose()
  .describe("The relationship as get_requirement lists it.");

export const namedTypeOutput = z.object({ name: z.string(), description: z.string() });

export function pageOutput<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    next_cursor: z
      .string()
      .optional()
      .describe("Present when more items exist: pass it as cursor to get them."),
  });
}
