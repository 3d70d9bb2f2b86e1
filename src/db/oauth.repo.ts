/**
 * OAuth 2.1 rows (issue 12): clients, grants (one consent = one refresh-token family, acting through a
 * `tokens` row of its own) and their codes and tokens, all by SHA-256 (db/schema.ts).
 */
import { and, desc, eq, exists, isNull, max, sql } from "drizzle-orm";
import type { Role } from "../core/roles.js";
import { generateToken, hashToken } from "../core/tokens.js";
import type { Executor, Tx } from "./database.js";
import { memberships, oauthClients, oauthGrants, oauthTokens, tokens, users, workspaces } from "./schema.js";
import { TOKEN_MEMBERSHIP, TOKEN_PRINCIPAL_COLUMNS, type TokenPrincipal } from "./tokens.repo.js";

export type OAuthClientRow = typeof oauthClients.$inferSelect;

export async function findClient(ex: Executor, clientId: string): Promise<OAuthClientRow | undefined> {
  const rows = await ex.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  return rows[0];
}

export interface ClientValues {
  clientId: string;
  secretHash: string | null;
  source: OAuthClientRow["source"];
  name: string;
  redirectUris: string[];
  authMethod: OAuthClientRow["authMethod"];
  metadata: Record<string, unknown>;
}

/** Inserts a client, or (a metadata document fetched again) replaces what the document says. */
export async function saveClient(tx: Tx, values: ClientValues, at: string): Promise<OAuthClientRow> {
  const row = {
    clientId: values.clientId,
    secretHash: values.secretHash,
    source: values.source,
    name: values.name,
    redirectUris: JSON.stringify(values.redirectUris),
    authMethod: values.authMethod,
    metadata: JSON.stringify(values.metadata),
    updatedAt: at,
  };
  const [saved] = await tx
    .insert(oauthClients)
    .values(row)
    .onConflictDoUpdate({ target: oauthClients.clientId, set: row })
    .returning();
  if (!saved) throw new Error("client insert returned no row");
  return saved;
}

export interface NewGrant {
  clientRowId: number;
  clientName: string;
  userId: number;
  workspaceId: number;
  scope: string;
  role: Role;
  resource: string;
  codeHash: string;
  redirectUri: string;
  codeChallenge: string;
  codeExpiresAt: string;
}

/**
 * The consent: a grant, the principal token it acts through (role ceiling = the scope's role; its value is
 * generated and thrown away, so only its OAuth tokens can act as it) and the authorization code.
 */
export async function createGrantWithCode(tx: Tx, g: NewGrant): Promise<number> {
  const [principal] = await tx
    .insert(tokens)
    .values({
      tokenHash: await hashToken(generateToken()),
      name: `OAuth: ${g.clientName}`.slice(0, 100),
      userId: g.userId,
      workspaceId: g.workspaceId,
      roleCeiling: g.role,
      createdByUserId: g.userId,
      expiresAt: null,
    })
    .returning({ id: tokens.id });
  if (!principal) throw new Error("token insert returned no row");
  const [grant] = await tx
    .insert(oauthGrants)
    .values({
      clientRowId: g.clientRowId,
      userId: g.userId,
      workspaceId: g.workspaceId,
      tokenId: principal.id,
      scope: g.scope,
      resource: g.resource,
    })
    .returning({ id: oauthGrants.id });
  if (!grant) throw new Error("grant insert returned no row");
  await tx.insert(oauthTokens).values({
    hash: g.codeHash,
    kind: "code",
    grantId: grant.id,
    redirectUri: g.redirectUri,
    codeChallenge: g.codeChallenge,
    expiresAt: g.codeExpiresAt,
  });
  return grant.id;
}

export interface GrantCredential {
  tokenRowId: number;
  kind: "code" | "access" | "refresh";
  grantId: number;
  clientId: string;
  scope: string;
  resource: string;
  redirectUri: string | null;
  codeChallenge: string | null;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  grantRevokedAt: string | null;
}

/** A code or token of a grant by its hash, with its grant and client. */
export async function findCredential(ex: Executor, hash: string): Promise<GrantCredential | undefined> {
  const rows = await ex
    .select({
      tokenRowId: oauthTokens.id,
      kind: oauthTokens.kind,
      grantId: oauthTokens.grantId,
      clientId: oauthClients.clientId,
      scope: oauthGrants.scope,
      resource: oauthGrants.resource,
      redirectUri: oauthTokens.redirectUri,
      codeChallenge: oauthTokens.codeChallenge,
      expiresAt: oauthTokens.expiresAt,
      usedAt: oauthTokens.usedAt,
      revokedAt: oauthTokens.revokedAt,
      grantRevokedAt: oauthGrants.revokedAt,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientRowId))
    .where(eq(oauthTokens.hash, hash))
    .limit(1);
  return rows[0];
}

/**
 * Marks a code or refresh token used, once: false when it already was (a concurrent or replayed use), so
 * exactly one exchange or rotation wins inside the write transaction.
 */
export async function markUsed(tx: Tx, tokenRowId: number, at: string): Promise<boolean> {
  const rows = await tx
    .update(oauthTokens)
    .set({ usedAt: at })
    .where(and(eq(oauthTokens.id, tokenRowId), isNull(oauthTokens.usedAt)))
    .returning({ id: oauthTokens.id });
  return rows.length === 1;
}

export async function insertGrantTokens(
  tx: Tx,
  grantId: number,
  rows: { hash: string; kind: "access" | "refresh"; expiresAt: string }[],
): Promise<void> {
  await tx.insert(oauthTokens).values(rows.map((r) => ({ ...r, grantId })));
}

/** Revokes one access token (RFC 7009 on an access token). */
export async function revokeCredential(tx: Tx, tokenRowId: number, at: string): Promise<void> {
  await tx
    .update(oauthTokens)
    .set({ revokedAt: at })
    .where(and(eq(oauthTokens.id, tokenRowId), isNull(oauthTokens.revokedAt)));
}

/** Ends a grant: the grant, its principal token and every code and token of the family. */
export async function revokeGrant(tx: Tx, grantId: number, at: string): Promise<void> {
  const rows = await tx
    .update(oauthGrants)
    .set({ revokedAt: at })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
    .returning({ tokenId: oauthGrants.tokenId });
  const tokenId = rows[0]?.tokenId;
  if (tokenId !== undefined) {
    await tx
      .update(tokens)
      .set({ revokedAt: at })
      .where(and(eq(tokens.id, tokenId), isNull(tokens.revokedAt)));
  }
  await tx
    .update(oauthTokens)
    .set({ revokedAt: at })
    .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)));
}

/** Who an access token acts as: its grant's principal token (a TokenPrincipal) plus the token's own facts. */
export interface AccessPrincipal extends TokenPrincipal {
  resource: string;
  scope: string;
  accessExpiresAt: string;
  accessRevokedAt: string | null;
  grantRevokedAt: string | null;
}

export async function findAccessPrincipal(ex: Executor, hash: string): Promise<AccessPrincipal | undefined> {
  const rows = await ex
    .select({
      ...TOKEN_PRINCIPAL_COLUMNS,
      resource: oauthGrants.resource,
      scope: oauthGrants.scope,
      accessExpiresAt: oauthTokens.expiresAt,
      accessRevokedAt: oauthTokens.revokedAt,
      grantRevokedAt: oauthGrants.revokedAt,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(tokens, eq(tokens.id, oauthGrants.tokenId))
    .innerJoin(users, eq(users.id, tokens.userId))
    .innerJoin(workspaces, eq(workspaces.id, tokens.workspaceId))
    .leftJoin(memberships, TOKEN_MEMBERSHIP)
    .where(and(eq(oauthTokens.hash, hash), eq(oauthTokens.kind, "access")))
    .limit(1);
  return rows[0];
}

export interface GrantListing {
  id: number;
  client_id: string;
  client_name: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
  last_token_at: string | null;
}

/** The member's active authorizations in a workspace that got at least one token, newest first. */
export async function listGrants(ex: Executor, workspaceId: number, userId: number): Promise<GrantListing[]> {
  const issued = ex
    .select({ one: sql`1` })
    .from(oauthTokens)
    .where(and(eq(oauthTokens.grantId, oauthGrants.id), eq(oauthTokens.kind, "access")));
  return ex
    .select({
      id: oauthGrants.id,
      client_id: oauthClients.clientId,
      client_name: oauthClients.name,
      scope: oauthGrants.scope,
      created_at: oauthGrants.createdAt,
      last_used_at: tokens.lastUsedAt,
      last_token_at: max(oauthTokens.createdAt),
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientRowId))
    .innerJoin(tokens, eq(tokens.id, oauthGrants.tokenId))
    .leftJoin(oauthTokens, eq(oauthTokens.grantId, oauthGrants.id))
    .where(
      and(
        eq(oauthGrants.workspaceId, workspaceId),
        eq(oauthGrants.userId, userId),
        isNull(oauthGrants.revokedAt),
        // revoking the grant's principal under My tokens ends the grant as well
        isNull(tokens.revokedAt),
        exists(issued),
      ),
    )
    .groupBy(oauthGrants.id)
    .orderBy(desc(oauthGrants.id));
}

/** A grant of this member in this workspace (another's answers undefined: not found). */
export async function findOwnGrant(
  ex: Executor,
  grantId: number,
  workspaceId: number,
  userId: number,
): Promise<{ id: number; revokedAt: string | null } | undefined> {
  const rows = await ex
    .select({ id: oauthGrants.id, revokedAt: oauthGrants.revokedAt })
    .from(oauthGrants)
    .where(
      and(
        eq(oauthGrants.id, grantId),
        eq(oauthGrants.workspaceId, workspaceId),
        eq(oauthGrants.userId, userId),
      ),
    )
    .limit(1);
  return rows[0];
}
