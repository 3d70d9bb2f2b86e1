/**
 * Relationships between requirements (source → target, typed by a relationship type's name). Both ends
 * belong to the same workspace: a requirement of another workspace is simply not found.
 */
import { and, asc, eq, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Relationship } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { type Actor, creators, inWorkspace, iso } from "./entity-support.js";
import { relationshipTypeId } from "./requirement-types.repo.js";
import { requireRequirementRow } from "./requirements.repo.js";
import { relationships, relationshipTypes, requirements } from "./schema.js";

const sources = alias(requirements, "sources");
const targets = alias(requirements, "targets");

function select(ex: Executor) {
  return ex
    .select({
      source_requirement_id: sources.referenceId,
      target_requirement_id: targets.referenceId,
      relationship_type: relationshipTypes.name,
      creator_username: creators.username,
      created_at: relationships.createdAt,
    })
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
  return { sourceId: source.id, targetId: target.id, typeId };
}

function describe(key: RelationshipKey): string {
  return `${key.source_requirement_id} ${key.relationship_type} ${key.target_requirement_id}`;
}

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

async function findOne(ex: Executor, workspaceId: number, ids: RelationshipIds) {
  const rows = await select(ex).where(byIds(workspaceId, ids)).limit(1);
  return rows[0];
}

export async function createRelationship(
  tx: Tx,
  workspaceId: number,
  key: RelationshipKey,
  actor: Actor,
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
    creatorId: actor.userId,
    createdAt: iso(actor.now),
  });
  const created = await findOne(tx, workspaceId, ids);
  if (!created) throw new Error("relationship vanished after insert");
  return created;
}

/** Deletes one relationship and returns it; not_found when there is no such relationship. */
export async function deleteRelationship(
  tx: Tx,
  workspaceId: number,
  key: RelationshipKey,
): Promise<Relationship> {
  const ids = await resolve(tx, workspaceId, key);
  const existing = await findOne(tx, workspaceId, ids);
  if (!existing) {
    throw DomainError.notFound(
      `No relationship ${describe(key)} exists. Call get_requirement or read requirement://${key.source_requirement_id}/relationships to see its relationships.`,
      describe(key),
    );
  }
  await tx.delete(relationships).where(byIds(workspaceId, ids));
  return existing;
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
  return { outgoing, incoming };
}
