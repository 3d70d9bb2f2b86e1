/**
 * Epics (EP-001): the top of the hierarchy. Every query is scoped by workspace; an epic of another
 * workspace is simply not found.
 */
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { EntityPatch, EntityStatus, Epic, InterchangeFields } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import {
  type Actor,
  assignees,
  checkExpected,
  creators,
  decodeCursor,
  type EntityOrigin,
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
import { recordWrite } from "./revisions.repo.js";
import { epics } from "./schema.js";

const columns = {
  id: epics.id,
  reference_id: epics.referenceId,
  title: epics.title,
  description: epics.description,
  status: epics.status,
  priority: epics.priority,
  creator_username: creators.username,
  assignee_username: assignees.username,
  revision: epics.revision,
  created_at: epics.createdAt,
  updated_at: epics.updatedAt,
  external_id: epics.externalId,
  attributes: epics.attributes,
};

type Row = Omit<Epic, keyof InterchangeFields> & StoredInterchange & { id: number };

function select(ex: Executor) {
  return ex
    .select(columns)
    .from(epics)
    .leftJoin(creators, eq(creators.id, epics.creatorId))
    .leftJoin(assignees, eq(assignees.id, epics.assigneeId));
}

export function toEpic({ id: _id, external_id, attributes, ...epic }: Row): Epic {
  return { ...epic, ...shownInterchange({ external_id, attributes }) };
}

/** The stored rows whose ids `ids` (a subquery) selects, in creation order: what a delete records. */
export function epicRowsIn(ex: Executor, workspaceId: number, ids: SQL): Promise<Row[]> {
  return select(ex)
    .where(and(eq(epics.workspaceId, workspaceId), sql`${epics.id} IN (${ids})`))
    .orderBy(asc(epics.id));
}

/** Every epic read starts here: prepared once per executor (prepared.ts). */
const epicByReference = preparedPer((ex) =>
  select(ex)
    .where(
      and(
        eq(epics.workspaceId, sql.placeholder("workspace")),
        eq(epics.referenceId, sql.placeholder("reference")),
      ),
    )
    .limit(1)
    .prepare(),
);

/** The stored row (with its internal id) for a normalized reference id, or undefined. */
export async function findEpicRow(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<Row | undefined> {
  const rows = await epicByReference(ex).all({ workspace: workspaceId, reference: referenceId });
  return rows[0];
}

export function epicNotFound(referenceId: string): DomainError {
  return DomainError.notFound(
    `Epic not found: ${referenceId}. Call list_epics or search_global to find the right epic id.`,
    referenceId,
  );
}

/** The stored row for a normalized reference id; not_found otherwise. */
export const requireEpicRow = requiredRow(findEpicRow, epicNotFound);

export async function getEpic(ex: Executor, workspaceId: number, referenceId: string): Promise<Epic> {
  return toEpic(await requireEpicRow(ex, workspaceId, referenceId));
}

/** Epic titles are unique in the workspace, in any case. */
export function refuseDuplicateEpicTitle(
  ex: Executor,
  workspaceId: number,
  title: string,
  exceptId?: number,
) {
  return refuseDuplicateTitle(
    ex,
    epics,
    eq(epics.workspaceId, workspaceId),
    title,
    exceptId,
    (other) =>
      `An epic titled "${title}" already exists: ${other}. Update that epic with update_epic, or choose another title.`,
  );
}

export interface NewEpic {
  title: string;
  description?: string;
  priority?: number;
  status?: EntityStatus;
  assignee?: string;
  external_id?: string;
  attributes?: Record<string, unknown>;
  /** Interchange import: the identity the new epic keeps. */
  origin?: EntityOrigin;
}

export async function createEpic(tx: Tx, workspaceId: number, input: NewEpic, actor: Actor): Promise<Epic> {
  await refuseDuplicateEpicTitle(tx, workspaceId, input.title);
  await refuseDuplicateExternalId(tx, epics, workspaceId, input.external_id);
  const item = await newWorkItem(tx, workspaceId, "EP", input, actor);
  await tx.insert(epics).values({ ...item, ...(input.priority ? { priority: input.priority } : {}) });
  const written = await requireEpicRow(tx, workspaceId, item.referenceId);
  return recordWrite(tx, workspaceId, "epic", "create", written, toEpic, actor);
}

export interface EpicPatch extends EntityPatch {
  status?: EntityStatus;
}

export async function updateEpic(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  patch: EpicPatch,
  actor: Actor,
): Promise<Epic> {
  const row = await requireEpicRow(tx, workspaceId, referenceId);
  checkExpected(referenceId, row.updated_at, patch.expected_updated_at);
  if (patch.title !== undefined) await refuseDuplicateEpicTitle(tx, workspaceId, patch.title, row.id);
  await refuseDuplicateExternalId(tx, epics, workspaceId, patch.external_id, row.id);
  await tx
    .update(epics)
    .set({
      ...(await workItemChanges(tx, workspaceId, patch)),
      ...nextRevision(epics.revision, row.updated_at, actor.now),
    })
    .where(and(eq(epics.workspaceId, workspaceId), eq(epics.id, row.id)));
  const written = await requireEpicRow(tx, workspaceId, referenceId);
  return recordWrite(tx, workspaceId, "epic", "update", written, toEpic, actor);
}

export interface EpicFilter {
  status?: EntityStatus;
  limit: number;
  cursor?: string;
}

/** Epics in creation order, a page at a time. */
export async function listEpics(ex: Executor, workspaceId: number, filter: EpicFilter): Promise<Page<Epic>> {
  const tag = `epics:${filter.status ?? ""}`;
  const after = decodeCursor(tag, filter.cursor, isPositiveInt);
  const rows = await select(ex)
    .where(
      and(
        eq(epics.workspaceId, workspaceId),
        filter.status ? eq(epics.status, filter.status) : undefined,
        after !== undefined ? gt(epics.id, after) : undefined,
      ),
    )
    .orderBy(asc(epics.id))
    .limit(filter.limit + 1);
  return pageOf(rows, filter.limit, toEpic, (r) => r.id, tag);
}
