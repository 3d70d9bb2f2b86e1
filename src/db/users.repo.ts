/** Users of the instance (global; membership ties them to workspaces). */
import { asc, count, eq } from "drizzle-orm";
import type { User } from "../core/accounts.js";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { users } from "./schema.js";

type Row = typeof users.$inferSelect;
const toUser = (r: Row): User => ({
  id: r.id,
  username: r.username,
  is_owner: r.isOwner,
  created_at: r.createdAt,
});

export async function findUserByUsername(ex: Executor, username: string): Promise<User | undefined> {
  const rows = await ex.select().from(users).where(eq(users.username, username)).limit(1);
  return rows[0] && toUser(rows[0]);
}

export async function getUserByUsername(ex: Executor, username: string): Promise<User> {
  const user = await findUserByUsername(ex, username);
  if (!user) {
    throw DomainError.notFound(
      `User "${username}" does not exist. Add them first (POST /api/v1/admin/members or \`npm run admin -- member-add\`).`,
      username,
    );
  }
  return user;
}

export async function countUsers(ex: Executor): Promise<number> {
  const [row] = await ex.select({ n: count() }).from(users);
  return row?.n ?? 0;
}

export async function createUser(tx: Tx, input: { username: string; isOwner?: boolean }): Promise<User> {
  const [row] = await tx
    .insert(users)
    .values({ username: input.username, isOwner: input.isOwner ?? false })
    .returning();
  if (!row) throw new Error("user insert returned no row");
  return toUser(row);
}

/** Sets or clears the instance-owner flag (only the admin CLI calls this: admin-ops.setOwnerOp). */
export async function setUserOwner(tx: Tx, userId: number, isOwner: boolean): Promise<void> {
  await tx.update(users).set({ isOwner }).where(eq(users.id, userId));
}

export async function listOwners(ex: Executor): Promise<User[]> {
  const rows = await ex.select().from(users).where(eq(users.isOwner, true)).orderBy(asc(users.id));
  return rows.map(toUser);
}
