/**
 * Admin operations shared by the HTTP admin API and the CLI: permission checks, then one write
 * transaction each (with its audit row). Workspace admins act on their workspace; the instance owner and
 * the CLI (local access to the database) on any.
 *
 * Instance ownership is the `users.is_owner` flag, set at bootstrap and changed only by the admin CLI
 * (setOwnerOp). A workspace admin never touches an owner: they may not add one to their workspace, change
 * an owner's role there, mint or revoke an owner's token. Tokens for an owner are minted only by that owner
 * or the CLI, and auth grants owner powers only through such tokens (http/auth.ts), so a token minted for
 * an owner by anybody else, e.g. before this rule existed, carries none.
 */
import type { TokenInfo, Workspace } from "../core/accounts.js";
import type {
  AddMemberInput,
  CreateTokenInput,
  CreateWorkspaceInput,
  ListTokensInput,
  OwnerInput,
} from "../core/admin-input.js";
import { DomainError } from "../core/errors.js";
import { type Role, roleAtLeast } from "../core/roles.js";
import { recordAudit } from "./audit.repo.js";
import type { Database, Executor } from "./database.js";
import { decodeCursor, isPositiveInt, pageOf } from "./entity-support.js";
import { findMembershipRole, setMembership } from "./memberships.repo.js";
import {
  expiryAfterDays,
  findTokenInfo,
  insertToken,
  listTokens,
  type NewToken,
  revokeAndDescribe,
} from "./tokens.repo.js";
import { createUser, findUserByUsername, getUserByUsername, listOwners, setUserOwner } from "./users.repo.js";
import { createWorkspace, findWorkspaceById, getWorkspaceBySlug } from "./workspaces.repo.js";

/** Who asks: a token's principal (AuthInfo fits) or the local CLI. */
export type AdminActor =
  | { kind: "cli" }
  | { kind: "token"; userId: number; workspaceId: number; role: Role; isOwner: boolean; tokenId: number };

export interface OpContext {
  actor: AdminActor;
  now: Date;
  requestId?: string;
}

/** The CLI's workspace when none is named. */
export const DEFAULT_WORKSPACE = "default";

const isSuper = (actor: AdminActor) => actor.kind === "cli" || actor.isOwner;

export function requireAdminOf(actor: AdminActor, workspace: Pick<Workspace, "id" | "slug">): void {
  if (actor.kind === "cli" || actor.isOwner) return;
  if (actor.workspaceId !== workspace.id) {
    throw DomainError.forbidden(
      `Forbidden: your token belongs to another workspace; only the instance owner may administer "${workspace.slug}".`,
    );
  }
  if (!roleAtLeast(actor.role, "admin")) {
    throw DomainError.forbidden(
      `Forbidden: managing members and tokens needs the admin role; yours is ${actor.role}.`,
    );
  }
}

/** A workspace admin may not act on an instance owner: only another owner or the CLI may. */
function requireMayTouchOwner(actor: AdminActor, username: string, what: string): void {
  if (isSuper(actor)) return;
  throw DomainError.forbidden(
    `Forbidden: "${username}" is an instance owner; only an instance owner or the admin CLI may ${what}.`,
  );
}

export async function targetWorkspace(
  ex: Executor,
  actor: AdminActor,
  slug: string | undefined,
): Promise<Workspace> {
  if (slug === undefined && actor.kind === "token") {
    const ws = await findWorkspaceById(ex, actor.workspaceId);
    if (!ws) throw DomainError.notFound("Your token's workspace no longer exists.");
    return ws;
  }
  return getWorkspaceBySlug(ex, slug ?? DEFAULT_WORKSPACE);
}

export function audit(
  ex: Executor,
  ctx: OpContext,
  workspaceId: number | null,
  method: string,
  target: string,
) {
  return recordAudit(ex, {
    workspaceId,
    userId: ctx.actor.kind === "token" ? ctx.actor.userId : null,
    tokenId: ctx.actor.kind === "token" ? ctx.actor.tokenId : null,
    channel: ctx.actor.kind === "cli" ? "cli" : "admin",
    method,
    target,
    outcome: "ok",
    requestId: ctx.requestId ?? null,
    createdAt: ctx.now.toISOString(),
  });
}

export async function createWorkspaceOp(
  db: Database,
  ctx: OpContext,
  input: CreateWorkspaceInput,
): Promise<Workspace> {
  if (!isSuper(ctx.actor))
    throw DomainError.forbidden("Forbidden: only the instance owner may create workspaces.");
  return db.write(async (tx) => {
    const ws = await createWorkspace(tx, input);
    await audit(tx, ctx, ws.id, "workspaces.create", ws.slug);
    return ws;
  });
}

export interface MemberResult {
  workspace: string;
  username: string;
  role: Role;
  user_created: boolean;
}

export async function addMemberOp(
  db: Database,
  ctx: OpContext,
  input: AddMemberInput,
): Promise<MemberResult> {
  return db.write(async (tx) => {
    const ws = await targetWorkspace(tx, ctx.actor, input.workspace);
    requireAdminOf(ctx.actor, ws);
    const existing = await findUserByUsername(tx, input.username);
    if (existing?.is_owner)
      requireMayTouchOwner(ctx.actor, existing.username, "change an owner's memberships");
    const user = existing ?? (await createUser(tx, { username: input.username }));
    const created = existing === undefined;
    await setMembership(tx, ws.id, user.id, input.role);
    await audit(tx, ctx, ws.id, "members.set", `${user.username}:${input.role}`);
    return { workspace: ws.slug, username: user.username, role: input.role, user_created: created };
  });
}

export interface TokenResult extends NewToken {
  name: string;
  username: string;
  workspace: string;
}

export async function createTokenOp(
  db: Database,
  ctx: OpContext,
  input: CreateTokenInput,
): Promise<TokenResult> {
  return db.write(async (tx) => {
    const ws = await targetWorkspace(tx, ctx.actor, input.workspace);
    requireAdminOf(ctx.actor, ws);
    const user = await getUserByUsername(tx, input.username);
    // Owner powers flow only through tokens the owner could hold: minted by themselves or the CLI.
    if (user.is_owner && !(ctx.actor.kind === "cli" || (ctx.actor.isOwner && ctx.actor.userId === user.id))) {
      throw DomainError.forbidden(
        `Forbidden: "${user.username}" is an instance owner; an owner's tokens are minted only by that owner or the admin CLI.`,
      );
    }
    if (!(await findMembershipRole(tx, ws.id, user.id))) {
      throw DomainError.notFound(
        `User "${user.username}" is not a member of workspace "${ws.slug}". Add them first (POST /api/v1/admin/members).`,
        user.username,
      );
    }
    const expiresAt = expiryAfterDays(ctx.now, input.expires_in_days);
    const created = await insertToken(tx, {
      userId: user.id,
      workspaceId: ws.id,
      name: input.name,
      expiresAt,
      roleCeiling: input.role ?? null,
      createdByUserId: ctx.actor.kind === "token" ? ctx.actor.userId : null,
    });
    await audit(tx, ctx, ws.id, "tokens.create", `token:${created.id}`);
    return { ...created, name: input.name, username: user.username, workspace: ws.slug };
  });
}

/**
 * A workspace's tokens, newest first, `input.limit` at a time. The cursor's tag names the workspace, so a
 * cursor of another workspace's list is refused rather than read as a position in this one.
 */
export async function listTokensOp(
  db: Database,
  ctx: OpContext,
  input: ListTokensInput,
): Promise<{ tokens: TokenInfo[]; next_cursor?: string }> {
  return db.read(async (ex) => {
    const ws = await targetWorkspace(ex, ctx.actor, input.workspace);
    requireAdminOf(ctx.actor, ws);
    const tag = `admin_tokens:${ws.id}`;
    const beforeId = decodeCursor(tag, input.cursor, isPositiveInt);
    const rows = await listTokens(ex, ws.id, undefined, { limit: input.limit + 1, beforeId });
    const { items, next_cursor } = pageOf(
      rows,
      input.limit,
      (row) => row,
      (row) => row.id,
      tag,
    );
    return { tokens: items, ...(next_cursor ? { next_cursor } : {}) };
  });
}

export async function revokeTokenOp(db: Database, ctx: OpContext, id: number): Promise<TokenInfo> {
  return db.write(async (tx) => {
    const info = await findTokenInfo(tx, id);
    // Another workspace's token answers as unknown: ids of other teams are not disclosed.
    const visible =
      info !== undefined &&
      (isSuper(ctx.actor) || (ctx.actor.kind === "token" && ctx.actor.workspaceId === info.workspace_id));
    if (!info || !visible)
      throw DomainError.notFound(`Token ${id} does not exist in your workspace.`, String(id));
    requireAdminOf(ctx.actor, { id: info.workspace_id, slug: info.workspace });
    if (info.user_is_owner) requireMayTouchOwner(ctx.actor, info.username, "revoke an owner's tokens");
    const revoked = await revokeAndDescribe(tx, id, ctx.now.toISOString());
    await audit(tx, ctx, info.workspace_id, "tokens.revoke", `token:${id}`);
    return revoked;
  });
}

export interface OwnerResult {
  username: string;
  is_owner: boolean;
  /** False when the user already had (or lacked) ownership: nothing was written. */
  changed: boolean;
}

/**
 * Grants or revokes instance ownership. Only the admin CLI may (access to the database is the credential):
 * no token, not even an owner's, changes who owns the instance. The last owner is never revoked, so the
 * instance always has someone who can create workspaces.
 */
export async function setOwnerOp(
  db: Database,
  ctx: OpContext,
  input: OwnerInput & { owner: boolean },
): Promise<OwnerResult> {
  if (ctx.actor.kind !== "cli") {
    throw DomainError.forbidden("Forbidden: instance ownership is changed only with the admin CLI.");
  }
  return db.write(async (tx) => {
    const user = await getUserByUsername(tx, input.username);
    if (user.is_owner === input.owner)
      return { username: user.username, is_owner: user.is_owner, changed: false };
    if (!input.owner && (await listOwners(tx)).length <= 1) {
      throw DomainError.conflict(
        `"${user.username}" is the last instance owner: grant ownership to another user first (owner-grant --username U).`,
      );
    }
    await setUserOwner(tx, user.id, input.owner);
    await audit(tx, ctx, null, input.owner ? "owner.grant" : "owner.revoke", user.username);
    return { username: user.username, is_owner: input.owner, changed: true };
  });
}

export async function listOwnersOp(db: Database): Promise<{ username: string; created_at: string }[]> {
  const owners = await db.read((ex) => listOwners(ex));
  return owners.map((u) => ({ username: u.username, created_at: u.created_at }));
}
