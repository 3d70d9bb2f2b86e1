/**
 * Trace snapshots: storing a push (one write transaction) and resolving cited ids in one workspace. An id
 * is resolved only among the pushing workspace's rows; an id it does not have is stored as an orphan
 * (entity_id null), whatever another workspace holds.
 */
import { and, desc, eq, inArray, notInArray, sql } from "drizzle-orm";
import type { EntityKind } from "../core/references.js";
import { entityKindOf, type TraceSnapshot } from "../core/trace-snapshot.js";
import type { Executor, Tx } from "./database.js";
import {
  acceptanceCriteria,
  epics,
  requirements,
  traceCitations,
  traceCommits,
  traceSnapshots,
  userStories,
} from "./schema.js";

/** Snapshots kept per workspace and repository; a push beyond this prunes the oldest. */
export const SNAPSHOTS_KEPT = 50;
/** Ids per `IN (…)` list: well under SQLite's variable limit. */
const IN_CHUNK = 500;
/** Rows per bulk INSERT … SELECT FROM json_each(?): one bound parameter whatever the row count. */
const INSERT_CHUNK = 10_000;

export interface ResolvedEntity {
  kind: EntityKind;
  row_id: number;
  reference_id: string;
  title: string;
  /** Null for acceptance criteria, which have no status. */
  status: string | null;
  revision: number;
}

const ENTITY_TABLES = {
  epic: epics,
  user_story: userStories,
  requirement: requirements,
  acceptance_criterion: acceptanceCriteria,
} as const;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The entities of `workspaceId` named by `referenceIds` (normalized hosted ids), by reference id. */
export async function resolveReferences(
  ex: Executor,
  workspaceId: number,
  referenceIds: Iterable<string>,
): Promise<Map<string, ResolvedEntity>> {
  const byKind = new Map<EntityKind, string[]>();
  for (const id of new Set(referenceIds)) {
    const kind = entityKindOf(id);
    byKind.set(kind, [...(byKind.get(kind) ?? []), id]);
  }
  const found = new Map<string, ResolvedEntity>();
  for (const [kind, ids] of byKind) {
    const table = ENTITY_TABLES[kind];
    for (const part of chunks(ids, IN_CHUNK)) {
      const rows = await ex
        .select({
          row_id: table.id,
          reference_id: table.referenceId,
          title: table.title,
          status: "status" in table ? table.status : sql<null>`NULL`,
          revision: table.revision,
        })
        .from(table)
        .where(and(eq(table.workspaceId, workspaceId), inArray(table.referenceId, part)));
      for (const r of rows) found.set(r.reference_id, { kind, ...r, status: r.status ?? null });
    }
  }
  return found;
}

export interface Pusher {
  userId: number;
  tokenId: number;
  now: string;
}

export interface StoredSnapshot {
  snapshot_id: number;
  repository: string;
  commit: string;
  /** False when this repository and commit were already stored (then replaced, or identical). */
  created: boolean;
  /** True when an earlier push of the same commit with other content was replaced. */
  replaced: boolean;
  citations: number;
  /** Cited ids (citations and commit messages) this workspace does not have, sorted. */
  orphans: string[];
}

/**
 * Stores a validated snapshot in one transaction: inserted, replaced in place (same repository and commit,
 * other content: same id, so it keeps its place in the history) or left alone (same content). Then prunes
 * the repository's history to SNAPSHOTS_KEPT.
 */
export async function storeTraceSnapshot(
  tx: Tx,
  workspaceId: number,
  snapshot: TraceSnapshot,
  contentHash: string,
  pusher: Pusher,
): Promise<StoredSnapshot> {
  const cited = [...snapshot.citations.map((c) => c.id), ...snapshot.commits.flatMap((c) => c.ids)];
  const resolved = await resolveReferences(tx, workspaceId, cited);
  const orphans = [...new Set(cited.filter((id) => !resolved.has(id)))].sort(compareIds);
  const citationOrphans = snapshot.citations.filter((c) => !resolved.has(c.id)).length;
  const answer = (snapshotId: number, created: boolean, replaced: boolean): StoredSnapshot => ({
    snapshot_id: snapshotId,
    repository: snapshot.repository,
    commit: snapshot.commit,
    created,
    replaced,
    citations: snapshot.citations.length,
    orphans,
  });

  const [existing] = await tx
    .select({ id: traceSnapshots.id, hash: traceSnapshots.contentHash })
    .from(traceSnapshots)
    .where(
      and(
        eq(traceSnapshots.workspaceId, workspaceId),
        eq(traceSnapshots.repository, snapshot.repository),
        eq(traceSnapshots.commitSha, snapshot.commit),
      ),
    );
  if (existing && existing.hash === contentHash) return answer(existing.id, false, false);

  const fields = {
    branch: snapshot.branch,
    scannedAt: snapshot.scanned_at,
    contentHash,
    citationCount: snapshot.citations.length,
    orphanCount: citationOrphans,
    createdByUserId: pusher.userId,
    createdByTokenId: pusher.tokenId,
    updatedAt: pusher.now,
  };
  let snapshotId: number;
  if (existing) {
    snapshotId = existing.id;
    await tx.delete(traceCitations).where(eq(traceCitations.snapshotId, snapshotId));
    await tx.delete(traceCommits).where(eq(traceCommits.snapshotId, snapshotId));
    await tx.update(traceSnapshots).set(fields).where(eq(traceSnapshots.id, snapshotId));
  } else {
    const [row] = await tx
      .insert(traceSnapshots)
      .values({
        workspaceId,
        repository: snapshot.repository,
        commitSha: snapshot.commit,
        createdAt: pusher.now,
        ...fields,
      })
      .returning({ id: traceSnapshots.id });
    snapshotId = (row as { id: number }).id;
  }

  await insertCitations(tx, workspaceId, snapshotId, snapshot, resolved);
  for (const part of chunks(snapshot.commits, 1000)) {
    await tx.insert(traceCommits).values(
      part.map((c) => ({
        snapshotId,
        workspaceId,
        sha: c.sha,
        ids: [...new Set(c.ids)],
        subject: c.subject,
      })),
    );
  }
  if (!existing) await pruneHistory(tx, workspaceId, snapshot.repository);
  return answer(snapshotId, !existing, existing !== undefined);
}

/**
 * Bulk insert through `json_each`: each chunk is one statement with one JSON parameter, so 100,000 rows
 * cost a few statements instead of 100,000 round trips, and no statement nears the variable limit.
 */
async function insertCitations(
  tx: Tx,
  workspaceId: number,
  snapshotId: number,
  snapshot: TraceSnapshot,
  resolved: Map<string, ResolvedEntity>,
): Promise<void> {
  for (const part of chunks(snapshot.citations, INSERT_CHUNK)) {
    const rows = part.map((c) => [
      c.id,
      entityKindOf(c.id),
      resolved.get(c.id)?.row_id ?? null,
      c.revision,
      c.file,
      c.line,
      c.column,
      c.kind,
      c.test_name,
      c.snippet,
    ]);
    await tx.run(sql`
      INSERT INTO trace_citations
        (snapshot_id, workspace_id, reference_id, entity_kind, entity_id, revision, file, line, "column",
         kind, test_name, snippet)
      SELECT ${snapshotId}, ${workspaceId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
        value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
      FROM json_each(${JSON.stringify(rows)})`);
  }
}

/** Keeps the newest SNAPSHOTS_KEPT snapshots of a repository; their citations and commits go with them. */
async function pruneHistory(tx: Tx, workspaceId: number, repository: string): Promise<void> {
  const inRepository = and(
    eq(traceSnapshots.workspaceId, workspaceId),
    eq(traceSnapshots.repository, repository),
  );
  const kept = tx
    .select({ id: traceSnapshots.id })
    .from(traceSnapshots)
    .where(inRepository)
    .orderBy(desc(traceSnapshots.id))
    .limit(SNAPSHOTS_KEPT);
  const stale = await tx
    .select({ id: traceSnapshots.id })
    .from(traceSnapshots)
    .where(and(inRepository, notInArray(traceSnapshots.id, kept)));
  if (stale.length === 0) return;
  const ids = stale.map((s) => s.id);
  // Explicit deletes: the cascade needs PRAGMA foreign_keys, which a remote libSQL may not have on.
  await tx.delete(traceCitations).where(inArray(traceCitations.snapshotId, ids));
  await tx.delete(traceCommits).where(inArray(traceCommits.snapshotId, ids));
  await tx.delete(traceSnapshots).where(inArray(traceSnapshots.id, ids));
}

/** EP before US before REQ before AC would be arbitrary: ids sort by prefix, then by number. */
export function compareIds(a: string, b: string): number {
  const [pa, na] = a.split("-") as [string, string];
  const [pb, nb] = b.split("-") as [string, string];
  return pa === pb ? Number(na) - Number(nb) : pa < pb ? -1 : 1;
}
