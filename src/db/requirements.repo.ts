/**
 * Requirements (REQ-001): belong to a user story; carry a type (by name), status, priority, creator and
 * optional assignee. Scoped by workspace.
 */
import { and, asc, count, eq, gt, or, type SQL, sql } from "drizzle-orm";
import type { EntityPatch, InterchangeFields, Requirement, RequirementStatus } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import {
  type Actor,
  assignees,
  checkExpected,
  creators,
  decodeCursor,
  type EntityOrigin,
  inWorkspace,
  isPositiveInt,
  newWorkItem,
  nextRevision,
  type Page,
  pageOf,
  refuseDuplicateExternalId,
  refuseDuplicateTitle,
  requiredRow,
  type StoredInterchange,
  shownInterchange,
  workItemChanges,
} from "./entity-support.js";
import { preparedPer } from "./prepared.js";
import { requirementTypeId } from "./requirement-types.repo.js";
import { checkActivation } from "./review.repo.js";
import { recordWrite } from "./revisions.repo.js";
import { requirements, requirementTypes, userStories } from "./schema.js";
import { requireUserStoryRow } from "./user-stories.repo.js";

const columns = {
  id: requirements.id,
  story_row_id: requirements.userStoryId,
  reference_id: requirements.referenceId,
  user_story_id: userStories.referenceId,
  title: requirements.title,
  description: requirements.description,
  status: requirements.status,
  priority: requirements.priority,
  type_name: requirementTypes.name,
  creator_username: creators.username,
  assignee_username: assignees.username,
  revision: requirements.revision,
  created_at: requirements.createdAt,
  updated_at: requirements.updatedAt,
  external_id: requirements.externalId,
  attributes: requirements.attributes,
};

type Row = Omit<Requirement, keyof InterchangeFields> &
  StoredInterchange & { id: number; story_row_id: number };

function select(ex: Executor) {
  return ex
    .select(columns)
    .from(requirements)
    .innerJoin(userStories, eq(userStories.id, requirements.userStoryId))
    .innerJoin(requirementTypes, eq(requirementTypes.id, requirements.typeId))
    .leftJoin(creators, eq(creators.id, requirements.creatorId))
    .leftJoin(assignees, eq(assignees.id, requirements.assigneeId));
}

export function toRequirement({
  id: _id,
  story_row_id: _story,
  external_id,
  attributes,
  ...requirement
}: Row): Requirement {
  return { ...requirement, ...shownInterchange({ external_id, attributes }) };
}

/** The stored rows whose ids `ids` (a subquery) selects, in creation order: what a delete records. */
export function requirementRowsIn(ex: Executor, workspaceId: number, ids: SQL): Promise<Row[]> {
  return select(ex)
    .where(and(eq(requirements.workspaceId, workspaceId), sql`${requirements.id} IN (${ids})`))
    .orderBy(asc(requirements.id));
}

export function requirementNotFound(referenceId: string): DomainError {
  return DomainError.notFound(
    `Requirement not found: ${referenceId}. Call search_requirements or list_requirements to find the right requirement id.`,
    referenceId,
  );
}

/**
 * Prepared once per executor (prepared.ts): writes read requirements back by reference (each link of an
 * import reads both ends), and building this four-join select each time was most of what they allocated.
 */
const requirementByReference = preparedPer((ex) =>
  select(ex)
    .where(
      and(
        eq(requirements.workspaceId, sql.placeholder("workspace")),
        eq(requirements.referenceId, sql.placeholder("reference")),
      ),
    )
    .limit(1)
    .prepare(),
);

export async function findRequirementRow(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<Row | undefined> {
  const rows = await requirementByReference(ex).all({ workspace: workspaceId, reference: referenceId });
  return rows[0];
}

/** The stored row for a normalized reference id; not_found otherwise. */
export const requireRequirementRow = requiredRow(findRequirementRow, requirementNotFound);

export async function getRequirement(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<Requirement> {
  return toRequirement(await requireRequirementRow(ex, workspaceId, referenceId));
}

/** Requirement titles are unique within their user story, in any case. */
export function refuseDuplicateRequirementTitle(
  ex: Executor,
  workspaceId: number,
  storyRowId: number,
  title: string,
  exceptId?: number,
) {
  return refuseDuplicateTitle(
    ex,
    requirements,
    and(inWorkspace(requirements.workspaceId, workspaceId, true), eq(requirements.userStoryId, storyRowId)),
    title,
    exceptId,
    (other) =>
      `This user story already has a requirement titled "${title}": ${other}. Update it with update_requirement, or choose another title.`,
  );
}

export interface NewRequirement {
  user_story_id: string;
  title: string;
  description?: string;
  /** A requirement type's name, any case. */
  type: string;
  priority: number;
  status?: RequirementStatus;
  assignee?: string;
  external_id?: string;
  attributes?: Record<string, unknown>;
  /** Interchange import: the identity the new requirement keeps. */
  origin?: EntityOrigin;
}

export async function createRequirement(
  tx: Tx,
  workspaceId: number,
  input: NewRequirement,
  actor: Actor,
): Promise<Requirement> {
  const story = await requireUserStoryRow(tx, workspaceId, input.user_story_id);
  if (input.status === "Active") await checkActivation(tx, workspaceId, undefined, []);
  const typeId = await requirementTypeId(tx, workspaceId, input.type);
  await refuseDuplicateRequirementTitle(tx, workspaceId, story.id, input.title);
  await refuseDuplicateExternalId(tx, requirements, workspaceId, input.external_id);
  const item = await newWorkItem(tx, workspaceId, "REQ", input, actor);
  await tx.insert(requirements).values({ ...item, userStoryId: story.id, priority: input.priority, typeId });
  const written = await requireRequirementRow(tx, workspaceId, item.referenceId);
  return recordWrite(tx, workspaceId, "requirement", "create", written, toRequirement, actor);
}

export interface RequirementPatch extends EntityPatch {
  status?: RequirementStatus;
  type?: string;
  /** Moves the requirement to another user story. */
  user_story_id?: string;
}

export async function updateRequirement(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  patch: RequirementPatch,
  actor: Actor,
): Promise<Requirement> {
  const row = await requireRequirementRow(tx, workspaceId, referenceId);
  checkExpected(referenceId, row.updated_at, patch.expected_updated_at);
  if (patch.status === "Active" && row.status !== "Active") {
    const others = Object.entries(patch)
      .filter(([k, v]) => v !== undefined && k !== "status" && k !== "expected_updated_at")
      .map(([k]) => k);
    await checkActivation(tx, workspaceId, row, others);
  }
  const storyRowId =
    patch.user_story_id === undefined
      ? row.story_row_id
      : (await requireUserStoryRow(tx, workspaceId, patch.user_story_id)).id;
  if (patch.title !== undefined || storyRowId !== row.story_row_id) {
    await refuseDuplicateRequirementTitle(tx, workspaceId, storyRowId, patch.title ?? row.title, row.id);
  }
  await refuseDuplicateExternalId(tx, requirements, workspaceId, patch.external_id, row.id);
  const typeId = patch.type === undefined ? undefined : await requirementTypeId(tx, workspaceId, patch.type);
  await tx
    .update(requirements)
    .set({
      ...(typeId !== undefined ? { typeId } : {}),
      ...(await workItemChanges(tx, workspaceId, patch)),
      userStoryId: storyRowId,
      ...nextRevision(requirements.revision, row.updated_at, actor.now),
    })
    .where(and(eq(requirements.workspaceId, workspaceId), eq(requirements.id, row.id)));
  const written = await requireRequirementRow(tx, workspaceId, referenceId);
  const op = storyRowId !== row.story_row_id ? "move" : "update";
  return recordWrite(tx, workspaceId, "requirement", op, written, toRequirement, actor);
}

export interface RequirementFilter {
  user_story_id?: string;
  status?: RequirementStatus;
  type?: string;
  priority?: number;
  limit: number;
  cursor?: string;
}

/** Requirements in creation order, filtered; an unknown story or type is an error, not an empty list. */
export async function listRequirements(
  ex: Executor,
  workspaceId: number,
  filter: RequirementFilter,
): Promise<Page<Requirement>> {
  const storyRowId =
    filter.user_story_id === undefined
      ? undefined
      : (await requireUserStoryRow(ex, workspaceId, filter.user_story_id)).id;
  const typeId =
    filter.type === undefined ? undefined : await requirementTypeId(ex, workspaceId, filter.type);
  const tag = `requirements:${filter.user_story_id ?? ""}:${filter.status ?? ""}:${typeId ?? ""}:${filter.priority ?? ""}`;
  const after = decodeCursor(tag, filter.cursor, isPositiveInt);
  const rows = await select(ex)
    .where(
      and(
        inWorkspace(requirements.workspaceId, workspaceId, storyRowId !== undefined),
        storyRowId !== undefined ? eq(requirements.userStoryId, storyRowId) : undefined,
        filter.status ? eq(requirements.status, filter.status) : undefined,
        typeId !== undefined ? eq(requirements.typeId, typeId) : undefined,
        filter.priority !== undefined ? eq(requirements.priority, filter.priority) : undefined,
        after !== undefined ? gt(requirements.id, after) : undefined,
      ),
    )
    .orderBy(asc(requirements.id))
    .limit(filter.limit + 1);
  return pageOf(rows, filter.limit, toRequirement, (r) => r.id, tag);
}

/**
 * A requirement's place in its story's order (priority ascending, created_at descending, id descending):
 * the keyset of paged story reads. The id makes it total, so a page boundary inside a run of equal
 * priorities and dates neither skips nor repeats.
 */
export type RequirementKey = [priority: number, createdAt: string, id: number];

export const isRequirementKey = (k: unknown): k is RequirementKey =>
  Array.isArray(k) &&
  k.length === 3 &&
  typeof k[0] === "number" &&
  typeof k[1] === "string" &&
  isPositiveInt(k[2]);

/** Rows strictly after `key` in the story order. */
function afterKey([priority, createdAt, id]: RequirementKey): SQL | undefined {
  return or(
    gt(requirements.priority, priority),
    and(eq(requirements.priority, priority), sql`${requirements.createdAt} < ${createdAt}`),
    and(
      eq(requirements.priority, priority),
      eq(requirements.createdAt, createdAt),
      sql`${requirements.id} < ${id}`,
    ),
  );
}

/** Rows strictly after `key` in the story order, over the aliased table `r` of the page query below. */
function afterKeyRaw([priority, createdAt, id]: RequirementKey): SQL {
  return sql`(r.priority > ${priority} OR (r.priority = ${priority} AND r.created_at < ${createdAt})
    OR (r.priority = ${priority} AND r.created_at = ${createdAt} AND r.id < ${id}))`;
}

type PageRow = [
  id: number,
  reference_id: string,
  user_story_id: string,
  title: string,
  description: string,
  status: Requirement["status"],
  priority: number,
  type_name: string,
  creator_username: string | null,
  assignee_username: string | null,
  revision: number,
  created_at: string,
  updated_at: string,
];

/**
 * Up to `limit` requirements of one story after `after` (from the start without it), in the story order.
 * A whole story can be 1,000 rows a page (issue 16, item 5): the rows come as arrays, mapped here once, not
 * through the query builder's per-row mapping, which cost as much again as reading them.
 */
export async function requirementsOfUserStoryAfter(
  ex: Executor,
  workspaceId: number,
  storyRowId: number,
  after: RequirementKey | undefined,
  limit: number,
): Promise<{ item: Requirement; key: RequirementKey }[]> {
  const rows = await ex.values<PageRow>(sql`
    SELECT r.id, r.reference_id, s.reference_id, r.title, r.description, r.status, r.priority, t.name,
           c.username, a.username, r.revision, r.created_at, r.updated_at
    FROM requirements r
    JOIN user_stories s ON s.id = r.user_story_id
    JOIN requirement_types t ON t.id = r.type_id
    LEFT JOIN users c ON c.id = r.creator_id
    LEFT JOIN users a ON a.id = r.assignee_id
    WHERE +r.workspace_id = ${workspaceId} AND r.user_story_id = ${storyRowId} ${after ? sql`AND ${afterKeyRaw(after)}` : sql``}
    ORDER BY r.priority, r.created_at DESC, r.id DESC
    LIMIT ${limit}`);
  return rows.map((r) => ({
    item: {
      reference_id: r[1],
      user_story_id: r[2],
      title: r[3],
      description: r[4],
      status: r[5],
      priority: r[6],
      type_name: r[7],
      creator_username: r[8],
      assignee_username: r[9],
      revision: r[10],
      created_at: r[11],
      updated_at: r[12],
    },
    key: [r[6], r[11], r[0]],
  }));
}

/** How many requirements the story has, and how many of them come after `after` (0 without it). */
export async function countRequirementsOfUserStory(
  ex: Executor,
  workspaceId: number,
  storyRowId: number,
  after?: RequirementKey,
): Promise<{ total: number; after: number }> {
  const rows = await ex
    .select({
      total: count(),
      after: after
        ? sql<number>`coalesce(sum(CASE WHEN ${afterKey(after)} THEN 1 ELSE 0 END), 0)`
        : sql<number>`0`,
    })
    .from(requirements)
    .where(
      and(inWorkspace(requirements.workspaceId, workspaceId, true), eq(requirements.userStoryId, storyRowId)),
    );
  return { total: Number(rows[0]?.total ?? 0), after: Number(rows[0]?.after ?? 0) };
}
