/**
 * First start on an empty database: workspace `default`, the instance owner `admin` (role admin there) and
 * one token for them. Runs in one write transaction and only when there are no users, so a restart, or two
 * processes starting at once, never bootstrap twice.
 */
import { DomainError } from "../core/errors.js";
import { isWellFormedToken } from "../core/tokens.js";
import { recordAudit } from "./audit.repo.js";
import type { Database } from "./database.js";
import { setMembership } from "./memberships.repo.js";
import { insertToken } from "./tokens.repo.js";
import { countUsers, createUser } from "./users.repo.js";
import { createWorkspace } from "./workspaces.repo.js";

export const BOOTSTRAP_WORKSPACE = "default";
export const BOOTSTRAP_USERNAME = "admin";

export type BootstrapResult =
  | { created: false }
  | { created: true; workspace: string; username: string; tokenId: number; token: string; fromEnv: boolean };

/** `token`: a caller-chosen token (REQLIX_BOOTSTRAP_TOKEN) to register instead of generating one. */
export async function bootstrap(
  database: Database,
  options: { token?: string; now?: Date } = {},
): Promise<BootstrapResult> {
  if (options.token !== undefined && !isWellFormedToken(options.token)) {
    throw DomainError.invalid(
      "REQLIX_BOOTSTRAP_TOKEN is not a well-formed token: it must be rqx_ followed by at least 32 letters or digits.",
      [{ field: "REQLIX_BOOTSTRAP_TOKEN", message: "expected rqx_ + ≥ 32 of [A-Za-z0-9]" }],
    );
  }
  return database.write(async (tx): Promise<BootstrapResult> => {
    if ((await countUsers(tx)) > 0) return { created: false };
    const ws = await createWorkspace(tx, { slug: BOOTSTRAP_WORKSPACE, name: "Default workspace" });
    const owner = await createUser(tx, { username: BOOTSTRAP_USERNAME, isOwner: true });
    await setMembership(tx, ws.id, owner.id, "admin");
    const created = await insertToken(tx, {
      userId: owner.id,
      workspaceId: ws.id,
      name: "bootstrap",
      expiresAt: null,
      ...(options.token ? { token: options.token } : {}),
    });
    await recordAudit(tx, {
      workspaceId: ws.id,
      userId: owner.id,
      tokenId: created.id,
      channel: "cli",
      method: "bootstrap",
      target: BOOTSTRAP_USERNAME,
      outcome: "ok",
      ...(options.now ? { createdAt: options.now.toISOString() } : {}),
    });
    return {
      created: true,
      workspace: ws.slug,
      username: owner.username,
      tokenId: created.id,
      token: created.token,
      fromEnv: options.token !== undefined,
    };
  });
}
