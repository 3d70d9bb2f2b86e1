/**
 * A member's own personal access tokens (issue 13, "my tokens"): any member (viewer, editor, admin) lists,
 * mints and revokes the tokens they hold in their workspace, through the registry tools of
 * hosted/my-tokens.tools.ts. The storage and the revocation are those of the admin operations
 * (tokens.repo.ts); what differs is who may, decided here:
 *
 * - a token never mints a stronger one: its role ceiling is the one asked for, which must not exceed the
 *   caller's effective role, or else the calling token's own ceiling;
 * - it is recorded as minted by the caller, so it carries instance-owner powers (core/owner-powers.ts) only
 *   when the caller is that owner, acting with a token that carries them;
 * - another user's token, or one of another workspace, answers "not found" (no oracle of ids).
 */
import type { TokenInfo } from "../core/accounts.js";
import { DomainError } from "../core/errors.js";
import { carriesOwnerPowers } from "../core/owner-powers.js";
import { ROLES, type Role, roleAtLeast } from "../core/roles.js";
import type { Executor, Tx } from "./database.js";
import { decodeCursor, isPositiveInt, pageOf } from "./entity-support.js";
import { expiryAfterDays, findTokenInfo, insertToken, listTokens, revokeAndDescribe } from "./tokens.repo.js";

/** The caller (AuthInfo fits): who they are, where, their effective role, the token they act through. */
export interface TokenHolder {
  userId: number;
  workspaceId: number;
  role: Role;
  tokenId: number;
  isOwner: boolean;
}

/** A token as its holder sees it: no user or workspace (always the caller's), never the secret. */
export interface OwnToken {
  id: number;
  name: string;
  role_ceiling: Role | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Username of whoever minted it (null: the admin CLI or bootstrap). */
  created_by: string | null;
  /** The token this call is made with (the web session's, on the web). */
  current: boolean;
}

function own(info: TokenInfo, holder: TokenHolder): OwnToken {
  return {
    id: info.id,
    name: info.name,
    role_ceiling: info.role_ceiling,
    created_at: info.created_at,
    expires_at: info.expires_at,
    last_used_at: info.last_used_at,
    revoked_at: info.revoked_at,
    created_by: info.created_by,
    current: info.id === holder.tokenId,
  };
}

/**
 * The holder's tokens here, newest first, `limit` at a time. The cursor's tag names the workspace and the
 * user, so a cursor of another holder is refused rather than read as a position.
 */
export async function listOwnTokens(
  ex: Executor,
  holder: TokenHolder,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ tokens: OwnToken[]; next_cursor?: string }> {
  const tag = `my_tokens:${holder.workspaceId}:${holder.userId}`;
  const beforeId = decodeCursor(tag, page.cursor, isPositiveInt);
  const rows = await listTokens(ex, holder.workspaceId, holder.userId, { limit: page.limit + 1, beforeId });
  const { items, next_cursor } = pageOf(
    rows,
    page.limit,
    (row) => own(row, holder),
    (row) => row.id,
    tag,
  );
  return { tokens: items, ...(next_cursor ? { next_cursor } : {}) };
}

export interface NewOwnToken {
  id: number;
  name: string;
  /** The secret: shown once, never stored (only its SHA-256) nor logged. */
  token: string;
  role_ceiling: Role | null;
  expires_at: string | null;
}

export async function createOwnToken(
  tx: Tx,
  holder: TokenHolder,
  input: { name: string; expires_in_days?: number | undefined; role?: Role | undefined },
  now: Date,
): Promise<NewOwnToken> {
  const calling = await findTokenInfo(tx, holder.tokenId);
  if (!calling || calling.user_id !== holder.userId || calling.workspace_id !== holder.workspaceId) {
    throw new DomainError("unauthorized", "The token of this call no longer exists: sign in again.");
  }
  if (input.role !== undefined && !roleAtLeast(holder.role, input.role)) {
    const allowed = ROLES.filter((r) => roleAtLeast(holder.role, r)).join(", ");
    throw DomainError.forbidden(
      `Forbidden: a token you mint cannot act above your own role, ${holder.role}; pick role ${allowed}, or leave it out.`,
    );
  }
  const roleCeiling = input.role ?? calling.role_ceiling;
  const powers = carriesOwnerPowers({
    isOwner: calling.user_is_owner,
    userId: holder.userId,
    createdByUserId: holder.userId,
    roleCeiling,
  });
  if (powers && !holder.isOwner) {
    throw DomainError.forbidden(
      "Forbidden: you are an instance owner, but the token of this call does not carry owner rights; " +
        "mint this token with one that does, with the admin CLI, or give it a role below admin.",
    );
  }
  // A token never outlives the token that minted it: otherwise a leaked short-lived token could mint itself
  // a permanent one. Without expires_in_days it expires with the calling token.
  let expiresAt = expiryAfterDays(now, input.expires_in_days);
  if (calling.expires_at !== null) {
    if (expiresAt === null) expiresAt = calling.expires_at;
    else if (expiresAt > calling.expires_at) {
      const days = Math.floor((Date.parse(calling.expires_at) - now.getTime()) / 86_400_000);
      throw DomainError.forbidden(
        `Forbidden: a token you mint cannot outlive the token of this call, which expires at ${calling.expires_at}; ` +
          (days >= 1 ? `pick expires_in_days of at most ${days}, or ` : "") +
          "leave expires_in_days out to expire with it.",
      );
    }
  }
  const created = await insertToken(tx, {
    userId: holder.userId,
    workspaceId: holder.workspaceId,
    name: input.name,
    expiresAt,
    roleCeiling,
    createdByUserId: holder.userId,
  });
  return {
    id: created.id,
    name: input.name,
    token: created.token,
    role_ceiling: roleCeiling,
    expires_at: created.expires_at,
  };
}

export async function revokeOwnToken(tx: Tx, holder: TokenHolder, id: number, now: Date): Promise<OwnToken> {
  const info = await findTokenInfo(tx, id);
  if (!info || info.user_id !== holder.userId || info.workspace_id !== holder.workspaceId) {
    throw DomainError.notFound(
      `Token ${id} not found among your tokens in this workspace; list_my_tokens shows their ids.`,
      String(id),
    );
  }
  return own(await revokeAndDescribe(tx, id, now.toISOString()), holder);
}
