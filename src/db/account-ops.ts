/**
 * Operations on who may sign in (issue 12 item 4): setting a password (admin CLI), inviting someone to a
 * workspace (admin CLI and admin API) and accepting an invitation (the web app). Password hashing is slow
 * on purpose, so it runs before the write transaction, never inside it.
 */
import type { InviteInput } from "../core/admin-input.js";
import { DomainError } from "../core/errors.js";
import { hashPassword, passwordProblem, verifyPassword } from "../core/password.js";
import type { Role } from "../core/roles.js";
import { audit, type OpContext, requireAdminOf, targetWorkspace } from "./admin-ops.js";
import { recordAudit } from "./audit.repo.js";
import { findUserByEmail, revokeUserSessions, setPasswordHash, setUserEmail } from "./credentials.repo.js";
import type { Database, Tx } from "./database.js";
import {
  type FoundInvitation,
  findInvitation,
  insertInvitation,
  markInvitationAccepted,
} from "./invitations.repo.js";
import { setMembership } from "./memberships.repo.js";
import { createUser, findUserByUsername, getUserByUsername } from "./users.repo.js";

function checkPassword(password: string, field = "password"): void {
  const problem = passwordProblem(password);
  if (problem) throw DomainError.invalid(problem, [{ field, message: problem }]);
}

/**
 * Sets a user's password (admin CLI only: access to the database is the credential) and ends every web
 * session the user has, so an old password's sessions do not outlive it.
 */
export async function setPasswordOp(
  db: Database,
  ctx: OpContext,
  input: { username: string; password: string },
): Promise<{ username: string; password_set: true; sessions_revoked: true }> {
  if (ctx.actor.kind !== "cli")
    throw DomainError.forbidden("Forbidden: set-password is an admin CLI command.");
  checkPassword(input.password);
  const user = await db.read((ex) => getUserByUsername(ex, input.username));
  const hash = await hashPassword(input.password);
  const at = ctx.now.toISOString();
  await db.write(async (tx) => {
    await setPasswordHash(tx, user.id, hash, at);
    await revokeUserSessions(tx, user.id, at);
    await audit(tx, ctx, null, "users.set_password", user.username);
  });
  return { username: user.username, password_set: true, sessions_revoked: true };
}

export const DEFAULT_INVITE_HOURS = 72;

export interface InviteResult {
  id: number;
  workspace: string;
  email: string;
  role: Role;
  expires_at: string;
  /** The path to send (prefixed with the server's address when known); shown once. */
  path: string;
}

export async function inviteOp(db: Database, ctx: OpContext, input: InviteInput): Promise<InviteResult> {
  const email = input.email;
  const hours = input.expires_in_hours ?? DEFAULT_INVITE_HOURS;
  return db.write(async (tx) => {
    const ws = await targetWorkspace(tx, ctx.actor, input.workspace);
    requireAdminOf(ctx.actor, ws);
    const expiresAt = new Date(ctx.now.getTime() + hours * 3_600_000).toISOString();
    const created = await insertInvitation(tx, {
      workspaceId: ws.id,
      email,
      role: input.role,
      expiresAt,
      createdByUserId: ctx.actor.kind === "token" ? ctx.actor.userId : null,
    });
    await audit(tx, ctx, ws.id, "invitations.create", `invitation:${created.id}`);
    return {
      id: created.id,
      workspace: ws.slug,
      email,
      role: input.role,
      expires_at: expiresAt,
      path: `/invite?code=${created.secret}`,
    };
  });
}

/** Why an invitation cannot be used now, or undefined. The same words on the page and on refusal. */
export function invitationProblem(found: FoundInvitation | undefined, now: Date): string | undefined {
  if (!found) return "This invitation link is not valid: ask a workspace admin for a new one.";
  if (found.acceptedAt !== null) return "This invitation was already used: sign in, or ask for a new one.";
  if (found.expiresAt <= now.toISOString())
    return `This invitation expired at ${found.expiresAt}: ask a workspace admin for a new one.`;
  return undefined;
}

/** What the invitation page needs to know: the invitation, and whether its email already has an account. */
export async function lookUpInvitation(
  db: Database,
  secret: string,
): Promise<{ invitation: FoundInvitation | undefined; existingUsername: string | undefined }> {
  return db.read(async (ex) => {
    const invitation = await findInvitation(ex, secret);
    const existing = invitation ? await findUserByEmail(ex, invitation.email) : undefined;
    return { invitation, existingUsername: existing?.username };
  });
}

/**
 * Accepts an invitation: a new user (the chosen username and password, the invitation's email) or, when
 * the email already has an account, that account after its password is given. The user becomes a member
 * with the invitation's role, and the invitation is used up, in one transaction.
 */
export async function acceptInvitationOp(
  db: Database,
  input: { secret: string; username?: string; password: string; now: Date },
): Promise<{ userId: number; username: string; workspaceId: number }> {
  const { invitation, existingUsername } = await lookUpInvitation(db, input.secret);
  const problem = invitationProblem(invitation, input.now);
  if (problem || !invitation) throw DomainError.conflict(problem ?? "invalid invitation");
  const at = input.now.toISOString();
  let hash: string | undefined;
  if (existingUsername) {
    const existing = await db.read((ex) => findUserByEmail(ex, invitation.email));
    if (!existing?.passwordHash) {
      throw DomainError.conflict(
        `The account "${existingUsername}" has no password yet: ask an instance admin to set one (npm run admin -- set-password --user ${existingUsername}), then open this link again.`,
      );
    }
    if (!(await verifyPassword(input.password, existing.passwordHash))) {
      throw DomainError.invalid("wrong password", [
        { field: "password", message: `wrong password for "${existingUsername}"` },
      ]);
    }
  } else {
    if (!input.username) {
      throw DomainError.invalid("missing username", [{ field: "username", message: "choose a username" }]);
    }
    checkPassword(input.password);
    hash = await hashPassword(input.password);
  }
  return db.write(async (tx) => {
    let userId: number;
    let username: string;
    if (existingUsername) {
      const existing = await findUserByEmail(tx, invitation.email);
      if (!existing)
        throw DomainError.conflict("The invited account changed meanwhile: open the link again.");
      if (existing.isOwner && !invitation.inviterIsOwner) {
        throw DomainError.forbidden(
          `Forbidden: "${existing.username}" is an instance owner; only an owner or the admin CLI may invite them.`,
        );
      }
      userId = existing.id;
      username = existing.username;
    } else {
      const name = input.username as string;
      if (await findUserByUsername(tx, name)) {
        throw DomainError.conflict(`The username "${name}" is taken: choose another one.`);
      }
      const user = await createUser(tx, { username: name });
      await setPasswordHash(tx, user.id, hash as string, at);
      await setUserEmail(tx, user.id, invitation.email);
      userId = user.id;
      username = name;
    }
    await completeInvitation(tx, invitation, userId, at);
    return { userId, username, workspaceId: invitation.workspaceId };
  });
}

/** Uses up the invitation for `userId` and makes them a member with its role, with the audit row. */
async function completeInvitation(
  tx: Tx,
  invitation: FoundInvitation,
  userId: number,
  at: string,
): Promise<void> {
  if (!(await markInvitationAccepted(tx, invitation.id, userId, at))) {
    throw DomainError.conflict("This invitation was already used or has expired: ask for a new one.");
  }
  // The invitation sets the role the admin chose, for a new member and an existing one alike.
  await setMembership(tx, invitation.workspaceId, userId, invitation.role);
  await recordAudit(tx, {
    workspaceId: invitation.workspaceId,
    userId,
    tokenId: null,
    channel: "web",
    method: "invitations.accept",
    target: `invitation:${invitation.id}`,
    outcome: "ok",
    requestId: null,
    createdAt: at,
  });
}

/** A free username from an email's local part (`ada.l@x` → `ada.l`, then `ada.l-2`, …). */
async function usernameFor(tx: Tx, email: string): Promise<string> {
  const base =
    (email.split("@")[0] ?? "")
      .replace(/[^A-Za-z0-9._-]/g, "")
      .replace(/^[^A-Za-z0-9]+/, "")
      .slice(0, 56) || "member";
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if (!(await findUserByUsername(tx, name))) return name;
  }
}

/**
 * Accepts an invitation with an upstream identity (web/oidc.ts): the provider's verified email names the
 * account. An account with that email joins; otherwise a user is created with that email, a username from
 * it and no password (they sign in through the provider, or get a password from the admin CLI).
 */
export async function acceptInvitationUpstreamOp(
  db: Database,
  input: { secret: string; verifiedEmail: string; now: Date },
): Promise<{ userId: number; username: string; workspaceId: number }> {
  const at = input.now.toISOString();
  return db.write(async (tx) => {
    const invitation = await findInvitation(tx, input.secret);
    const problem = invitationProblem(invitation, input.now);
    if (problem || !invitation) throw DomainError.conflict(problem ?? "invalid invitation");
    const existing = await findUserByEmail(tx, input.verifiedEmail);
    if (existing?.isOwner && !invitation.inviterIsOwner) {
      throw DomainError.forbidden(
        `Forbidden: "${existing.username}" is an instance owner; only an owner or the admin CLI may invite them.`,
      );
    }
    const user = existing ?? (await createUser(tx, { username: await usernameFor(tx, input.verifiedEmail) }));
    if (!existing) await setUserEmail(tx, user.id, input.verifiedEmail);
    await completeInvitation(tx, invitation, user.id, at);
    return { userId: user.id, username: user.username, workspaceId: invitation.workspaceId };
  });
}
