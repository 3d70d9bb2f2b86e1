/** Workspaces (a team each). Creating one seeds its requirement and relationship types. */
import { eq } from "drizzle-orm";
import type { Workspace } from "../core/accounts.js";
import { DomainError } from "../core/errors.js";
import { SEED_RELATIONSHIP_TYPES, SEED_REQUIREMENT_TYPES } from "../core/seeds.js";
import type { Executor, Tx } from "./database.js";
import { relationshipTypes, requirementTypes, workspaces } from "./schema.js";

type Row = typeof workspaces.$inferSelect;
const toWorkspace = (r: Row): Workspace => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  created_at: r.createdAt,
});

export async function findWorkspaceBySlug(ex: Executor, slug: string): Promise<Workspace | undefined> {
  const rows = await ex.select().from(workspaces).where(eq(workspaces.slug, slug)).limit(1);
  return rows[0] && toWorkspace(rows[0]);
}

export async function findWorkspaceById(ex: Executor, id: number): Promise<Workspace | undefined> {
  const rows = await ex.select().from(workspaces).where(eq(workspaces.id, id)).limit(1);
  return rows[0] && toWorkspace(rows[0]);
}

export async function getWorkspaceBySlug(ex: Executor, slug: string): Promise<Workspace> {
  const ws = await findWorkspaceBySlug(ex, slug);
  if (!ws) throw DomainError.notFound(`Workspace "${slug}" does not exist.`, slug);
  return ws;
}

export async function listWorkspaces(ex: Executor): Promise<Workspace[]> {
  return (await ex.select().from(workspaces).orderBy(workspaces.id)).map(toWorkspace);
}

/** Creates the workspace and its seed types in the caller's transaction; 409 when the slug is taken. */
export async function createWorkspace(tx: Tx, input: { slug: string; name: string }): Promise<Workspace> {
  if (await findWorkspaceBySlug(tx, input.slug)) {
    throw DomainError.conflict(`Workspace "${input.slug}" already exists; choose another slug.`, {
      reference_id: input.slug,
    });
  }
  const [row] = await tx.insert(workspaces).values({ slug: input.slug, name: input.name }).returning();
  if (!row) throw new Error("workspace insert returned no row");
  await tx
    .insert(requirementTypes)
    .values(
      SEED_REQUIREMENT_TYPES.map((t) => ({ workspaceId: row.id, name: t.name, description: t.description })),
    );
  await tx
    .insert(relationshipTypes)
    .values(
      SEED_RELATIONSHIP_TYPES.map((t) => ({ workspaceId: row.id, name: t.name, description: t.description })),
    );
  return toWorkspace(row);
}
