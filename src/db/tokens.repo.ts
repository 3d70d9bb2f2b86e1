/**
 * Personal access tokens: only the SHA-256 hash is stored (DESIGN); the value exists once, in the answer
 * to its creation.
 */
import { and, desc, eq, lt, notExists, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { TokenInfo } from "../core/accounts.js";
import type { Role } from "../core/roles.js";
import { generateToken, hashToken } from "../core/tokens.js";
import type { Executor, Tx } from "./database.js";
import { preparedPer } from "./prepared.js";
import { memberships, sessionTokens, tokens, users, workspaces } from "./schema.js";

export interface NewToken {
  id: number;
  /** The token itself: show it once, never store or log it. */
  token: string;
  expires_at: string | null;
}

export async function insertToken(
  tx: Tx,
  input: {
    userId: number;
    workspaceId: number;
    name: string;
    expiresAt: string | null;
    roleCeiling?: Role | null;
    /** A caller-chosen token (bootstrap with REQLIX_BOOTSTRAP_TOKEN); otherwise one is generated. */
    token?: string;
    /** The user whose admin token minted it; null or absent for the admin CLI and bootstrap. */
    createdByUserId?: number | null;
  },
): Promise<NewToken> {
  const token = input.token ?? generateToken();
  const [row] = await tx
    .insert(tokens)
    .values({
      tokenHash: await hashToken(token),
      name: input.name,
      userId: input.userId,
      workspaceId: input.workspaceId,
      roleCeiling: input.roleCeiling ?? null,
      expiresAt: input.expiresAt,
      createdByUserId: input.createdByUserId ?? null,
    })
    .returning({ id: tokens.id, expiresAt: tokens.expiresAt });
  if (!row) throw new Error("token insert returned no row");
  return { id: row.id, token, expires_at: row.expiresAt };
}

/** Everything auth needs about a presented token, in one query. `memberRole` is null without membership. */
export interface TokenPrincipal {
  tokenId: number;
  userId: number;
  username: string;
  isOwner: boolean;
  workspaceId: number;
  workspaceSlug: string;
  memberRole: Role | null;
  roleCeiling: Role | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  /** Who minted the token (null: the admin CLI or bootstrap). */
  createdByUserId: number | null;
}

/**
 * Who a token acts as (a TokenPrincipal): selected over tokens ⋈ users ⋈ workspaces ⟕ memberships
 * (TOKEN_MEMBERSHIP). Shared by every credential that acts through a token (a PAT, a web session), so the
 * checks in http/auth.ts see the same fields whichever carried it.
 */
export const TOKEN_PRINCIPAL_COLUMNS = {
  tokenId: tokens.id,
  userId: users.id,
  username: users.username,
  isOwner: users.isOwner,
  workspaceId: workspaces.id,
  workspaceSlug: workspaces.slug,
  memberRole: memberships.role,
  roleCeiling: tokens.roleCeiling,
  expiresAt: tokens.expiresAt,
  revokedAt: tokens.revokedAt,
  lastUsedAt: tokens.lastUsedAt,
  createdByUserId: tokens.createdByUserId,
};

/** The token's user's membership in the token's workspace (absent: no longer a member). */
export const TOKEN_MEMBERSHIP = and(
  eq(memberships.userId, tokens.userId),
  eq(memberships.workspaceId, tokens.workspaceId),
);

/** Asked on every authenticated request: prepared once (prepared.ts). */
const tokenByHash = preparedPer((ex) =>
  ex
    .select(TOKEN_PRINCIPAL_COLUMNS)
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .leftJoin(memberships, TOKEN_MEMBERSHIP)
    .where(eq(tokens.tokenHash, sql.placeholder("hash")))
    .limit(1)
    .prepare(),
);

export async function findTokenByHash(ex: Executor, tokenHash: string): Promise<TokenPrincipal | undefined> {
  const rows = await tokenByHash(ex).all({ hash: tokenHash });
  return rows[0];
}

export async function touchTokenLastUsed(tx: Tx, tokenId: number, at: string): Promise<void> {
  await tx.update(tokens).set({ lastUsedAt: at }).where(eq(tokens.id, tokenId));
}

/** The minting user, joined under another name than the token's own user. */
const creators = alias(users, "creators");

const infoColumns = {
  id: tokens.id,
  name: tokens.name,
  username: users.username,
  workspace: workspaces.slug,
  role_ceiling: tokens.roleCeiling,
  created_at: tokens.createdAt,
  expires_at: tokens.expiresAt,
  last_used_at: tokens.lastUsedAt,
  revoked_at: tokens.revokedAt,
  created_by: creators.username,
};

/**
 * Tokens of one workspace (or of all when `workspaceId` is undefined), of one user of it when `userId` is
 * given, newest first.
 */
/**
 * Tokens newest first, of a workspace and/or a user; `page` keeps `limit` of those with an id below
 * `beforeId` (list_my_tokens pages by id through the index tokens_user_workspace).
 */
export async function listTokens(
  ex: Executor,
  workspaceId?: number,
  userId?: number,
  page?: { limit: number; beforeId?: number | undefined },
): Promise<TokenInfo[]> {
  const query = ex
    .select(infoColumns)
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .leftJoin(creators, eq(creators.id, tokens.createdByUserId))
    .where(
      and(
        // Session tokens (a password sign-in's credential, credentials.repo.ts) are not PATs: not listed.
        // NOT EXISTS probes session_tokens by key per row instead of reading all of it first.
        notExists(ex.select({ one: sql`1` }).from(sessionTokens).where(eq(sessionTokens.tokenId, tokens.id))),
        workspaceId === undefined ? undefined : eq(tokens.workspaceId, workspaceId),
        userId === undefined ? undefined : eq(tokens.userId, userId),
        page?.beforeId === undefined ? undefined : lt(tokens.id, page.beforeId),
      ),
    )
    .orderBy(desc(tokens.id));
  return page === undefined ? query : query.limit(page.limit);
}

export async function findTokenInfo(
  ex: Executor,
  id: number,
): Promise<(TokenInfo & { workspace_id: number; user_id: number; user_is_owner: boolean }) | undefined> {
  const rows = await ex
    .select({
      ...infoColumns,
      workspace_id: tokens.workspaceId,
      user_id: tokens.userId,
      user_is_owner: users.isOwner,
    })
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .leftJoin(creators, eq(creators.id, tokens.createdByUserId))
    .where(eq(tokens.id, id))
    .limit(1);
  return rows[0];
}

/** Sets `revoked_at` once; revoking again keeps the first time. */
export async function revokeToken(tx: Tx, id: number, at: string): Promise<void> {
  const current = await tx
    .select({ revokedAt: tokens.revokedAt })
    .from(tokens)
    .where(eq(tokens.id, id))
    .limit(1);
  if (current[0] && current[0].revokedAt === null) {
    await tx.update(tokens).set({ revokedAt: at }).where(eq(tokens.id, id));
  }
}

/** Revokes token `id` (an existing one: the caller checked who may) and returns it as listed. */
export async function revokeAndDescribe(tx: Tx, id: number, at: string): Promise<TokenInfo> {
  await revokeToken(tx, id, at);
  const after = await findTokenInfo(tx, id);
  if (!after) throw new Error(`token ${id} vanished inside its revocation`);
  const { workspace_id: _ws, user_id: _user, user_is_owner: _owner, ...info } = after;
  return info;
}

/** When a token made at `now` for `days` days expires; null: never. */
export function expiryAfterDays(now: Date, days: number | undefined): string | null {
  return days === undefined ? null : new Date(now.getTime() + days * 86_400_000).toISOString();
}
