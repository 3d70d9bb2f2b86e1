/**
 * Instance-wide rights come from the `is_owner` flag of the token's user, never from a name or a role,
 * and only through a token that user could legitimately hold: minted by the admin CLI or bootstrap
 * (no creator) or by the owner themselves. A token minted for an owner by anybody else (possible before
 * admin-ops refused it) acts at most as a workspace member. A role ceiling below admin marks a token
 * its owner restricted on purpose: it does not carry the instance-wide rights either.
 *
 * In core/ because auth (http/) applies it to every request and the minting of a member's own tokens
 * (db/own-tokens.ts) must not create a token with more powers than the one that minted it.
 */
import type { Role } from "./roles.js";

export function carriesOwnerPowers(found: {
  isOwner: boolean;
  userId: number;
  createdByUserId: number | null;
  roleCeiling: Role | null;
}): boolean {
  const legitimate = found.createdByUserId === null || found.createdByUserId === found.userId;
  const uncapped = found.roleCeiling === null || found.roleCeiling === "admin";
  return found.isOwner && legitimate && uncapped;
}
