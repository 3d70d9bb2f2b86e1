/**
 * User stories (US-001): belong to an epic; hold requirements and acceptance criteria. Scoped by workspace.
 */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { EntityPatch, EntityStatus, UserStory } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import { nextReference } from "./counters.repo.js";
import type { Executor, Tx } from "./database.js";
import {
  type Actor,
  assigneePatch,
  assignees,
  checkExpected,
  creators,
  decodeCursor,
  inWorkspace,
  iso,
  isPositiveInt,
  memberIdByUsername,
  nextUpdatedAt,
  type Page,
  pageOf,
} from "./entity-support.js";
import { epicNotFound, findEpicRow } from "./epics.repo.js";
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
  created_at: userStories.createdAt,
  updated_at: userStories.updatedAt,
};

type Row = UserStory & { id: number; epic_row_id: number };

function select(ex: Executor) {
  return ex
    .select(columns)
    .from(userStories)
    .innerJoin(epics, eq(epics.id, userStories.epicId))
    .leftJoin(creators, eq(creators.id, userStories.creatorId))
    .leftJoin(assignees, eq(assignees.id, userStories.assigneeId));
}

export function toUserStory({ id: _id, epic_row_id: _epic, ...story }: Row): UserStory {
  return story;
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

export async function getUserStory(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<UserStory> {
  const row = await findUserStoryRow(ex, workspaceId, referenceId);
  if (!row) throw userStoryNotFound(referenceId);
  return toUserStory(row);
}

async function refuseDuplicateTitle(
  ex: Executor,
  workspaceId: number,
  epicRowId: number,
  title: string,
  exceptId?: number,
) {
  const rows = await ex
    .select({ id: userStories.id, reference_id: userStories.referenceId })
    .from(userStories)
    .where(
      and(
        inWorkspace(userStories.workspaceId, workspaceId, true),
        eq(userStories.epicId, epicRowId),
        sql`lower(${userStories.title}) = lower(${title})`,
      ),
    )
    .limit(2);
  const other = rows.find((r) => r.id !== exceptId);
  if (other) {
    throw DomainError.conflict(
      `This epic already has a user story titled "${title}": ${other.reference_id}. Update it with update_user_story, or choose another title.`,
      { reference_id: other.reference_id },
    );
  }
}

export interface NewUserStory {
  epic_id: string;
  title: string;
  description?: string;
  priority?: number;
  status?: EntityStatus;
  assignee?: string;
}

export async function createUserStory(
  tx: Tx,
  workspaceId: number,
  input: NewUserStory,
  actor: Actor,
): Promise<UserStory> {
  const epic = await findEpicRow(tx, workspaceId, input.epic_id);
  if (!epic) throw epicNotFound(input.epic_id);
  await refuseDuplicateTitle(tx, workspaceId, epic.id, input.title);
  const assigneeId =
    input.assignee === undefined ? null : await memberIdByUsername(tx, workspaceId, input.assignee);
  const referenceId = await nextReference(tx, workspaceId, "US");
  const stamp = iso(actor.now);
  await tx.insert(userStories).values({
    workspaceId,
    referenceId,
    epicId: epic.id,
    title: input.title,
    description: input.description ?? "",
    ...(input.status ? { status: input.status } : {}),
    ...(input.priority ? { priority: input.priority } : {}),
    creatorId: actor.userId,
    assigneeId,
    createdAt: stamp,
    updatedAt: stamp,
  });
  return getUserStory(tx, workspaceId, referenceId);
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
  const row = await findUserStoryRow(tx, workspaceId, referenceId);
  if (!row) throw userStoryNotFound(referenceId);
  checkExpected(referenceId, row.updated_at, patch.expected_updated_at);
  let epicRowId = row.epic_row_id;
  if (patch.epic_id !== undefined) {
    const epic = await findEpicRow(tx, workspaceId, patch.epic_id);
    if (!epic) throw epicNotFound(patch.epic_id);
    epicRowId = epic.id;
  }
  if (patch.title !== undefined || epicRowId !== row.epic_row_id) {
    await refuseDuplicateTitle(tx, workspaceId, epicRowId, patch.title ?? row.title, row.id);
  }
  await tx
    .update(userStories)
    .set({
      ...(patch.title !== undefined ? { title: patch.title } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(await assigneePatch(tx, workspaceId, patch.assignee)),
      epicId: epicRowId,
      revision: sql`${userStories.revision} + 1`,
      updatedAt: nextUpdatedAt(row.updated_at, actor.now),
    })
    .where(and(eq(userStories.workspaceId, workspaceId), eq(userStories.id, row.id)));
  return getUserStory(tx, workspaceId, referenceId);
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
  let epicRowId: number | undefined;
  if (filter.epic_id !== undefined) {
    const epic = await findEpicRow(ex, workspaceId, filter.epic_id);
    if (!epic) throw epicNotFound(filter.epic_id);
    epicRowId = epic.id;
  }
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

/** Every story of an epic (for the hierarchy), in creation order, with its internal id. */
export async function userStoriesOfEpic(
  ex: Executor,
  workspaceId: number,
  epicRowId: number,
): Promise<(UserStory & { id: number })[]> {
  const rows = await select(ex)
    .where(and(inWorkspace(userStories.workspaceId, workspaceId, true), eq(userStories.epicId, epicRowId)))
    .orderBy(asc(userStories.id));
  return rows.map((row) => ({ ...toUserStory(row), id: row.id }));
}
