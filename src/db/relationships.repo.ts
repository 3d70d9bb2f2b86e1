/**
 * Relationships between requirements (source → target, typed by a relationship type's name). Both ends
 * belong to the same workspace: a requirement of another workspace is simply not found.
 */
import { and, asc, eq, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Relationship } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { type Actor, creators, inWorkspace, iso } from "./entity-support.js";
import { preparedPer } from "./prepared.js";
import { relationshipTypeId } from "./requirement-types.repo.js";
import { requireRequirementRow } from "./requirements.repo.js";
import { recordDeletion, recordDeletions, recordRevision } from "./revisions.repo.js";
import { relationships, relationshipTypes, requirements } from "./schema.js";

const sources = alias(requirements, "sources");
const targets = alias(requirements, "targets");
/** The aliases `isSuspect` is written against: queries using it join the ends under these. */
export const relationshipSources = sources;
export const relationshipTargets = targets;

/** The end revisions a link was confirmed at (null only on rows from before change control: revision 1). */
const sourceRevision = sql<number>`coalesce(${relationships.sourceRevision}, 1)`;
const targetRevision = sql<number>`coalesce(${relationships.targetRevision}, 1)`;

/** Suspect: an end has changed since the link was created or last confirmed. */
export const isSuspect = sql`(${sources.revision} <> ${sourceRevision} OR ${targets.revision} <> ${targetRevision})`;

export const relationshipColumns = {
  source_requirement_id: sources.referenceId,
  target_requirement_id: targets.referenceId,
  relationship_type: relationshipTypes.name,
  creator_username: creators.username,
  created_at: relationships.createdAt,
  revision: relationships.revision,
  source_revision: sourceRevision,
  target_revision: targetRevision,
  suspect: sql<number>`${isSuspect}`.mapWith((v) => Boolean(Number(v))),
};

function select(ex: Executor) {
  return ex
    .select({ id: relationships.id, ...relationshipColumns })
    .from(relationships)
    .innerJoin(sources, eq(sources.id, relationships.sourceRequirementId))
    .innerJoin(targets, eq(targets.id, relationships.targetRequirementId))
    .innerJoin(relationshipTypes, eq(relationshipTypes.id, relationships.typeId))
    .leftJoin(creators, eq(creators.id, relationships.creatorId));
}

export interface RelationshipKey {
  source_requirement_id: string;
  target_requirement_id: string;
  relationship_type: string;
}

async function resolve(ex: Executor, workspaceId: number, key: RelationshipKey) {
  const source = await requireRequirementRow(ex, workspaceId, key.source_requirement_id);
  const target = await requireRequirementRow(ex, workspaceId, key.target_requirement_id);
  const typeId = await relationshipTypeId(ex, workspaceId, key.relationship_type);
  return { sourceId: source.id, targetId: target.id, typeId, source, target };
}

/** A relationship's reference id in history: `REQ-001 depends_on REQ-002`. */
export function describeRelationship(key: RelationshipKey): string {
  return `${key.source_requirement_id} ${key.relationship_type} ${key.target_requirement_id}`;
}
const describe = describeRelationship;

interface RelationshipIds {
  sourceId: number;
  targetId: number;
  typeId: number;
}

/** The one row of that source, target and type in the workspace (the relationship's identity). */
function byIds(workspaceId: number, ids: RelationshipIds): SQL | undefined {
  return and(
    eq(relationships.workspaceId, workspaceId),
    eq(relationships.sourceRequirementId, ids.sourceId),
    eq(relationships.targetRequirementId, ids.targetId),
    eq(relationships.typeId, ids.typeId),
  );
}

/** `select` of one relationship by its identity, prepared once per executor (prepared.ts): see findOne. */
const relationshipByIds = preparedPer((ex) =>
  select(ex)
    .where(
      and(
        eq(relationships.workspaceId, sql.placeholder("workspace")),
        eq(relationships.sourceRequirementId, sql.placeholder("source")),
        eq(relationships.targetRequirementId, sql.placeholder("target")),
        eq(relationships.typeId, sql.placeholder("type")),
      ),
    )
    .limit(1)
    .prepare(),
);

/**
 * The relationship of those ids (`byIds`), or undefined. Each create reads it twice (before and after the
 * insert): built anew each time, this four-join select was most of what an import's links allocated.
 */
async function findOne(ex: Executor, workspaceId: number, ids: RelationshipIds) {
  const rows = await relationshipByIds(ex).all({
    workspace: workspaceId,
    source: ids.sourceId,
    target: ids.targetId,
    type: ids.typeId,
  });
  return rows[0];
}

type Row = Relationship & { id: number };

export function toRelationship({ id: _id, ...relationship }: Row): Relationship {
  return relationship;
}

/** What history keeps of a relationship: its stored fields (suspect is derived, so it is left out). */
function relationshipSnapshot({ id: _id, suspect: _suspect, ...stored }: Row) {
  return stored;
}

/** A row with its history reference id, for `recordDeletion`; its snapshot is the same as on create. */
function withReference(row: Row): Row & { reference_id: string } {
  return { ...row, reference_id: describe(row) };
}

function deletedSnapshot({ reference_id: _ref, ...row }: Row & { reference_id: string }) {
  return relationshipSnapshot(row);
}

function recordRelationship(
  tx: Tx,
  workspaceId: number,
  row: Row,
  op: "create" | "update",
  actor: Actor,
): Promise<void> {
  return recordRevision(
    tx,
    workspaceId,
    {
      kind: "relationship",
      entityId: row.id,
      referenceId: describe(row),
      revision: row.revision,
      op,
      snapshot: relationshipSnapshot(row),
      ends: { source: row.source_requirement_id, target: row.target_requirement_id },
    },
    actor,
  );
}

async function requireOne(tx: Tx, workspaceId: number, key: RelationshipKey) {
  const ids = await resolve(tx, workspaceId, key);
  const existing = await findOne(tx, workspaceId, ids);
  if (!existing) {
    throw DomainError.notFound(
      `No relationship ${describe(key)} exists. Call get_requirement or read requirement://${key.source_requirement_id}/relationships to see its relationships.`,
      describe(key),
    );
  }
  return { ids, existing };
}

/** Interchange import: what a created relationship keeps of the file (so a round trip is identity). */
export interface RelationshipOrigin {
  revision?: number;
  source_revision?: number;
  target_revision?: number;
  created_at?: string;
  /** null: unknown creator. */
  creator_id?: number | null;
}

export async function createRelationship(
  tx: Tx,
  workspaceId: number,
  key: RelationshipKey,
  actor: Actor,
  origin: RelationshipOrigin = {},
): Promise<Relationship> {
  if (key.source_requirement_id === key.target_requirement_id) {
    throw DomainError.invalid(
      `A requirement cannot be related to itself (${key.source_requirement_id}). Pass two different requirement ids.`,
      [{ field: "target_requirement_id", message: "must differ from source_requirement_id" }],
    );
  }
  const ids = await resolve(tx, workspaceId, key);
  if (await findOne(tx, workspaceId, ids)) {
    throw DomainError.conflict(`The relationship ${describe(key)} already exists.`, {
      reference_id: describe(key),
    });
  }
  await tx.insert(relationships).values({
    workspaceId,
    sourceRequirementId: ids.sourceId,
    targetRequirementId: ids.targetId,
    typeId: ids.typeId,
    creatorId: origin.creator_id !== undefined ? origin.creator_id : actor.userId,
    createdAt: origin.created_at ?? iso(actor.now),
    sourceRevision: origin.source_revision ?? ids.source.revision,
    targetRevision: origin.target_revision ?? ids.target.revision,
    ...(origin.revision !== undefined ? { revision: origin.revision } : {}),
  });
  const created = await findOne(tx, workspaceId, ids);
  if (!created) throw new Error("relationship vanished after insert");
  await recordRelationship(tx, workspaceId, created, "create", actor);
  return toRelationship(created);
}

/**
 * Confirms that a link still holds after one of its ends changed: remembers both ends' current revisions
 * (clearing the suspicion) and records the confirmation as a new revision of the relationship.
 */
export async function confirmRelationship(
  tx: Tx,
  workspaceId: number,
  key: RelationshipKey,
  actor: Actor,
): Promise<Relationship> {
  const { ids, existing } = await requireOne(tx, workspaceId, key);
  await tx
    .update(relationships)
    .set({
      sourceRevision: ids.source.revision,
      targetRevision: ids.target.revision,
      revision: sql`${relationships.revision} + 1`,
    })
    .where(byIds(workspaceId, ids));
  const confirmed = await findOne(tx, workspaceId, ids);
  if (!confirmed) throw new Error(`relationship ${describe(existing)} vanished after confirm`);
  await recordRelationship(tx, workspaceId, confirmed, "update", actor);
  return toRelationship(confirmed);
}

/** Deletes one relationship and returns it; not_found when there is no such relationship. */
export async function deleteRelationship(
  tx: Tx,
  workspaceId: number,
  key: RelationshipKey,
  actor: Actor,
): Promise<Relationship> {
  const { ids, existing } = await requireOne(tx, workspaceId, key);
  await tx.delete(relationships).where(byIds(workspaceId, ids));
  await recordDeletion(tx, workspaceId, "relationship", withReference(existing), deletedSnapshot, actor, {
    source: existing.source_requirement_id,
    target: existing.target_requirement_id,
  });
  return toRelationship(existing);
}

/**
 * For deletes that cascade to relationships (a requirement, or a story or epic above it): records the
 * deletion of every relationship with an end among the requirements `requirementRowIds` selects (a subquery,
 * so a story of thousands of requirements binds no list). Call it in the delete's transaction before the
 * DELETE statement, while the rows still exist, so each link's history ends with its delete in both ends'
 * histories (as delete_relationship records it).
 */
export async function recordCascadedRelationshipDeletions(
  tx: Tx,
  workspaceId: number,
  requirementRowIds: SQL,
  actor: Actor,
): Promise<void> {
  const rows = await select(tx)
    .where(
      and(
        eq(relationships.workspaceId, workspaceId),
        or(
          sql`${relationships.sourceRequirementId} IN (${requirementRowIds})`,
          sql`${relationships.targetRequirementId} IN (${requirementRowIds})`,
        ),
      ),
    )
    .orderBy(asc(relationships.id));
  await recordDeletions(
    tx,
    workspaceId,
    "relationship",
    rows.map(withReference),
    deletedSnapshot,
    actor,
    (row) => ({ source: row.source_requirement_id, target: row.target_requirement_id }),
  );
}

/** Relationships where the requirement is the source (outgoing) or the target (incoming). */
export async function relationshipsOfRequirement(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<{ outgoing: Relationship[]; incoming: Relationship[] }> {
  const row = await requireRequirementRow(ex, workspaceId, referenceId);
  // Two queries, each on its own index: (workspace, source, …) and (target).
  const outgoing = await select(ex)
    .where(and(eq(relationships.workspaceId, workspaceId), eq(relationships.sourceRequirementId, row.id)))
    .orderBy(asc(relationships.id));
  const incoming = await select(ex)
    .where(
      and(
        inWorkspace(relationships.workspaceId, workspaceId, true),
        eq(relationships.targetRequirementId, row.id),
      ),
    )
    .orderBy(asc(relationships.id));
  return { outgoing: outgoing.map(toRelationship), incoming: incoming.map(toRelationship) };
}
