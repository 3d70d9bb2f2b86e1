/**
 * Suspect links (change control item 3): a relationship remembers its ends' revisions when it is created or
 * confirmed; once either end has a newer revision the link may no longer hold. Trace citations pinned to a
 * revision (traceability) go suspect the same way and are listed beside them.
 */
import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Executor } from "./database.js";
import { isSuspect, relationshipSources, relationshipTargets } from "./relationships.repo.js";
import { relationships, relationshipTypes, traceCitations, userStories } from "./schema.js";
import { citationPinnedBefore, latestSnapshots } from "./trace-coverage.repo.js";

export interface SuspectRelationship {
  source_requirement_id: string;
  target_requirement_id: string;
  relationship_type: string;
  /** The revisions the link was created or last confirmed at, and the ends' current ones. */
  source_revision: number;
  source_revision_now: number;
  target_revision: number;
  target_revision_now: number;
  /** Which ends changed since. */
  changed: ("source" | "target")[];
}

const sourceStories = alias(userStories, "source_stories");
const targetStories = alias(userStories, "target_stories");

/** Suspect relationships of the workspace, or those with an end in one epic (`epicRowId`). */
export async function suspectRelationships(
  ex: Executor,
  workspaceId: number,
  epicRowId?: number,
): Promise<SuspectRelationship[]> {
  const sources = relationshipSources;
  const targets = relationshipTargets;
  const rows = await ex
    .select({
      source_requirement_id: sources.referenceId,
      target_requirement_id: targets.referenceId,
      relationship_type: relationshipTypes.name,
      source_revision: sql<number>`coalesce(${relationships.sourceRevision}, 1)`,
      source_revision_now: sources.revision,
      target_revision: sql<number>`coalesce(${relationships.targetRevision}, 1)`,
      target_revision_now: targets.revision,
    })
    .from(relationships)
    .innerJoin(sources, eq(sources.id, relationships.sourceRequirementId))
    .innerJoin(targets, eq(targets.id, relationships.targetRequirementId))
    .innerJoin(relationshipTypes, eq(relationshipTypes.id, relationships.typeId))
    .innerJoin(sourceStories, eq(sourceStories.id, sources.userStoryId))
    .innerJoin(targetStories, eq(targetStories.id, targets.userStoryId))
    .where(
      and(
        eq(relationships.workspaceId, workspaceId),
        isSuspect,
        epicRowId === undefined
          ? undefined
          : or(eq(sourceStories.epicId, epicRowId), eq(targetStories.epicId, epicRowId)),
      ),
    )
    .orderBy(asc(relationships.id));
  return rows.map((r) => ({
    ...r,
    changed: [
      ...(r.source_revision_now !== r.source_revision ? (["source"] as const) : []),
      ...(r.target_revision_now !== r.target_revision ? (["target"] as const) : []),
    ],
  }));
}

/** A trace citation (code, test or doc citing an entity) pinned to a revision the entity has moved past. */
export interface SuspectCitation {
  reference_id: string;
  entity_kind: string;
  repository: string;
  commit: string;
  file: string;
  line: number;
  /** impl | test | doc */
  kind: string;
  pinned_revision: number;
  revision_now: number;
}

/**
 * How each cited kind is joined (`e` is the cited row) and what puts it in an epic: a requirement or
 * criterion through its story, a story directly, an epic by being it.
 */
const CITED = [
  { kind: "epic", table: "epics", story: false, epicColumn: "e.id" },
  { kind: "user_story", table: "user_stories", story: false, epicColumn: "e.epic_id" },
  { kind: "requirement", table: "requirements", story: true, epicColumn: "st.epic_id" },
  { kind: "acceptance_criterion", table: "acceptance_criteria", story: true, epicColumn: "st.epic_id" },
] as const;

/**
 * Citations in the latest snapshot of each repository pinned to an older revision than their entity's
 * current one (the rule of `citationPinnedBefore`, shared with get_requirement_traces and trace_summary),
 * or only those citing an entity of one epic (`epicRowId`). One query per cited kind; ordered by
 * repository, file and line.
 */
export async function suspectCitations(
  ex: Executor,
  workspaceId: number,
  epicRowId?: number,
): Promise<SuspectCitation[]> {
  const snapshotIds = (await latestSnapshots(ex, workspaceId)).map((s) => s.snapshot_id);
  if (snapshotIds.length === 0) return [];
  const out: SuspectCitation[] = [];
  for (const c of CITED) {
    const rows = await ex.all<SuspectCitation>(sql`
      SELECT e.reference_id AS reference_id, ${c.kind} AS entity_kind, s.repository AS repository,
        s.commit_sha AS "commit", ${traceCitations.file} AS file, ${traceCitations.line} AS line,
        ${traceCitations.kind} AS kind, ${traceCitations.revision} AS pinned_revision, e.revision AS revision_now
      FROM ${traceCitations}
      JOIN trace_snapshots s ON s.id = ${traceCitations.snapshotId}
      JOIN ${sql.identifier(c.table)} e ON e.id = ${traceCitations.entityId} AND e.workspace_id = ${workspaceId}
      ${c.story ? sql`JOIN user_stories st ON st.id = e.user_story_id` : sql``}
      WHERE ${traceCitations.workspaceId} = ${workspaceId}
        AND ${inArray(traceCitations.snapshotId, snapshotIds)}
        AND ${traceCitations.entityKind} = ${c.kind}
        AND ${citationPinnedBefore(sql`e.revision`)}
        ${epicRowId === undefined ? sql`` : sql`AND ${sql.raw(c.epicColumn)} = ${epicRowId}`}`);
    out.push(
      ...rows.map((r) => ({
        ...r,
        line: Number(r.line),
        pinned_revision: Number(r.pinned_revision),
        revision_now: Number(r.revision_now),
      })),
    );
  }
  return out.sort(
    (a, b) =>
      a.repository.localeCompare(b.repository) ||
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      a.reference_id.localeCompare(b.reference_id),
  );
}
