/**
 * Invitations (issue 12 item 4): a link `/invite?code=<secret>` that makes its holder a member of a
 * workspace with a role, once, before it expires. The secret is 32 random bytes; only its SHA-256 is
 * stored (a fast hash is enough for a random secret of that size, as for tokens).
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Role } from "../core/roles.js";
import { generateToken, hashToken } from "../core/tokens.js";
import type { Executor, Tx } from "./database.js";
import { invitations, users, workspaces } from "./schema.js";

export const INVITE_PREFIX = "rqi_";
export const INVITE_PATTERN = /^rqi_[A-Za-z0-9]{32,64}$/;

export async function insertInvitation(
  tx: Tx,
  input: {
    workspaceId: number;
    email: string;
    role: Role;
    expiresAt: string;
    createdByUserId: number | null;
  },
): Promise<{ id: number; secret: string }> {
  const secret = INVITE_PREFIX + generateToken().slice(4);
  const [row] = await tx
    .insert(invitations)
    .values({ ...input, email: input.email.toLowerCase(), secretHash: await hashToken(secret) })
    .returning({ id: invitations.id });
  if (!row) throw new Error("invitation insert returned no row");
  return { id: row.id, secret };
}

export interface FoundInvitation {
  id: number;
  workspaceId: number;
  workspaceSlug: string;
  workspaceName: string;
  email: string;
  role: Role;
  expiresAt: string;
  acceptedAt: string | null;
  /** Whether the inviter is an instance owner (null inviter: the admin CLI, which counts as one). */
  inviterIsOwner: boolean;
}

export async function findInvitation(ex: Executor, secret: string): Promise<FoundInvitation | undefined> {
  if (!INVITE_PATTERN.test(secret)) return undefined;
  const rows = await ex
    .select({
      id: invitations.id,
      workspaceId: invitations.workspaceId,
      workspaceSlug: workspaces.slug,
      workspaceName: workspaces.name,
      email: invitations.email,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
      acceptedAt: invitations.acceptedAt,
      createdBy: invitations.createdByUserId,
      inviterIsOwner: users.isOwner,
    })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .leftJoin(users, eq(users.id, invitations.createdByUserId))
    .where(eq(invitations.secretHash, await hashToken(secret)))
    .limit(1);
  const row = rows[0];
  if (!row) return undefined;
  const { createdBy, inviterIsOwner, ...rest } = row;
  return { ...rest, inviterIsOwner: createdBy === null || inviterIsOwner === true };
}

/** Marks the invitation used, if it still is usable; false when it was used or expired meanwhile. */
export async function markInvitationAccepted(
  tx: Tx,
  id: number,
  userId: number,
  at: string,
): Promise<boolean> {
  const rows = await tx
    .update(invitations)
    .set({ acceptedAt: at, acceptedByUserId: userId })
    .where(and(eq(invitations.id, id), isNull(invitations.acceptedAt), gt(invitations.expiresAt, at)))
    .returning({ id: invitations.id });
  return rows.length === 1;
}
