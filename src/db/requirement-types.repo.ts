/**
 * Requirement types and relationship types: per workspace, seeded when a workspace is created
 * (workspaces.repo.ts, core/seeds.ts), managed by its admins. Names are matched case-insensitively; tools
 * always show names, never internal ids (user-story spec, criterion 1.9).
 */
import { asc, eq, type SQL, sql } from "drizzle-orm";
import type { NamedType } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { relationshipTypes, requirementTypes } from "./schema.js";

/** Requirement and relationship types: the same columns and the same rules, each kind in its own table. */
type TypeTable = typeof requirementTypes | typeof relationshipTypes;

function listTypes(ex: Executor, table: TypeTable, workspaceId: number): Promise<NamedType[]> {
  return ex
    .select({ name: table.name, description: table.description })
    .from(table)
    .where(eq(table.workspaceId, workspaceId))
    .orderBy(asc(table.id));
}

/** The workspace's type of that name, in any case. */
function named(table: TypeTable, workspaceId: number, name: string): SQL {
  return sql`${table.workspaceId} = ${workspaceId} AND lower(${table.name}) = lower(${name})`;
}

/** The id of a type by name (any case); invalid_input naming `field` and the choices otherwise. */
async function typeId(
  ex: Executor,
  table: TypeTable,
  kind: "requirement" | "relationship",
  workspaceId: number,
  name: string,
  field: string,
): Promise<number> {
  const rows = await ex
    .select({ id: table.id })
    .from(table)
    .where(named(table, workspaceId, name))
    .limit(1);
  if (rows[0]) return rows[0].id;
  const names = (await listTypes(ex, table, workspaceId)).map((t) => t.name);
  throw DomainError.invalid(`Unknown ${kind} type "${name}". Use one of: ${names.join(", ")}.`, [
    { field, message: `unknown ${kind} type; one of ${names.join(", ")}` },
  ]);
}

export function listRequirementTypes(ex: Executor, workspaceId: number): Promise<NamedType[]> {
  return listTypes(ex, requirementTypes, workspaceId);
}

export function listRelationshipTypes(ex: Executor, workspaceId: number): Promise<NamedType[]> {
  return listTypes(ex, relationshipTypes, workspaceId);
}

export function requirementTypeId(ex: Executor, workspaceId: number, name: string, field = "type") {
  return typeId(ex, requirementTypes, "requirement", workspaceId, name, field);
}

export function relationshipTypeId(
  ex: Executor,
  workspaceId: number,
  name: string,
  field = "relationship_type",
) {
  return typeId(ex, relationshipTypes, "relationship", workspaceId, name, field);
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
    .where(named(requirementTypes, workspaceId, type.name))
    .limit(1);
  if (taken[0]) {
    throw DomainError.conflict(`A requirement type named "${taken[0].name}" already exists.`, {
      reference_id: taken[0].name,
    });
  }
  await tx.insert(requirementTypes).values({ workspaceId, name: type.name, description: type.description });
  return { name: type.name, description: type.description };
}
