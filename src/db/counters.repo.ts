/**
 * Reference ids (EP-001, US-001, REQ-001, AC-001) are stored, never derived (DESIGN): one counter per
 * workspace and prefix that only grows, so an id is never handed out twice nor reused after a delete.
 */
import { sql } from "drizzle-orm";
import { formatReference, type Prefix } from "../core/references.js";
import type { Tx } from "./database.js";
import { referenceCounters } from "./schema.js";

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
