/**
 * Reading traces: the latest snapshot of each repository, citation tallies per requirement over a set of
 * snapshots, untraced requirements, orphan and suspect citations. Every query is scoped to one workspace;
 * "latest" is the highest snapshot id of a repository.
 */
import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  inArray,
  lt,
  notExists,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import {
  type CitationTally,
  coverageStatus,
  EMPTY_TALLY,
  isSuspect,
  type Missing,
} from "../core/trace-coverage.js";
import type { Executor } from "./database.js";
import { decodeCursor, isPositiveInt, type Page, pageOf } from "./entity-support.js";
import { requirements, traceCitations, traceCommits, traceSnapshots, userStories } from "./schema.js";
import { compareIds, resolveReferences } from "./traces.repo.js";

/**
 * The SQL form of `isSuspect` (core/trace-coverage.ts), the one rule for a suspect citation: pinned to a
 * revision older than `current`, the cited entity's revision now (joined by the citation's entity id, so an
 * orphan is never suspect). Coverage tallies, suspect links and the summary all apply it.
 */
export function citationPinnedBefore(current: SQLWrapper): SQL<number> {
  return sql<number>`(${traceCitations.revision} IS NOT NULL AND ${traceCitations.revision} < ${current})`;
}

export interface SnapshotInfo {
  snapshot_id: number;
  repository: string;
  commit: string;
  branch: string | null;
  scanned_at: string;
  pushed_at: string;
  citations: number;
}

const snapshotColumns = {
  snapshot_id: traceSnapshots.id,
  repository: traceSnapshots.repository,
  commit: traceSnapshots.commitSha,
  branch: traceSnapshots.branch,
  scanned_at: traceSnapshots.scannedAt,
  pushed_at: traceSnapshots.updatedAt,
  citations: traceSnapshots.citationCount,
};

/** The latest snapshot of each repository (or of one), by repository name. */
export async function latestSnapshots(
  ex: Executor,
  workspaceId: number,
  repository?: string,
): Promise<SnapshotInfo[]> {
  const latest = await ex
    .select({ id: sql<number>`max(${traceSnapshots.id})` })
    .from(traceSnapshots)
    .where(
      and(
        eq(traceSnapshots.workspaceId, workspaceId),
        repository !== undefined ? eq(traceSnapshots.repository, repository) : undefined,
      ),
    )
    .groupBy(traceSnapshots.repository);
  if (latest.length === 0) return [];
  return ex
    .select(snapshotColumns)
    .from(traceSnapshots)
    .where(
      and(
        eq(traceSnapshots.workspaceId, workspaceId),
        inArray(
          traceSnapshots.id,
          latest.map((l) => l.id),
        ),
      ),
    )
    .orderBy(asc(traceSnapshots.repository));
}

/** The snapshot of `repository` pushed before `beforeId`, if any. */
export async function previousSnapshot(
  ex: Executor,
  workspaceId: number,
  repository: string,
  beforeId: number,
): Promise<SnapshotInfo | undefined> {
  const [row] = await ex
    .select(snapshotColumns)
    .from(traceSnapshots)
    .where(
      and(
        eq(traceSnapshots.workspaceId, workspaceId),
        eq(traceSnapshots.repository, repository),
        lt(traceSnapshots.id, beforeId),
      ),
    )
    .orderBy(desc(traceSnapshots.id))
    .limit(1);
  return row;
}

export interface RequirementScope {
  /** Row ids: the caller resolved (and so checked) the reference ids in this workspace. */
  requirementRowIds?: number[];
  /** Normalized requirement reference ids (at most a few hundred per call). */
  referenceIds?: string[];
  epicRowId?: number;
  storyRowId?: number;
}

/** Citation tallies of the requirements in scope over `snapshotIds`, by requirement reference id. */
export async function requirementTallies(
  ex: Executor,
  workspaceId: number,
  snapshotIds: number[],
  scope: RequirementScope = {},
): Promise<Map<string, CitationTally>> {
  const tallies = new Map<string, CitationTally>();
  if (snapshotIds.length === 0) return tallies;
  const rows = await ex
    .select({
      reference_id: requirements.referenceId,
      kind: traceCitations.kind,
      n: count(),
      suspect: sql<number>`coalesce(sum(${citationPinnedBefore(requirements.revision)}), 0)`,
    })
    .from(traceCitations)
    .innerJoin(
      requirements,
      and(eq(requirements.id, traceCitations.entityId), eq(requirements.workspaceId, workspaceId)),
    )
    .innerJoin(userStories, eq(userStories.id, requirements.userStoryId))
    .where(
      and(
        eq(traceCitations.workspaceId, workspaceId),
        inArray(traceCitations.snapshotId, snapshotIds),
        eq(traceCitations.entityKind, "requirement"),
        scope.requirementRowIds !== undefined
          ? inArray(traceCitations.entityId, scope.requirementRowIds)
          : undefined,
        scope.referenceIds !== undefined ? inArray(requirements.referenceId, scope.referenceIds) : undefined,
        scope.storyRowId !== undefined ? eq(requirements.userStoryId, scope.storyRowId) : undefined,
        scope.epicRowId !== undefined ? eq(userStories.epicId, scope.epicRowId) : undefined,
      ),
    )
    .groupBy(requirements.referenceId, traceCitations.kind);
  for (const r of rows) {
    const t = tallies.get(r.reference_id) ?? { ...EMPTY_TALLY };
    if (r.kind === "impl" || r.kind === "test" || r.kind === "doc") t[r.kind] += Number(r.n);
    t.suspect += Number(r.suspect);
    tallies.set(r.reference_id, t);
  }
  return tallies;
}

/** Reference ids and statuses of the requirements in scope, in creation order. */
export async function requirementsInScope(
  ex: Executor,
  workspaceId: number,
  scope: RequirementScope,
  statuses: readonly string[],
): Promise<{ reference_id: string; status: string }[]> {
  return ex
    .select({ reference_id: requirements.referenceId, status: requirements.status })
    .from(requirements)
    .innerJoin(userStories, eq(userStories.id, requirements.userStoryId))
    .where(
      and(
        eq(requirements.workspaceId, workspaceId),
        inArray(requirements.status, statuses as string[] as ("Draft" | "Active" | "Obsolete")[]),
        scope.storyRowId !== undefined ? eq(requirements.userStoryId, scope.storyRowId) : undefined,
        scope.epicRowId !== undefined ? eq(userStories.epicId, scope.epicRowId) : undefined,
      ),
    )
    .orderBy(asc(requirements.id));
}

export interface UntracedRequirement {
  reference_id: string;
  user_story_id: string;
  title: string;
  status: string;
  priority: number;
  coverage: ReturnType<typeof coverageStatus>;
  impl: number;
  test: number;
}

export interface UntracedFilter extends RequirementScope {
  statuses: readonly string[];
  missing: Missing;
  limit: number;
  cursor?: string;
  /** Part of the cursor tag, so a cursor of other filters is refused. */
  tag: string;
}

/** Requirements lacking an implementation and/or a test citation in `snapshotIds`, in creation order. */
export async function untracedRequirements(
  ex: Executor,
  workspaceId: number,
  snapshotIds: number[],
  filter: UntracedFilter,
): Promise<Page<UntracedRequirement>> {
  const after = decodeCursor(filter.tag, filter.cursor, isPositiveInt);
  const citedAs = (kind: "impl" | "test") =>
    notExists(
      ex
        .select({ one: sql`1` })
        .from(traceCitations)
        .where(
          and(
            inArray(traceCitations.snapshotId, snapshotIds),
            eq(traceCitations.entityKind, "requirement"),
            eq(traceCitations.entityId, requirements.id),
            eq(traceCitations.kind, kind),
          ),
        ),
    );
  const lacking =
    filter.missing === "impl"
      ? citedAs("impl")
      : filter.missing === "test"
        ? citedAs("test")
        : sql`(${citedAs("impl")} OR ${citedAs("test")})`;
  const rows = await ex
    .select({
      id: requirements.id,
      reference_id: requirements.referenceId,
      user_story_id: userStories.referenceId,
      title: requirements.title,
      status: requirements.status,
      priority: requirements.priority,
    })
    .from(requirements)
    .innerJoin(userStories, eq(userStories.id, requirements.userStoryId))
    .where(
      and(
        eq(requirements.workspaceId, workspaceId),
        inArray(requirements.status, filter.statuses as ("Draft" | "Active" | "Obsolete")[]),
        filter.storyRowId !== undefined ? eq(requirements.userStoryId, filter.storyRowId) : undefined,
        filter.epicRowId !== undefined ? eq(userStories.epicId, filter.epicRowId) : undefined,
        after !== undefined ? gt(requirements.id, after) : undefined,
        lacking,
      ),
    )
    .orderBy(asc(requirements.id))
    .limit(filter.limit + 1);
  const page = rows.slice(0, filter.limit);
  const tallies = await requirementTallies(ex, workspaceId, snapshotIds, {
    requirementRowIds: page.map((r) => r.id),
  });
  return pageOf(
    rows,
    filter.limit,
    ({ id: _id, ...r }) => {
      const t = tallies.get(r.reference_id) ?? EMPTY_TALLY;
      return { ...r, coverage: coverageStatus(t), impl: t.impl, test: t.test };
    },
    (r) => r.id,
    filter.tag,
  );
}

export interface CitationRow {
  snapshot_id: number;
  file: string;
  line: number;
  column: number;
  kind: string;
  test_name: string | null;
  snippet: string;
  revision: number | null;
}

/** Citations of one entity (by row id) in `snapshotIds`, by file and line. */
export async function citationsOfEntity(
  ex: Executor,
  workspaceId: number,
  snapshotIds: number[],
  entityKind: string,
  entityRowId: number,
): Promise<CitationRow[]> {
  if (snapshotIds.length === 0) return [];
  return ex
    .select({
      snapshot_id: traceCitations.snapshotId,
      file: traceCitations.file,
      line: traceCitations.line,
      column: traceCitations.column,
      kind: traceCitations.kind,
      test_name: traceCitations.testName,
      snippet: traceCitations.snippet,
      revision: traceCitations.revision,
    })
    .from(traceCitations)
    .where(
      and(
        eq(traceCitations.workspaceId, workspaceId),
        inArray(traceCitations.snapshotId, snapshotIds),
        eq(traceCitations.entityKind, entityKind),
        eq(traceCitations.entityId, entityRowId),
      ),
    )
    .orderBy(asc(traceCitations.snapshotId), asc(traceCitations.file), asc(traceCitations.line));
}

/** Commits in `snapshotIds` whose messages cite `referenceId`. */
export async function commitsCiting(
  ex: Executor,
  workspaceId: number,
  snapshotIds: number[],
  referenceId: string,
): Promise<{ snapshot_id: number; sha: string; subject: string }[]> {
  if (snapshotIds.length === 0) return [];
  return ex
    .select({ snapshot_id: traceCommits.snapshotId, sha: traceCommits.sha, subject: traceCommits.subject })
    .from(traceCommits)
    .where(
      and(
        eq(traceCommits.workspaceId, workspaceId),
        inArray(traceCommits.snapshotId, snapshotIds),
        sql`EXISTS (SELECT 1 FROM json_each(${traceCommits.ids}) WHERE value = ${referenceId})`,
      ),
    )
    .orderBy(asc(traceCommits.id));
}

/**
 * Orphan ids (cited, but not an entity of this workspace: never was, or deleted since) and suspect ids
 * (cited pinned to an older revision than the entity's current one) over `snapshotIds`.
 */
export async function citationHealth(
  ex: Executor,
  workspaceId: number,
  snapshotIds: number[],
): Promise<{ orphans: Map<string, number>; suspect: Map<string, number> }> {
  const orphans = new Map<string, number>();
  const suspect = new Map<string, number>();
  if (snapshotIds.length === 0) return { orphans, suspect };
  const rows = await ex
    .select({
      reference_id: traceCitations.referenceId,
      entity_id: traceCitations.entityId,
      revision: traceCitations.revision,
      n: count(),
    })
    .from(traceCitations)
    .where(and(eq(traceCitations.workspaceId, workspaceId), inArray(traceCitations.snapshotId, snapshotIds)))
    .groupBy(traceCitations.referenceId, traceCitations.entityId, traceCitations.revision);
  const current = await resolveReferences(
    ex,
    workspaceId,
    rows.map((r) => r.reference_id),
  );
  const add = (m: Map<string, number>, id: string, n: number) => m.set(id, (m.get(id) ?? 0) + n);
  for (const r of rows) {
    const entity = current.get(r.reference_id);
    if (r.entity_id === null || entity?.row_id !== r.entity_id) add(orphans, r.reference_id, Number(r.n));
    else if (isSuspect(r.revision, entity.revision)) add(suspect, r.reference_id, Number(r.n));
  }
  const sorted = (m: Map<string, number>) =>
    new Map([...m].sort(([a], [b]) => compareIds(a, b)) as [string, number][]);
  return { orphans: sorted(orphans), suspect: sorted(suspect) };
}
