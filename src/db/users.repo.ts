/** Users of the instance (global; membership ties them to workspaces). */
import { count, eq } from "drizzle-orm";
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

/** The user, created when new. */
export async function ensureUser(tx: Tx, username: string): Promise<{ user: User; created: boolean }> {
  const existing = await findUserByUsername(tx, username);
  if (existing) return { user: existing, created: false };
  return { user: await createUser(tx, { username }), created: true };
}
