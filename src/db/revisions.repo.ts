/**
 * History: one immutable revision per write of an epic, user story, requirement, acceptance criterion or
 * relationship, appended in the same transaction as the write (so a write and its revision commit together
 * or not at all). Revisions are only ever inserted; nothing here updates or deletes one.
 *
 * Every write path of every entity calls `recordRevision` (creates, updates and moves through
 * `recordWrite`, deletes through `recordDeletion`) after its own statements, with the entity as the tools
 * show it: the snapshot names parents by reference id.
 */
import { and, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { type Actor, decodeCursor, iso, isPositiveInt, type Page, pageOf } from "./entity-support.js";
import { jsonRowsSelect } from "./json-rows.js";
import { type ENTITY_KINDS, type REVISION_OPS, revisions, users } from "./schema.js";

export type RevisionKind = (typeof ENTITY_KINDS)[number];
export type RevisionOp = (typeof REVISION_OPS)[number];

export interface RevisionEntry {
  kind: RevisionKind;
  /** The entity's row id (kept after a delete). */
  entityId: number;
  /** Its reference id; a relationship's is `SOURCE type TARGET`. */
  referenceId: string;
  revision: number;
  op: RevisionOp;
  /** The entity as the tools show it (parents by reference id). */
  snapshot: object;
  /** A relationship's ends, so its revisions appear in both requirements' histories. */
  ends?: { source: string; target: string };
}

let recording = true;

/**
 * Turns history recording off or on for the whole process. Only the bench calls it, to measure what history
 * costs a write; the server never turns it off.
 */
export function setHistoryRecording(on: boolean): void {
  recording = on;
}

/** The row a revision is stored as. */
function revisionValues(workspaceId: number, entry: RevisionEntry, actor: Actor) {
  const change = actor.change ?? {};
  return {
    workspaceId,
    entityKind: entry.kind,
    entityId: entry.entityId,
    referenceId: entry.referenceId,
    revision: entry.revision,
    op: entry.op,
    snapshot: JSON.stringify(entry.snapshot),
    sourceRef: entry.ends?.source ?? null,
    targetRef: entry.ends?.target ?? null,
    userId: actor.userId,
    tokenId: change.tokenId ?? null,
    requestId: change.requestId ?? null,
    tool: change.tool ?? null,
    changeNote: change.changeNote ?? null,
    source: change.source ?? null,
    createdAt: iso(actor.now),
  };
}

/** Appends one revision inside the write's transaction `tx`. */
export async function recordRevision(
  tx: Tx,
  workspaceId: number,
  entry: RevisionEntry,
  actor: Actor,
): Promise<void> {
  if (!recording) return;
  const batch = actor.revisionBatch;
  if (batch) {
    batch.rows.push(revisionValues(workspaceId, entry, actor));
    if (batch.rows.length >= BATCH) await flushRevisions(tx, batch);
    return;
  }
  await tx.insert(revisions).values(revisionValues(workspaceId, entry, actor));
}

/**
 * Revisions held back and written `BATCH` rows per INSERT (an import of thousands of items): the writer sets
 * `actor.revisionBatch` and calls `flushRevisions` before anything that reads revisions and before commit.
 */
export class RevisionBatch {
  rows: ReturnType<typeof revisionValues>[] = [];
}

/**
 * Writes and empties `batch`, in the caller's transaction: `BATCH` rows per statement, passed as one JSON
 * parameter through `json_each` (`json-rows.ts`: what every row shares, the actor and time, bound once), so
 * the SQL is neither built per row by drizzle nor bound value by value.
 */
export async function flushRevisions(tx: Tx, batch: RevisionBatch): Promise<void> {
  while (batch.rows.length > 0) {
    const rows = batch.rows
      .splice(0, BATCH)
      .map((r) => [
        r.workspaceId,
        r.entityKind,
        r.entityId,
        r.referenceId,
        r.revision,
        r.op,
        r.snapshot,
        r.sourceRef,
        r.targetRef,
        r.userId,
        r.tokenId,
        r.requestId,
        r.tool,
        r.changeNote,
        r.source,
        r.createdAt,
      ]);
    await tx.run(sql`INSERT INTO revisions (workspace_id, entity_kind, entity_id, reference_id, revision, op,
        snapshot, source_ref, target_ref, user_id, token_id, request_id, tool, change_note, source, created_at)
      ${jsonRowsSelect(rows)}`);
  }
}

/** Revisions per INSERT. */
const BATCH = 500;

/** Appends many revisions of one write (a cascading delete) with one INSERT per `BATCH` rows. */
async function recordRevisions(
  tx: Tx,
  workspaceId: number,
  entries: RevisionEntry[],
  actor: Actor,
): Promise<void> {
  if (!recording) return;
  for (let i = 0; i < entries.length; i += BATCH) {
    const values = entries.slice(i, i + BATCH).map((e) => revisionValues(workspaceId, e, actor));
    await tx.insert(revisions).values(values);
  }
}

/** A row as the repositories hold it after a write: its row id and the entity as shown, with its revision. */
interface WrittenRow {
  id: number;
  reference_id: string;
  revision: number;
}

/**
 * Records a create, update or move of an epic, story, requirement or criterion from the row read back
 * after the write, and returns the entity as shown (`show` drops the repository's internal columns).
 */
export async function recordWrite<R extends WrittenRow, T extends object>(
  tx: Tx,
  workspaceId: number,
  kind: Exclude<RevisionKind, "relationship">,
  op: Exclude<RevisionOp, "delete">,
  row: R,
  show: (row: R) => T,
  actor: Actor,
): Promise<T> {
  const entity = show(row);
  await recordRevision(
    tx,
    workspaceId,
    { kind, entityId: row.id, referenceId: row.reference_id, revision: row.revision, op, snapshot: entity },
    actor,
  );
  return entity;
}

/**
 * The entry point for deletes: call it in the delete's transaction with the row as it was just before the
 * delete. The revision takes the next number and keeps the last state as its snapshot, so the deleted
 * entity's history (and any baseline that froze it) stays readable by its reference id.
 */
export function recordDeletion<R extends WrittenRow, T extends object>(
  tx: Tx,
  workspaceId: number,
  kind: RevisionKind,
  row: R,
  show: (row: R) => T,
  actor: Actor,
  ends?: { source: string; target: string },
): Promise<void> {
  return recordDeletions(tx, workspaceId, kind, [row], show, actor, ends ? () => ends : undefined);
}

/** `recordDeletion` for every row a cascading delete removes, batched (a story may hold thousands). */
export function recordDeletions<R extends WrittenRow, T extends object>(
  tx: Tx,
  workspaceId: number,
  kind: RevisionKind,
  rows: R[],
  show: (row: R) => T,
  actor: Actor,
  endsOf?: (row: R) => { source: string; target: string },
): Promise<void> {
  const entries = rows.map(
    (row): RevisionEntry => ({
      kind,
      entityId: row.id,
      referenceId: row.reference_id,
      revision: row.revision + 1,
      op: "delete",
      snapshot: show(row),
      ...(endsOf ? { ends: endsOf(row) } : {}),
    }),
  );
  return recordRevisions(tx, workspaceId, entries, actor);
}

// ----- reads --------------------------------------------------------------------------------------------

export interface Revision {
  entity_kind: RevisionKind;
  reference_id: string;
  revision: number;
  op: RevisionOp;
  snapshot: Record<string, unknown>;
  username: string | null;
  token_id: number | null;
  request_id: string | null;
  tool: string | null;
  change_note: string | null;
  source: string | null;
  created_at: string;
}

const columns = {
  id: revisions.id,
  entity_kind: revisions.entityKind,
  reference_id: revisions.referenceId,
  revision: revisions.revision,
  op: revisions.op,
  snapshot: revisions.snapshot,
  username: users.username,
  token_id: revisions.tokenId,
  request_id: revisions.requestId,
  tool: revisions.tool,
  change_note: revisions.changeNote,
  source: revisions.source,
  created_at: revisions.createdAt,
};

type Row = Omit<Revision, "snapshot"> & { id: number; snapshot: string };

function select(ex: Executor) {
  return ex.select(columns).from(revisions).leftJoin(users, eq(users.id, revisions.userId));
}

export function toRevision({ id: _id, snapshot, ...rest }: Row): Revision {
  return { ...rest, snapshot: JSON.parse(snapshot) as Record<string, unknown> };
}

/** The entity's own revisions (not its relationships'), by reference id, also after a delete. */
function ownRevisions(workspaceId: number, referenceId: string): SQL | undefined {
  return and(eq(revisions.workspaceId, workspaceId), eq(revisions.referenceId, referenceId));
}

/**
 * The history of an entity, newest first: its own revisions and, for a requirement, those of the
 * relationships it is an end of. Not found when the id never had a revision in this workspace.
 */
export async function historyOf(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
  page: { limit: number; cursor?: string },
): Promise<Page<Revision>> {
  const tag = `history:${referenceId}`;
  const before = decodeCursor(tag, page.cursor, isPositiveInt);
  // Three index lookups (own, as source, as target) spelled out as a UNION: written as one OR, SQLite
  // (without ANALYZE statistics) walks the whole workspace's revisions through the workspace prefix and
  // sorts them — 127 ms at 100,000 revisions against 0.1 ms (bench/web-pages.ts).
  const ids = sql`SELECT id FROM revisions WHERE workspace_id = ${workspaceId} AND reference_id = ${referenceId}
    UNION ALL SELECT id FROM revisions WHERE workspace_id = ${workspaceId} AND source_ref = ${referenceId}
    UNION ALL SELECT id FROM revisions WHERE workspace_id = ${workspaceId} AND target_ref = ${referenceId}`;
  const rows = await select(ex)
    .where(and(sql`${revisions.id} IN (${ids})`, before !== undefined ? lt(revisions.id, before) : undefined))
    .orderBy(desc(revisions.id))
    .limit(page.limit + 1);
  if (rows.length === 0 && before === undefined) throw noHistory(referenceId);
  return pageOf(rows, page.limit, toRevision, (r) => r.id, tag);
}

function noHistory(referenceId: string): DomainError {
  return DomainError.notFound(
    `History not found: ${referenceId}. No epic, user story, requirement or acceptance criterion of this workspace has this id. Call search_global to find the right id.`,
    referenceId,
  );
}

/** One revision of an entity; not found names the revisions that exist. */
export async function revisionOf(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
  revision: number,
): Promise<Revision> {
  const rows = await select(ex)
    .where(and(ownRevisions(workspaceId, referenceId), eq(revisions.revision, revision)))
    .limit(1);
  if (rows[0]) return toRevision(rows[0]);
  const latest = await latestRevisionOf(ex, workspaceId, referenceId);
  throw DomainError.notFound(
    `Revision not found: ${referenceId} has no revision ${revision}; its revisions are 1 to ${latest.revision}. Call get_history to list them.`,
    referenceId,
  );
}

/** The newest revision of an entity (its current state, or its deletion). */
export async function latestRevisionOf(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<Revision> {
  const rows = await select(ex)
    .where(ownRevisions(workspaceId, referenceId))
    .orderBy(desc(revisions.revision))
    .limit(1);
  if (!rows[0]) throw noHistory(referenceId);
  return toRevision(rows[0]);
}

/** The snapshots of entity revisions by row id and number (baselines reference revisions this way). */
export async function snapshotsOf(
  ex: Executor,
  workspaceId: number,
  keys: { kind: RevisionKind; entityId: number; revision: number }[],
): Promise<Map<string, Revision>> {
  const out = new Map<string, Revision>();
  // One point lookup each on the unique (workspace, kind, entity, revision) index: a page is at most 100.
  for (const k of keys) {
    const rows = await select(ex)
      .where(
        and(
          eq(revisions.workspaceId, workspaceId),
          eq(revisions.entityKind, k.kind),
          eq(revisions.entityId, k.entityId),
          eq(revisions.revision, k.revision),
        ),
      )
      .limit(1);
    if (rows[0]) out.set(revisionKey(k.kind, k.entityId, k.revision), toRevision(rows[0]));
  }
  return out;
}

export function revisionKey(kind: RevisionKind, entityId: number, revision: number): string {
  return `${kind}:${entityId}:${revision}`;
}

/** Who made the latest revision of an entity (its last editor), or undefined. */
export async function lastEditorOf(
  ex: Executor,
  workspaceId: number,
  kind: RevisionKind,
  entityId: number,
): Promise<number | undefined> {
  const rows = await ex
    .select({ userId: revisions.userId })
    .from(revisions)
    .where(
      and(
        eq(revisions.workspaceId, workspaceId),
        eq(revisions.entityKind, kind),
        eq(revisions.entityId, entityId),
      ),
    )
    .orderBy(desc(revisions.revision))
    .limit(1);
  return rows[0]?.userId ?? undefined;
}
