/**
 * The member's authorized OAuth clients (issue 12), for the web app's page: listed per workspace and
 * revoked as a whole grant (its principal token, every code and token of the family). Another member's or
 * another workspace's grant answers not found.
 */
import { DomainError } from "../core/errors.js";
import type { Database } from "../db/database.js";
import { findOwnGrant, type GrantListing, listGrants, revokeGrant } from "../db/oauth.repo.js";
import type { AuthInfo } from "./context.js";
import type { TokenCache } from "./token-cache.js";

export type { GrantListing };

export function listAuthorizedClients(database: Database, auth: AuthInfo): Promise<GrantListing[]> {
  return database.read((db) => listGrants(db, auth.workspaceId, auth.userId));
}

export async function revokeAuthorizedClient(
  deps: { database: Database; tokenCache?: TokenCache },
  auth: AuthInfo,
  grantId: number,
  at: string,
): Promise<void> {
  await deps.database.write(async (tx) => {
    const grant = Number.isSafeInteger(grantId)
      ? await findOwnGrant(tx, grantId, auth.workspaceId, auth.userId)
      : undefined;
    if (!grant)
      throw new DomainError("not_found", `No authorized client ${grantId} of yours in this workspace.`);
    await revokeGrant(tx, grant.id, at);
  });
  deps.tokenCache?.invalidate();
}
