/**
 * Reference ids (EP-001, US-001, REQ-001, AC-001) are stored, never derived (DESIGN): one counter per
 * workspace and prefix that only grows, so an id is never handed out twice nor reused after a delete.
 */
import { and, eq, sql } from "drizzle-orm";
import { formatReference, normalizeReference, type Prefix } from "../core/references.js";
import type { Tx } from "./database.js";
import { referenceCounters, revisions } from "./schema.js";

/** EP, US, REQ, AC (src/core/references.ts). */
export type ReferencePrefix = Prefix;

/**
 * Allocates the next reference id for `prefix` in `workspaceId`. Must run inside the caller's write
 * transaction (`database.write`), so the id and the row that uses it commit together: a single upsert with
 * RETURNING increments and reads in one statement.
 */
export async function nextReference(tx: Tx, workspaceId: number, prefix: ReferencePrefix): Promise<string> {
  const rows = await tx
    .insert(referenceCounters)
    .values({ workspaceId, prefix, lastValue: 1 })
    .onConflictDoUpdate({
      target: [referenceCounters.workspaceId, referenceCounters.prefix],
      set: { lastValue: sql`${referenceCounters.lastValue} + 1` },
    })
    .returning({ lastValue: referenceCounters.lastValue });
  const value = rows[0]?.lastValue;
  if (value === undefined) throw new Error("reference counter upsert returned no row");
  return formatReference(prefix, value);
}

/**
 * Claims `referenceId` for a new entity (interchange import keeps the ids of the file): true when the id
 * has this prefix and never existed in the workspace (no revision ever named it: numbers are never
 * reused), and raises the counter to it so later ids come after it. False: allocate the next one instead.
 */
export async function claimReference(
  tx: Tx,
  workspaceId: number,
  prefix: ReferencePrefix,
  referenceId: string,
): Promise<boolean> {
  const normalized = normalizeReference(prefix, referenceId);
  if (normalized !== referenceId) return false;
  const used = await tx
    .select({ id: revisions.id })
    .from(revisions)
    .where(and(eq(revisions.workspaceId, workspaceId), eq(revisions.referenceId, referenceId)))
    .limit(1);
  if (used.length > 0) return false;
  const n = Number.parseInt(referenceId.slice(prefix.length + 1), 10);
  await tx
    .insert(referenceCounters)
    .values({ workspaceId, prefix, lastValue: n })
    .onConflictDoUpdate({
      target: [referenceCounters.workspaceId, referenceCounters.prefix],
      set: { lastValue: sql`max(${referenceCounters.lastValue}, ${n})` },
    });
  return true;
}
