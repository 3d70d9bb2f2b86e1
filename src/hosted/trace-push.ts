/**
 * A trace push (`POST /api/v1/traces`, sent by `reqlix-mcp trace`): validated whole before anything is
 * written, then stored with its audit row in one write transaction, so a refused or failed push leaves
 * nothing behind. Editors and admins may push; viewers may not.
 */

import type { AuthInfo } from "../core/auth-info.js";
import { DomainError } from "../core/errors.js";
import { roleAtLeast } from "../core/roles.js";
import { parseTraceSnapshot, snapshotContentHash } from "../core/trace-snapshot.js";
import { recordAudit } from "../db/audit.repo.js";
import type { Database } from "../db/database.js";
import { type StoredSnapshot, storeTraceSnapshot } from "../db/traces.repo.js";

export interface PushContext {
  database: Database;
  auth: AuthInfo;
  now: Date;
  requestId: string;
}

/** `readBody` is called after the role check, so a viewer's push is refused before its body is read. */
export async function pushTraceSnapshot(
  ctx: PushContext,
  readBody: () => Promise<unknown>,
): Promise<StoredSnapshot> {
  const { auth } = ctx;
  if (!roleAtLeast(auth.role, "editor")) {
    throw DomainError.forbidden(
      `Forbidden: pushing traces needs the editor role; your role in workspace "${auth.workspaceSlug}" is ${auth.role}. Ask a workspace admin for an editor token.`,
    );
  }
  const snapshot = parseTraceSnapshot(await readBody());
  const hash = await snapshotContentHash(snapshot);
  const now = ctx.now.toISOString();
  return ctx.database.write(async (tx) => {
    const stored = await storeTraceSnapshot(tx, auth.workspaceId, snapshot, hash, {
      userId: auth.userId,
      tokenId: auth.tokenId,
      now,
    });
    await recordAudit(tx, {
      workspaceId: auth.workspaceId,
      userId: auth.userId,
      tokenId: auth.tokenId,
      channel: "traces",
      method: "traces.push",
      target: `${snapshot.repository}@${snapshot.commit}`,
      outcome: "ok",
      requestId: ctx.requestId,
      createdAt: now,
    });
    return stored;
  });
}
