/**
 * Suspect links (change control item 3): a relationship remembers its ends' revisions when it is created or
 * confirmed; once either end has a newer revision the link may no longer hold. Trace citations pinned to a
 * revision (traceability) go suspect the same way and are listed beside them.
 */
import { and, asc, eq, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Executor } from "./database.js";
import { isSuspect, relationshipSources, relationshipTargets } from "./relationships.repo.js";
import { relationships, relationshipTypes, userStories } from "./schema.js";

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

/** A trace citation (code, commit or test citing an entity) pinned to a revision the entity has moved past. */
export interface SuspectCitation {
  reference_id: string;
  pinned_revision: number;
  revision_now: number;
  [detail: string]: unknown;
}

/**
 * Trace citations pinned to an older revision than their entity's current one. The trace tables belong to
 * the traceability work (migration 0006 on its branch) and are not on this branch: when they merge, join
 * them here (citations with a pinned revision whose entity's `revision` is greater, in the epic when
 * `epicRowId` is set). Until then there are none to list.
 */
export async function suspectCitations(
  _ex: Executor,
  _workspaceId: number,
  _epicRowId?: number,
): Promise<SuspectCitation[]> {
  return [];
}
