/**
 * Web app sessions (issue 13): opened by a personal access token, looked up by the SHA-256 of the id the
 * browser holds, acting through that token (a revoked or expired token ends its sessions at once).
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Executor, Tx } from "./database.js";
import { memberships, sessionTokens, tokens, users, webSessions, workspaces } from "./schema.js";
import { TOKEN_MEMBERSHIP, TOKEN_PRINCIPAL_COLUMNS, type TokenPrincipal } from "./tokens.repo.js";

export interface NewSession {
  idHash: string;
  tokenId: number;
  userId: number;
  workspaceId: number;
  createdAt: string;
  expiresAt: string;
}

export async function insertSession(tx: Tx, session: NewSession): Promise<void> {
  await tx.insert(webSessions).values(session);
}

export interface SessionPrincipal extends TokenPrincipal {
  sessionId: number;
  sessionExpiresAt: string;
  sessionRevokedAt: string | null;
}

/** The session with `idHash` and the principal of its token, or undefined. */
export async function findSessionByHash(ex: Executor, idHash: string): Promise<SessionPrincipal | undefined> {
  const rows = await ex
    .select({
      sessionId: webSessions.id,
      sessionExpiresAt: webSessions.expiresAt,
      sessionRevokedAt: webSessions.revokedAt,
      ...TOKEN_PRINCIPAL_COLUMNS,
    })
    .from(webSessions)
    .innerJoin(tokens, eq(tokens.id, webSessions.tokenId))
    .innerJoin(users, eq(users.id, tokens.userId))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .leftJoin(memberships, TOKEN_MEMBERSHIP)
    .where(eq(webSessions.idHash, idHash))
    .limit(1);
  return rows[0];
}

/**
 * Ends one session (sign-out, or the old session replaced at sign-in), and its token when that is a
 * password sign-in's session token (credentials.repo.ts); a PAT outlives the sessions it opened.
 */
export async function revokeSessionByHash(tx: Tx, idHash: string, at: string): Promise<void> {
  const ended = await tx
    .update(webSessions)
    .set({ revokedAt: at })
    .where(and(eq(webSessions.idHash, idHash), isNull(webSessions.revokedAt)))
    .returning({ tokenId: webSessions.tokenId });
  for (const { tokenId } of ended) {
    await tx
      .update(tokens)
      .set({ revokedAt: at })
      .where(
        and(
          eq(tokens.id, tokenId),
          inArray(tokens.id, tx.select({ id: sessionTokens.tokenId }).from(sessionTokens)),
          isNull(tokens.revokedAt),
        ),
      );
  }
}

/** When the token a session is opened with expires (a session never outlives it). */
export async function tokenExpiryOf(ex: Executor, tokenId: number): Promise<string | null> {
  const rows = await ex
    .select({ expiresAt: tokens.expiresAt })
    .from(tokens)
    .where(eq(tokens.id, tokenId))
    .limit(1);
  return rows[0]?.expiresAt ?? null;
}
