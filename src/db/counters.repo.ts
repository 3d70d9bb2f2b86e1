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

/**
 * `claimReference` and `nextReference` for many creates in one transaction (interchange import): the
 * counters and the reference ids the workspace's history ever named are read once, ids are handed out in
 * memory by the same rules, and `save` raises each counter once. Nothing else may allocate ids of the
 * workspace between the first `allocate` and `save` (the caller holds the write transaction).
 */
export async function referenceAllocator(tx: Tx, workspaceId: number) {
  const counterRows = await tx
    .select({ prefix: referenceCounters.prefix, lastValue: referenceCounters.lastValue })
    .from(referenceCounters)
    .where(eq(referenceCounters.workspaceId, workspaceId));
  const counters = new Map<string, number>(counterRows.map((r) => [r.prefix, r.lastValue]));
  const usedRows = await tx
    .selectDistinct({ referenceId: revisions.referenceId })
    .from(revisions)
    .where(eq(revisions.workspaceId, workspaceId));
  const used = new Set(usedRows.map((r) => r.referenceId));
  const touched = new Set<ReferencePrefix>();
  return {
    /** `wanted` when it is this prefix's canonical form and never used here, else the next id. */
    allocate(prefix: ReferencePrefix, wanted: string | undefined): string {
      const last = counters.get(prefix) ?? 0;
      let id: string;
      if (wanted !== undefined && normalizeReference(prefix, wanted) === wanted && !used.has(wanted)) {
        id = wanted;
        counters.set(prefix, Math.max(last, Number.parseInt(wanted.slice(prefix.length + 1), 10)));
      } else {
        id = formatReference(prefix, last + 1);
        counters.set(prefix, last + 1);
      }
      used.add(id);
      touched.add(prefix);
      return id;
    },
    async save(): Promise<void> {
      for (const prefix of touched) {
        const n = counters.get(prefix) ?? 0;
        await tx
          .insert(referenceCounters)
          .values({ workspaceId, prefix, lastValue: n })
          .onConflictDoUpdate({
            target: [referenceCounters.workspaceId, referenceCounters.prefix],
            set: { lastValue: sql`max(${referenceCounters.lastValue}, ${n})` },
          });
      }
    },
  };
}

export type ReferenceAllocator = Awaited<ReturnType<typeof referenceAllocator>>;
