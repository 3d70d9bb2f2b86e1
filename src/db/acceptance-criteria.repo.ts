/**
 * Acceptance criteria (AC-001): the testable conditions of a user story. Scoped by workspace.
 */
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { AcceptanceCriterion, InterchangeFields } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import {
  type Actor,
  allocateReference,
  checkExpected,
  creators,
  type EntityOrigin,
  interchangeColumns,
  inWorkspace,
  iso,
  nextRevision,
  originStamps,
  refuseDuplicateExternalId,
  requiredRow,
  type StoredInterchange,
  shownInterchange,
} from "./entity-support.js";
import { recordWrite } from "./revisions.repo.js";
import { acceptanceCriteria, userStories } from "./schema.js";
import { requireUserStoryRow } from "./user-stories.repo.js";

const columns = {
  id: acceptanceCriteria.id,
  reference_id: acceptanceCriteria.referenceId,
  user_story_id: userStories.referenceId,
  title: acceptanceCriteria.title,
  description: acceptanceCriteria.description,
  creator_username: creators.username,
  revision: acceptanceCriteria.revision,
  created_at: acceptanceCriteria.createdAt,
  updated_at: acceptanceCriteria.updatedAt,
  external_id: acceptanceCriteria.externalId,
  attributes: acceptanceCriteria.attributes,
};

type Row = Omit<AcceptanceCriterion, keyof InterchangeFields> & StoredInterchange & { id: number };

function select(ex: Executor) {
  return ex
    .select(columns)
    .from(acceptanceCriteria)
    .innerJoin(userStories, eq(userStories.id, acceptanceCriteria.userStoryId))
    .leftJoin(creators, eq(creators.id, acceptanceCriteria.creatorId));
}

export function toCriterion({ id: _id, external_id, attributes, ...criterion }: Row): AcceptanceCriterion {
  return { ...criterion, ...shownInterchange({ external_id, attributes }) };
}

/** The stored rows whose ids `ids` (a subquery) selects, in creation order: what a delete records. */
export function criterionRowsIn(ex: Executor, workspaceId: number, ids: SQL): Promise<Row[]> {
  return select(ex)
    .where(and(eq(acceptanceCriteria.workspaceId, workspaceId), sql`${acceptanceCriteria.id} IN (${ids})`))
    .orderBy(asc(acceptanceCriteria.id));
}

export function criterionNotFound(referenceId: string): DomainError {
  return DomainError.notFound(
    `Acceptance criterion not found: ${referenceId}. Call get_user_story or epic_hierarchy to see a story's criteria.`,
    referenceId,
  );
}

/** A short title from the criterion's text: its first line, cut at a word near 80 characters. */
export function titleFromDescription(description: string): string {
  const line = (description.trim().split("\n")[0] ?? "").trim();
  if (line.length <= 80) return line;
  const cut = line.slice(0, 80);
  const space = cut.lastIndexOf(" ");
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export async function findCriterionRow(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<Row | undefined> {
  const rows = await select(ex)
    .where(
      and(eq(acceptanceCriteria.workspaceId, workspaceId), eq(acceptanceCriteria.referenceId, referenceId)),
    )
    .limit(1);
  return rows[0];
}

/** The stored row for a normalized reference id; not_found otherwise. */
export const requireCriterionRow = requiredRow(findCriterionRow, criterionNotFound);

export async function getAcceptanceCriterion(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<AcceptanceCriterion> {
  return toCriterion(await requireCriterionRow(ex, workspaceId, referenceId));
}

export interface NewAcceptanceCriterion {
  user_story_id: string;
  description: string;
  title?: string;
  external_id?: string;
  attributes?: Record<string, unknown>;
  /** Interchange import: the identity the new criterion keeps. */
  origin?: EntityOrigin;
}

export async function createAcceptanceCriterion(
  tx: Tx,
  workspaceId: number,
  input: NewAcceptanceCriterion,
  actor: Actor,
): Promise<AcceptanceCriterion> {
  const story = await requireUserStoryRow(tx, workspaceId, input.user_story_id);
  await refuseDuplicateExternalId(tx, acceptanceCriteria, workspaceId, input.external_id);
  const { origin } = input;
  const referenceId = await allocateReference(
    tx,
    workspaceId,
    "AC",
    origin?.reference_id,
    origin?.reference_allocated,
  );
  const stamp = iso(actor.now);
  await tx.insert(acceptanceCriteria).values({
    workspaceId,
    referenceId,
    userStoryId: story.id,
    title: input.title ?? titleFromDescription(input.description),
    description: input.description,
    creatorId: origin?.creator_id !== undefined ? origin.creator_id : actor.userId,
    ...interchangeColumns(input),
    ...originStamps(origin, stamp),
  });
  const written = await requireCriterionRow(tx, workspaceId, referenceId);
  return recordWrite(tx, workspaceId, "acceptance_criterion", "create", written, toCriterion, actor);
}

export interface AcceptanceCriterionPatch {
  description?: string;
  title?: string;
  expected_updated_at?: string;
  /** null clears. */
  external_id?: string | null;
  /** Replaces the stored attributes; null (or {}) clears them. */
  attributes?: Record<string, unknown> | null;
}

export async function updateAcceptanceCriterion(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  patch: AcceptanceCriterionPatch,
  actor: Actor,
): Promise<AcceptanceCriterion> {
  const row = await requireCriterionRow(tx, workspaceId, referenceId);
  const current = toCriterion(row);
  checkExpected(referenceId, current.updated_at, patch.expected_updated_at);
  await refuseDuplicateExternalId(tx, acceptanceCriteria, workspaceId, patch.external_id, row.id);
  // A new text without a new title re-derives the title, so the two never disagree.
  const title =
    patch.title ?? (patch.description !== undefined ? titleFromDescription(patch.description) : undefined);
  await tx
    .update(acceptanceCriteria)
    .set({
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(title !== undefined ? { title } : {}),
      ...interchangeColumns(patch),
      ...nextRevision(acceptanceCriteria.revision, current.updated_at, actor.now),
    })
    .where(
      and(eq(acceptanceCriteria.workspaceId, workspaceId), eq(acceptanceCriteria.referenceId, referenceId)),
    );
  const written = await requireCriterionRow(tx, workspaceId, referenceId);
  return recordWrite(tx, workspaceId, "acceptance_criterion", "update", written, toCriterion, actor);
}

/** Up to `limit` criteria of one story with a row id above `afterId`, in creation order (the id is the key). */
export async function criteriaOfUserStoryAfter(
  ex: Executor,
  workspaceId: number,
  storyRowId: number,
  afterId: number,
  limit: number,
): Promise<{ item: AcceptanceCriterion; key: number }[]> {
  const rows = await select(ex)
    .where(
      and(
        inWorkspace(acceptanceCriteria.workspaceId, workspaceId, true),
        eq(acceptanceCriteria.userStoryId, storyRowId),
        gt(acceptanceCriteria.id, afterId),
      ),
    )
    .orderBy(asc(acceptanceCriteria.id))
    .limit(limit);
  return rows.map((r) => ({ item: toCriterion(r), key: r.id }));
}
