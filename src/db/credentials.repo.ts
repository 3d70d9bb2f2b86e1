/**
 * Sign-in credentials (issue 12 item 4): users' password hashes, the memberships a signed-in user may act
 * in, and the `session` tokens a password sign-in acts through. A session token is an ordinary row of
 * `tokens` (so roles, audit, revocation and membership checks apply exactly as to a PAT), marked in
 * `session_tokens`, whose value is thrown away at once: only its hash exists, and only the web session that
 * minted it can use it. Passwords and emails live in `user_credentials`, apart from `users`.
 */
import { and, asc, eq, inArray, isNull, ne, or } from "drizzle-orm";
import type { Role } from "../core/roles.js";
import { generateToken, hashToken } from "../core/tokens.js";
import type { Executor, Tx } from "./database.js";
import {
  memberships,
  sessionTokens,
  tokens,
  userCredentials,
  users,
  webSessions,
  workspaces,
} from "./schema.js";

export interface SignInUser {
  id: number;
  username: string;
  passwordHash: string | null;
}

/** The user a sign-in names, by username (exact) or email (lower-cased). */
export async function findSignInUser(ex: Executor, login: string): Promise<SignInUser | undefined> {
  const rows = await ex
    .select({ id: users.id, username: users.username, passwordHash: userCredentials.passwordHash })
    .from(users)
    .leftJoin(userCredentials, eq(userCredentials.userId, users.id))
    .where(or(eq(users.username, login), eq(userCredentials.email, login.toLowerCase())))
    .orderBy(asc(users.id))
    .limit(1);
  return rows[0];
}

export async function findUserByEmail(
  ex: Executor,
  email: string,
): Promise<(SignInUser & { isOwner: boolean }) | undefined> {
  const rows = await ex
    .select({
      id: users.id,
      username: users.username,
      passwordHash: userCredentials.passwordHash,
      isOwner: users.isOwner,
    })
    .from(userCredentials)
    .innerJoin(users, eq(users.id, userCredentials.userId))
    .where(eq(userCredentials.email, email.toLowerCase()))
    .limit(1);
  return rows[0];
}

export async function setPasswordHash(tx: Tx, userId: number, hash: string, at: string): Promise<void> {
  await tx
    .insert(userCredentials)
    .values({ userId, passwordHash: hash, passwordChangedAt: at })
    .onConflictDoUpdate({
      target: userCredentials.userId,
      set: { passwordHash: hash, passwordChangedAt: at },
    });
}

export async function setUserEmail(tx: Tx, userId: number, email: string): Promise<void> {
  const lower = email.toLowerCase();
  await tx
    .insert(userCredentials)
    .values({ userId, email: lower })
    .onConflictDoUpdate({ target: userCredentials.userId, set: { email: lower } });
}

export interface UserMembership {
  workspaceId: number;
  slug: string;
  name: string;
  role: Role;
}

/** The workspaces a user belongs to, by slug. */
export async function membershipsOfUser(ex: Executor, userId: number): Promise<UserMembership[]> {
  return ex
    .select({
      workspaceId: workspaces.id,
      slug: workspaces.slug,
      name: workspaces.name,
      role: memberships.role,
    })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(workspaces.slug));
}

/** A `session` token for the user in the workspace, expiring with the web session; returns its id. */
export async function insertSessionToken(
  tx: Tx,
  input: { userId: number; workspaceId: number; expiresAt: string; method: string },
): Promise<number> {
  const [row] = await tx
    .insert(tokens)
    .values({
      // A fresh random value, hashed and forgotten: nobody can present this token as a Bearer.
      tokenHash: await hashToken(generateToken()),
      name: `web sign-in (${input.method})`,
      userId: input.userId,
      workspaceId: input.workspaceId,
      expiresAt: input.expiresAt,
      // The user's own credential: an owner signing in keeps the powers of their own tokens.
      createdByUserId: input.userId,
    })
    .returning({ id: tokens.id });
  if (!row) throw new Error("session token insert returned no row");
  await tx.insert(sessionTokens).values({ tokenId: row.id, method: input.method });
  return row.id;
}

/** `session` for a password, invitation or upstream sign-in's token, `pat` for a personal access token. */
export async function tokenKindOf(ex: Executor, tokenId: number): Promise<"pat" | "session"> {
  const rows = await ex
    .select({ id: sessionTokens.tokenId })
    .from(sessionTokens)
    .where(eq(sessionTokens.tokenId, tokenId))
    .limit(1);
  return rows.length > 0 ? "session" : "pat";
}

/** The ids of `session_tokens` as a subquery (they are never PATs). */
export const SESSION_TOKEN_IDS = (ex: Executor) =>
  ex.select({ id: sessionTokens.tokenId }).from(sessionTokens);

/**
 * Ends every web session of the user and every session token of theirs, but the session `keepIdHash` and
 * its token (a password change keeps the browser that made it signed in). PATs stay: they are revoked one
 * by one, on purpose.
 */
export async function revokeUserSessions(
  tx: Tx,
  userId: number,
  at: string,
  keep?: { idHash: string; tokenId: number },
): Promise<void> {
  await tx
    .update(webSessions)
    .set({ revokedAt: at })
    .where(
      and(
        eq(webSessions.userId, userId),
        isNull(webSessions.revokedAt),
        keep ? ne(webSessions.idHash, keep.idHash) : undefined,
      ),
    );
  await tx
    .update(tokens)
    .set({ revokedAt: at })
    .where(
      and(
        eq(tokens.userId, userId),
        inArray(tokens.id, SESSION_TOKEN_IDS(tx)),
        isNull(tokens.revokedAt),
        keep ? ne(tokens.id, keep.tokenId) : undefined,
      ),
    );
}
