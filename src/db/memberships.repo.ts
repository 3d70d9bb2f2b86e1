/** Who belongs to which workspace, with which role. */
import { and, eq, sql } from "drizzle-orm";
import type { Role } from "../core/roles.js";
import type { Executor, Tx } from "./database.js";
import { memberships } from "./schema.js";

/** Adds the user to the workspace or changes their role there (one row per workspace and user). */
export async function setMembership(tx: Tx, workspaceId: number, userId: number, role: Role): Promise<void> {
  await tx
    .insert(memberships)
    .values({ workspaceId, userId, role })
    .onConflictDoUpdate({
      target: [memberships.workspaceId, memberships.userId],
      set: { role, updatedAt: sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))` },
    });
}

export async function findMembershipRole(
  ex: Executor,
  workspaceId: number,
  userId: number,
): Promise<Role | undefined> {
  const rows = await ex
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
    .limit(1);
  return rows[0]?.role;
}
