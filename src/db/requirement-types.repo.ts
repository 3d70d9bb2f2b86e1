/**
 * Requirement types and relationship types: per workspace, seeded when a workspace is created
 * (workspaces.repo.ts, core/seeds.ts), managed by its admins. Names are matched case-insensitively; tools
 * always show names, never internal ids (user-story spec, criterion 1.9).
 */
import { asc, eq, sql } from "drizzle-orm";
import type { NamedType } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { relationshipTypes, requirementTypes } from "./schema.js";

export async function listRequirementTypes(ex: Executor, workspaceId: number): Promise<NamedType[]> {
  return ex
    .select({ name: requirementTypes.name, description: requirementTypes.description })
    .from(requirementTypes)
    .where(eq(requirementTypes.workspaceId, workspaceId))
    .orderBy(asc(requirementTypes.id));
}

export async function listRelationshipTypes(ex: Executor, workspaceId: number): Promise<NamedType[]> {
  return ex
    .select({ name: relationshipTypes.name, description: relationshipTypes.description })
    .from(relationshipTypes)
    .where(eq(relationshipTypes.workspaceId, workspaceId))
    .orderBy(asc(relationshipTypes.id));
}

/** The id of a requirement type by name (any case); invalid_input naming `field` and the choices otherwise. */
export async function requirementTypeId(ex: Executor, workspaceId: number, name: string, field = "type") {
  const rows = await ex
    .select({ id: requirementTypes.id })
    .from(requirementTypes)
    .where(
      sql`${requirementTypes.workspaceId} = ${workspaceId} AND lower(${requirementTypes.name}) = lower(${name})`,
    )
    .limit(1);
  if (rows[0]) return rows[0].id;
  const names = (await listRequirementTypes(ex, workspaceId)).map((t) => t.name);
  throw DomainError.invalid(`Unknown requirement type "${name}". Use one of: ${names.join(", ")}.`, [
    { field, message: `unknown requirement type; one of ${names.join(", ")}` },
  ]);
}

export async function relationshipTypeId(
  ex: Executor,
  workspaceId: number,
  name: string,
  field = "relationship_type",
) {
  const rows = await ex
    .select({ id: relationshipTypes.id })
    .from(relationshipTypes)
    .where(
      sql`${relationshipTypes.workspaceId} = ${workspaceId} AND lower(${relationshipTypes.name}) = lower(${name})`,
    )
    .limit(1);
  if (rows[0]) return rows[0].id;
  const names = (await listRelationshipTypes(ex, workspaceId)).map((t) => t.name);
  throw DomainError.invalid(`Unknown relationship type "${name}". Use one of: ${names.join(", ")}.`, [
    { field, message: `unknown relationship type; one of ${names.join(", ")}` },
  ]);
}

/** Admins add types of their own (DESIGN roles: admin manages types). A name taken in any case → conflict. */
export async function createRequirementType(
  tx: Tx,
  workspaceId: number,
  type: NamedType,
): Promise<NamedType> {
  const taken = await tx
    .select({ name: requirementTypes.name })
    .from(requirementTypes)
    .where(
      sql`${requirementTypes.workspaceId} = ${workspaceId} AND lower(${requirementTypes.name}) = lower(${type.name})`,
    )
    .limit(1);
  if (taken[0]) {
    throw DomainError.conflict(`A requirement type named "${taken[0].name}" already exists.`, {
      reference_id: taken[0].name,
    });
  }
  await tx.insert(requirementTypes).values({ workspaceId, name: type.name, description: type.description });
  return { name: type.name, description: type.description };
}
