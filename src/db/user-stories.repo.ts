/**
 * User stories (US-001): belong to an epic; hold requirements and acceptance criteria. Scoped by workspace.
 */
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { EntityPatch, EntityStatus, InterchangeFields, UserStory } from "../core/domain.js";
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
import { requireEpicRow } from "./epics.repo.js";
import { recordWrite } from "./revisions.repo.js";
import { epics, userStories } from "./schema.js";

const columns = {
  id: userStories.id,
  epic_row_id: userStories.epicId,
  reference_id: userStories.referenceId,
  epic_id: epics.referenceId,
  title: userStories.title,
  description: userStories.description,
  status: userStories.status,
  priority: userStories.priority,
  creator_username: creators.username,
  assignee_username: assignees.username,
  revision: userStories.revision,
  created_at: userStories.createdAt,
  updated_at: userStories.updatedAt,
  external_id: userStories.externalId,
  attributes: userStories.attributes,
};

type Row = Omit<UserStory, keyof InterchangeFields> & StoredInterchange & { id: number; epic_row_id: number };

function select(ex: Executor) {
  return ex
    .select(columns)
    .from(userStories)
    .innerJoin(epics, eq(epics.id, userStories.epicId))
    .leftJoin(creators, eq(creators.id, userStories.creatorId))
    .leftJoin(assignees, eq(assignees.id, userStories.assigneeId));
}

export function toUserStory({
  id: _id,
  epic_row_id: _epic,
  external_id,
  attributes,
  ...story
}: Row): UserStory {
  return { ...story, ...shownInterchange({ external_id, attributes }) };
}

/** The stored rows whose ids `ids` (a subquery) selects, in creation order: what a delete records. */
export function userStoryRowsIn(ex: Executor, workspaceId: number, ids: SQL): Promise<Row[]> {
  return select(ex)
    .where(and(eq(userStories.workspaceId, workspaceId), sql`${userStories.id} IN (${ids})`))
    .orderBy(asc(userStories.id));
}

export function userStoryNotFound(referenceId: string): DomainError {
  // The spec's message (user-story spec, requirement 2.1): "User story not found" with the reference id.
  return DomainError.notFound(
    `User story not found: ${referenceId}. Call list_user_stories or search_global to find the right user story id.`,
    referenceId,
  );
}

export async function findUserStoryRow(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<Row | undefined> {
  const rows = await select(ex)
    .where(and(eq(userStories.workspaceId, workspaceId), eq(userStories.referenceId, referenceId)))
    .limit(1);
  return rows[0];
}

/** The stored row for a normalized reference id; not_found otherwise. */
export const requireUserStoryRow = requiredRow(findUserStoryRow, userStoryNotFound);

export async function getUserStory(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<UserStory> {
  return toUserStory(await requireUserStoryRow(ex, workspaceId, referenceId));
}

/** Story titles are unique within their epic, in any case. */
export function refuseDuplicateStoryTitle(
  ex: Executor,
  workspaceId: number,
  epicRowId: number,
  title: string,
  exceptId?: number,
) {
  return refuseDuplicateTitle(
    ex,
    userStories,
    and(inWorkspace(userStories.workspaceId, workspaceId, true), eq(userStories.epicId, epicRowId)),
    title,
    exceptId,
    (other) =>
      `This epic already has a user story titled "${title}": ${other}. Update it with update_user_story, or choose another title.`,
  );
}

export interface NewUserStory {
  epic_id: string;
  title: string;
  description?: string;
  priority?: number;
  status?: EntityStatus;
  assignee?: string;
  external_id?: string;
  attributes?: Record<string, unknown>;
  /** Interchange import: the identity the new story keeps. */
  origin?: EntityOrigin;
}

export async function createUserStory(
  tx: Tx,
  workspaceId: number,
  input: NewUserStory,
  actor: Actor,
): Promise<UserStory> {
  const epic = await requireEpicRow(tx, workspaceId, input.epic_id);
  await refuseDuplicateStoryTitle(tx, workspaceId, epic.id, input.title);
  await refuseDuplicateExternalId(tx, userStories, workspaceId, input.external_id);
  const item = await newWorkItem(tx, workspaceId, "US", input, actor);
  await tx
    .insert(userStories)
    .values({ ...item, epicId: epic.id, ...(input.priority ? { priority: input.priority } : {}) });
  const written = await requireUserStoryRow(tx, workspaceId, item.referenceId);
  return recordWrite(tx, workspaceId, "user_story", "create", written, toUserStory, actor);
}

export interface UserStoryPatch extends EntityPatch {
  status?: EntityStatus;
  /** Moves the story to another epic. */
  epic_id?: string;
}

export async function updateUserStory(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  patch: UserStoryPatch,
  actor: Actor,
): Promise<UserStory> {
  const row = await requireUserStoryRow(tx, workspaceId, referenceId);
  checkExpected(referenceId, row.updated_at, patch.expected_updated_at);
  const epicRowId =
    patch.epic_id === undefined ? row.epic_row_id : (await requireEpicRow(tx, workspaceId, patch.epic_id)).id;
  if (patch.title !== undefined || epicRowId !== row.epic_row_id) {
    await refuseDuplicateStoryTitle(tx, workspaceId, epicRowId, patch.title ?? row.title, row.id);
  }
  await refuseDuplicateExternalId(tx, userStories, workspaceId, patch.external_id, row.id);
  await tx
    .update(userStories)
    .set({
      ...(await workItemChanges(tx, workspaceId, patch)),
      epicId: epicRowId,
      ...nextRevision(userStories.revision, row.updated_at, actor.now),
    })
    .where(and(eq(userStories.workspaceId, workspaceId), eq(userStories.id, row.id)));
  const written = await requireUserStoryRow(tx, workspaceId, referenceId);
  const op = epicRowId !== row.epic_row_id ? "move" : "update";
  return recordWrite(tx, workspaceId, "user_story", op, written, toUserStory, actor);
}

export interface UserStoryFilter {
  epic_id?: string;
  status?: EntityStatus;
  limit: number;
  cursor?: string;
}

/** Stories in creation order, optionally of one epic; an unknown epic is not_found (not an empty list). */
export async function listUserStories(
  ex: Executor,
  workspaceId: number,
  filter: UserStoryFilter,
): Promise<Page<UserStory>> {
  const epicRowId =
    filter.epic_id === undefined ? undefined : (await requireEpicRow(ex, workspaceId, filter.epic_id)).id;
  const tag = `user_stories:${filter.epic_id ?? ""}:${filter.status ?? ""}`;
  const after = decodeCursor(tag, filter.cursor, isPositiveInt);
  const rows = await select(ex)
    .where(
      and(
        inWorkspace(userStories.workspaceId, workspaceId, epicRowId !== undefined),
        epicRowId !== undefined ? eq(userStories.epicId, epicRowId) : undefined,
        filter.status ? eq(userStories.status, filter.status) : undefined,
        after !== undefined ? gt(userStories.id, after) : undefined,
      ),
    )
    .orderBy(asc(userStories.id))
    .limit(filter.limit + 1);
  return pageOf(rows, filter.limit, toUserStory, (r) => r.id, tag);
}

/** Up to `limit` stories of an epic with a row id above `afterId`, in creation order, with their row ids. */
export async function userStoriesOfEpicAfter(
  ex: Executor,
  workspaceId: number,
  epicRowId: number,
  afterId: number,
  limit: number,
): Promise<(UserStory & { id: number })[]> {
  const rows = await select(ex)
    .where(
      and(
        inWorkspace(userStories.workspaceId, workspaceId, true),
        eq(userStories.epicId, epicRowId),
        gt(userStories.id, afterId),
      ),
    )
    .orderBy(asc(userStories.id))
    .limit(limit);
  return rows.map((row) => ({ ...toUserStory(row), id: row.id }));
}
