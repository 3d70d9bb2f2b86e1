/**
 * Baselines (change control item 2): a named, immutable set of references to the current revision of every
 * entity in scope (the workspace, or one epic's tree). A baseline copies no text: its content is the
 * revisions it names, and revisions never change, so neither does the baseline.
 */
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import { DomainError } from "../core/errors.js";
import { type FieldChange, fieldChanges } from "../core/field-diff.js";
import type { Executor, Tx } from "./database.js";
import { type Actor, decodeCursor, encodeCursor, iso, type Page } from "./entity-support.js";
import { requireEpicRow } from "./epics.repo.js";
import { type RevisionKind, revisionKey, snapshotsOf } from "./revisions.repo.js";
import { baselines, users } from "./schema.js";

export interface Baseline {
  name: string;
  description: string;
  /** The epic it is scoped to; null = the whole workspace. */
  epic_id: string | null;
  creator_username: string | null;
  created_at: string;
  entry_count: number;
}

const columns = {
  id: baselines.id,
  epic_row_id: baselines.epicId,
  name: baselines.name,
  description: baselines.description,
  epic_id: baselines.epicReferenceId,
  creator_username: users.username,
  created_at: baselines.createdAt,
  entry_count: baselines.entryCount,
};

type Row = Baseline & { id: number; epic_row_id: number | null };

function toBaseline({ id: _id, epic_row_id: _epic, ...b }: Row): Baseline {
  return b;
}

function select(ex: Executor) {
  return ex.select(columns).from(baselines).leftJoin(users, eq(users.id, baselines.creatorId));
}

async function requireBaselineRow(ex: Executor, workspaceId: number, name: string): Promise<Row> {
  const rows = await select(ex)
    .where(and(eq(baselines.workspaceId, workspaceId), eq(baselines.name, name)))
    .limit(1);
  if (rows[0]) return rows[0];
  throw DomainError.notFound(
    `Baseline not found: "${name}". Call list_baselines to see this workspace's baselines (names are case-sensitive).`,
    name,
  );
}

/**
 * The (kind, entity id, revision) of every entity in scope now, as one SELECT. The kind order here is the
 * order baselines list and diff entities in.
 */
function currentScope(workspaceId: number, epicRowId: number | null): SQL {
  const stories =
    epicRowId === null
      ? sql`SELECT id FROM user_stories WHERE workspace_id = ${workspaceId}`
      : sql`SELECT id FROM user_stories WHERE epic_id = ${epicRowId}`;
  if (epicRowId === null) {
    return sql`SELECT 'epic' AS kind, id AS entity_id, revision FROM epics WHERE workspace_id = ${workspaceId}
      UNION ALL SELECT 'user_story', id, revision FROM user_stories WHERE workspace_id = ${workspaceId}
      UNION ALL SELECT 'requirement', id, revision FROM requirements WHERE workspace_id = ${workspaceId}
      UNION ALL SELECT 'acceptance_criterion', id, revision FROM acceptance_criteria WHERE workspace_id = ${workspaceId}
      UNION ALL SELECT 'relationship', id, revision FROM relationships WHERE workspace_id = ${workspaceId}`;
  }
  // An epic's tree; a relationship belongs to the scope of its source requirement.
  return sql`SELECT 'epic' AS kind, id AS entity_id, revision FROM epics WHERE id = ${epicRowId}
    UNION ALL SELECT 'user_story', id, revision FROM user_stories WHERE epic_id = ${epicRowId}
    UNION ALL SELECT 'requirement', id, revision FROM requirements WHERE user_story_id IN (${stories})
    UNION ALL SELECT 'acceptance_criterion', id, revision FROM acceptance_criteria WHERE user_story_id IN (${stories})
    UNION ALL SELECT 'relationship', id, revision FROM relationships WHERE source_requirement_id IN
      (SELECT id FROM requirements WHERE user_story_id IN (${stories}))`;
}

const KIND_ORDER: RevisionKind[] = [
  "epic",
  "user_story",
  "requirement",
  "acceptance_criterion",
  "relationship",
];

const KIND_TABLES = {
  epic: sql.raw("epics"),
  user_story: sql.raw("user_stories"),
  requirement: sql.raw("requirements"),
  acceptance_criterion: sql.raw("acceptance_criteria"),
  relationship: sql.raw("relationships"),
} as const;

/** Whether row `c` of `kind`'s table is in scope now (the workspace, or the epic's tree). */
function inScope(kind: RevisionKind, workspaceId: number, epicRowId: number | null): SQL {
  if (epicRowId === null) return sql`c.workspace_id = ${workspaceId}`;
  const stories = sql`SELECT id FROM user_stories WHERE epic_id = ${epicRowId}`;
  switch (kind) {
    case "epic":
      return sql`c.id = ${epicRowId}`;
    case "user_story":
      return sql`c.epic_id = ${epicRowId}`;
    case "requirement":
    case "acceptance_criterion":
      return sql`c.user_story_id IN (${stories})`;
    case "relationship":
      return sql`c.source_requirement_id IN (SELECT id FROM requirements WHERE user_story_id IN (${stories}))`;
  }
}

/**
 * The differences between a baseline and the entities in scope now, kind by kind, each side found through
 * the other's primary key (no temporary index over the whole scope).
 */
function diffWithNow(baselineId: number, workspaceId: number, epicRowId: number | null): SQL {
  const parts = KIND_ORDER.map((kind) => {
    const table = KIND_TABLES[kind];
    const scope = inScope(kind, workspaceId, epicRowId);
    return sql`SELECT b.entity_kind AS kind, b.entity_id AS entity_id, b.revision AS from_rev, c.revision AS to_rev
        FROM baseline_entries b LEFT JOIN ${table} c ON c.id = b.entity_id AND ${scope}
        WHERE b.baseline_id = ${baselineId} AND b.entity_kind = ${kind} AND +b.workspace_id = ${workspaceId}
          AND (c.revision IS NULL OR c.revision <> b.revision)
      UNION ALL
      SELECT ${kind}, c.id, NULL, c.revision FROM ${table} c
        WHERE ${scope} AND NOT EXISTS (SELECT 1 FROM baseline_entries b
          WHERE b.baseline_id = ${baselineId} AND b.entity_kind = ${kind} AND b.entity_id = c.id)`;
  });
  return sql.join(parts, sql` UNION ALL `);
}

/** The differences between two baselines, through the entries' primary key both ways. */
function diffWithBaseline(workspaceId: number, fromId: number, toId: number): SQL {
  return sql`SELECT b.entity_kind AS kind, b.entity_id AS entity_id, b.revision AS from_rev, o.revision AS to_rev
      FROM baseline_entries b LEFT JOIN baseline_entries o
        ON o.baseline_id = ${toId} AND o.entity_kind = b.entity_kind AND o.entity_id = b.entity_id
      WHERE b.baseline_id = ${fromId} AND +b.workspace_id = ${workspaceId}
        AND (o.revision IS NULL OR o.revision <> b.revision)
    UNION ALL
    SELECT o.entity_kind, o.entity_id, NULL, o.revision FROM baseline_entries o
      WHERE o.baseline_id = ${toId} AND +o.workspace_id = ${workspaceId} AND NOT EXISTS (SELECT 1 FROM baseline_entries b
        WHERE b.baseline_id = ${fromId} AND b.entity_kind = o.entity_kind AND b.entity_id = o.entity_id)`;
}

export interface NewBaseline {
  name: string;
  description?: string;
  epic_id?: string;
}

export async function createBaseline(
  tx: Tx,
  workspaceId: number,
  input: NewBaseline,
  actor: Actor,
): Promise<Baseline> {
  const taken = await select(tx)
    .where(and(eq(baselines.workspaceId, workspaceId), eq(baselines.name, input.name)))
    .limit(1);
  if (taken[0]) {
    throw DomainError.conflict(
      `A baseline named "${input.name}" already exists (baselines never change). Choose another name, or read it with get_baseline.`,
      { reference_id: input.name },
    );
  }
  const epic = input.epic_id === undefined ? undefined : await requireEpicRow(tx, workspaceId, input.epic_id);
  const [created] = await tx
    .insert(baselines)
    .values({
      workspaceId,
      name: input.name,
      description: input.description ?? "",
      epicId: epic?.id ?? null,
      epicReferenceId: epic?.reference_id ?? null,
      creatorId: actor.userId,
      createdAt: iso(actor.now),
    })
    .returning({ id: baselines.id });
  if (!created) throw new Error("baseline insert returned no row");
  // One INSERT … SELECT: 100,000 entries stay well under the 2 s budget (bench/change-control.ts).
  await tx.run(
    sql`INSERT INTO baseline_entries (workspace_id, baseline_id, entity_kind, entity_id, revision)
        SELECT ${workspaceId}, ${created.id}, kind, entity_id, revision FROM (${currentScope(workspaceId, epic?.id ?? null)})`,
  );
  await tx.run(
    sql`UPDATE baselines SET entry_count = (SELECT count(*) FROM baseline_entries WHERE baseline_id = ${created.id}) WHERE id = ${created.id}`,
  );
  return toBaseline(await requireBaselineRow(tx, workspaceId, input.name));
}

export async function listBaselines(ex: Executor, workspaceId: number): Promise<Baseline[]> {
  const rows = await select(ex).where(eq(baselines.workspaceId, workspaceId)).orderBy(asc(baselines.id));
  return rows.map(toBaseline);
}

export interface BaselineEntity {
  entity_kind: RevisionKind;
  reference_id: string;
  revision: number;
  /** The entity as it was in the baseline. */
  snapshot: Record<string, unknown>;
}

const isEntryKey = (k: unknown): k is number => typeof k === "number" && Number.isSafeInteger(k) && k >= 0;

/** A baseline and a page of its entities as they were (in scope order: epics, stories, … relationships). */
export async function getBaseline(
  ex: Executor,
  workspaceId: number,
  name: string,
  page: { limit: number; cursor?: string },
): Promise<Baseline & Page<BaselineEntity>> {
  const row = await requireBaselineRow(ex, workspaceId, name);
  const tag = `baseline:${row.id}`;
  const after = decodeCursor(tag, page.cursor, isEntryKey) ?? 0;
  const rows = await ex.all<{
    k: number;
    kind: RevisionKind;
    ref: string;
    revision: number;
    snapshot: string;
  }>(
    sql`SELECT b.rowid AS k, b.entity_kind AS kind, r.reference_id AS ref, b.revision AS revision, r.snapshot AS snapshot
        FROM baseline_entries b
        JOIN revisions r ON r.workspace_id = ${workspaceId} AND r.entity_kind = b.entity_kind
          AND r.entity_id = b.entity_id AND r.revision = b.revision
        WHERE b.baseline_id = ${row.id} AND b.workspace_id = ${workspaceId} AND b.rowid > ${after}
        ORDER BY b.rowid LIMIT ${page.limit + 1}`,
  );
  const more = rows.length > page.limit;
  const kept = more ? rows.slice(0, page.limit) : rows;
  const last = kept[kept.length - 1];
  return {
    ...toBaseline(row),
    items: kept.map((r) => ({
      entity_kind: r.kind,
      reference_id: r.ref,
      revision: Number(r.revision),
      snapshot: JSON.parse(r.snapshot) as Record<string, unknown>,
    })),
    ...(more && last ? { next_cursor: encodeCursor(tag, Number(last.k)) } : {}),
  };
}

export interface EntityChange {
  entity_kind: RevisionKind;
  reference_id: string;
  change: "added" | "removed" | "changed";
  from_revision: number | null;
  to_revision: number | null;
  /** Changed: the fields that differ (text as a word diff). */
  changes?: FieldChange[];
  /** Added or removed: the entity as it is now, or as it was in `from`. */
  snapshot?: Record<string, unknown>;
}

export interface BaselineDiff extends Page<EntityChange> {
  from: string;
  /** The other baseline's name, or `now`. */
  to: string;
  counts: { added: number; removed: number; changed: number };
}

type DiffKey = { kind: RevisionKind; entity_id: number; from_rev: number | null; to_rev: number | null };
const isDiffCursor = (k: unknown): k is number => typeof k === "number" && Number.isSafeInteger(k) && k >= 0;

/**
 * What changed from baseline `from` to baseline `to` (or to now, within `from`'s scope): added, removed and
 * changed entities, each with its field diff. The keys of every difference are found in two set queries on
 * the entries' primary key; snapshots are read only for the page returned.
 */
export async function diffBaseline(
  ex: Executor,
  workspaceId: number,
  input: { from: string; to?: string; limit: number; cursor?: string },
): Promise<BaselineDiff> {
  const from = await requireBaselineRow(ex, workspaceId, input.from);
  const to = input.to === undefined ? undefined : await requireBaselineRow(ex, workspaceId, input.to);
  const keys = await ex.all<DiffKey>(
    to ? diffWithBaseline(workspaceId, from.id, to.id) : diffWithNow(from.id, workspaceId, from.epic_row_id),
  );
  keys.sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || Number(a.entity_id) - Number(b.entity_id),
  );
  const counts = { added: 0, removed: 0, changed: 0 };
  for (const k of keys) counts[changeOf(k)]++;

  const tag = `baseline-diff:${from.id}:${to?.id ?? "now"}`;
  const offset = decodeCursor(tag, input.cursor, isDiffCursor) ?? 0;
  const pageKeys = keys.slice(offset, offset + input.limit);
  const wanted = pageKeys.flatMap((k) => [
    ...(k.from_rev !== null
      ? [{ kind: k.kind, entityId: Number(k.entity_id), revision: Number(k.from_rev) }]
      : []),
    ...(k.to_rev !== null
      ? [{ kind: k.kind, entityId: Number(k.entity_id), revision: Number(k.to_rev) }]
      : []),
  ]);
  const snapshots = await snapshotsOf(ex, workspaceId, wanted);
  const snap = (k: DiffKey, rev: number | null) =>
    rev === null ? undefined : snapshots.get(revisionKey(k.kind, Number(k.entity_id), Number(rev)));
  const items = pageKeys.map((k): EntityChange => {
    const before = snap(k, k.from_rev);
    const after = snap(k, k.to_rev);
    const change = changeOf(k);
    return {
      entity_kind: k.kind,
      reference_id: (after ?? before)?.reference_id ?? `${k.kind} ${k.entity_id}`,
      change,
      from_revision: k.from_rev === null ? null : Number(k.from_rev),
      to_revision: k.to_rev === null ? null : Number(k.to_rev),
      ...(change === "changed"
        ? { changes: fieldChanges(before?.snapshot, after?.snapshot) }
        : { snapshot: (after ?? before)?.snapshot ?? {} }),
    };
  });
  const next = offset + input.limit;
  return {
    from: from.name,
    to: to?.name ?? "now",
    counts,
    items,
    ...(next < keys.length ? { next_cursor: encodeCursor(tag, next) } : {}),
  };
}

function changeOf(k: DiffKey): "added" | "removed" | "changed" {
  if (k.from_rev === null) return "added";
  if (k.to_rev === null) return "removed";
  return "changed";
}
