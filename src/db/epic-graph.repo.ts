/**
 * The traceability graph of an epic (issue 13): its requirements as nodes, the relationships touching them
 * as typed, directed edges (suspect ones marked, the rule of relationships.repo's `isSuspect`), and the
 * requirements of other epics at the far end of those edges as external nodes. Read in one transaction by
 * the caller; every query is scoped to the workspace.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Executor } from "./database.js";
import { isSuspect, relationshipSources, relationshipTargets } from "./relationships.repo.js";
import {
  epics,
  relationships,
  relationshipTypes,
  requirements,
  requirementTypes,
  userStories,
} from "./schema.js";

export interface GraphNode {
  reference_id: string;
  title: string;
  status: string;
  priority: number;
  type_name: string;
  user_story_id: string;
  epic_id: string;
  /** A requirement of another epic, shown because a relationship of this epic reaches it. */
  external: boolean;
}

export interface GraphEdge {
  source_requirement_id: string;
  target_requirement_id: string;
  relationship_type: string;
  suspect: boolean;
  /** The ends that changed since the link was created or confirmed (empty unless suspect). */
  changed: ("source" | "target")[];
}

export interface EpicGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** The epic's requirements in all; `nodes` holds at most `limit` of them (plus external nodes). */
  total_requirements: number;
  truncated: boolean;
}

const sourceStories = alias(userStories, "graph_source_stories");
const targetStories = alias(userStories, "graph_target_stories");
const sourceEpics = alias(epics, "graph_source_epics");
const targetEpics = alias(epics, "graph_target_epics");
const sourceTypes = alias(requirementTypes, "graph_source_types");
const targetTypes = alias(requirementTypes, "graph_target_types");

/** The epic's requirements in story order, then by reference number: a stable order for layouts. */
async function epicRequirements(ex: Executor, workspaceId: number, epicRowId: number, limit: number) {
  return ex
    .select({
      id: requirements.id,
      reference_id: requirements.referenceId,
      title: requirements.title,
      status: requirements.status,
      priority: requirements.priority,
      type_name: requirementTypes.name,
      user_story_id: userStories.referenceId,
      epic_id: epics.referenceId,
    })
    .from(requirements)
    .innerJoin(userStories, eq(userStories.id, requirements.userStoryId))
    .innerJoin(epics, eq(epics.id, userStories.epicId))
    .innerJoin(requirementTypes, eq(requirementTypes.id, requirements.typeId))
    .where(and(eq(requirements.workspaceId, workspaceId), eq(userStories.epicId, epicRowId)))
    .orderBy(asc(userStories.id), asc(requirements.id))
    .limit(limit);
}

/** Both ends of every relationship of the workspace whose `side` end is one of `rowIds`. */
function edgesAt(ex: Executor, workspaceId: number, side: "source" | "target", rowIds: number[]) {
  const s = relationshipSources;
  const t = relationshipTargets;
  return ex
    .select({
      id: relationships.id,
      relationship_type: relationshipTypes.name,
      suspect: sql<number>`${isSuspect}`.mapWith((v) => Boolean(Number(v))),
      source_changed: sql<number>`${s.revision} <> coalesce(${relationships.sourceRevision}, 1)`.mapWith(
        (v) => Boolean(Number(v)),
      ),
      target_changed: sql<number>`${t.revision} <> coalesce(${relationships.targetRevision}, 1)`.mapWith(
        (v) => Boolean(Number(v)),
      ),
      source: {
        reference_id: s.referenceId,
        title: s.title,
        status: s.status,
        priority: s.priority,
        type_name: sourceTypes.name,
        user_story_id: sourceStories.referenceId,
        epic_id: sourceEpics.referenceId,
      },
      target: {
        reference_id: t.referenceId,
        title: t.title,
        status: t.status,
        priority: t.priority,
        type_name: targetTypes.name,
        user_story_id: targetStories.referenceId,
        epic_id: targetEpics.referenceId,
      },
    })
    .from(relationships)
    .innerJoin(s, eq(s.id, relationships.sourceRequirementId))
    .innerJoin(t, eq(t.id, relationships.targetRequirementId))
    .innerJoin(relationshipTypes, eq(relationshipTypes.id, relationships.typeId))
    .innerJoin(sourceStories, eq(sourceStories.id, s.userStoryId))
    .innerJoin(targetStories, eq(targetStories.id, t.userStoryId))
    .innerJoin(sourceEpics, eq(sourceEpics.id, sourceStories.epicId))
    .innerJoin(targetEpics, eq(targetEpics.id, targetStories.epicId))
    .innerJoin(sourceTypes, eq(sourceTypes.id, s.typeId))
    .innerJoin(targetTypes, eq(targetTypes.id, t.typeId))
    .where(
      and(
        eq(relationships.workspaceId, workspaceId),
        inArray(
          side === "source" ? relationships.sourceRequirementId : relationships.targetRequirementId,
          rowIds,
        ),
      ),
    )
    .orderBy(asc(relationships.id));
}

// SQLite binds at most 32,766 variables; the node limit (≤ 1,000) stays far below, chunks keep it so.
const CHUNK = 1000;

/**
 * The graph of `epic`: at most `limit` of its requirements, every relationship with an end among
 * them, and the far ends in other epics. Call inside one `Database.read` so nodes and edges agree.
 */
export async function epicGraph(
  ex: Executor,
  workspaceId: number,
  epic: { id: number; reference_id: string },
  limit: number,
): Promise<EpicGraph> {
  const epicRowId = epic.id;
  const [counted] = await ex
    .select({ n: sql<number>`count(*)` })
    .from(requirements)
    .innerJoin(userStories, eq(userStories.id, requirements.userStoryId))
    .where(and(eq(requirements.workspaceId, workspaceId), eq(userStories.epicId, epicRowId)));
  const total = Number(counted?.n ?? 0);
  const rows = await epicRequirements(ex, workspaceId, epicRowId, limit);
  const nodes: GraphNode[] = rows.map(({ id: _id, ...r }) => ({ ...r, external: false }));
  const inGraph = new Set(nodes.map((n) => n.reference_id));
  const rowIds = rows.map((r) => r.id);

  const byId = new Map<number, Awaited<ReturnType<typeof edgesAt>>[number]>();
  for (let i = 0; i < rowIds.length; i += CHUNK) {
    const chunk = rowIds.slice(i, i + CHUNK);
    for (const side of ["source", "target"] as const) {
      for (const edge of await edgesAt(ex, workspaceId, side, chunk)) byId.set(edge.id, edge);
    }
  }
  const edges: GraphEdge[] = [];
  const external = new Map<string, GraphNode>();
  for (const e of [...byId.values()].sort((a, b) => a.id - b.id)) {
    for (const end of [e.source, e.target]) {
      if (!inGraph.has(end.reference_id) && !external.has(end.reference_id)) {
        // An end of this epic beyond `limit` is left out with its edges; only other epics' ends are added.
        if (end.epic_id === epic.reference_id) continue;
        external.set(end.reference_id, { ...end, external: true });
      }
    }
    const ends = [e.source.reference_id, e.target.reference_id];
    if (!ends.every((ref) => inGraph.has(ref) || external.has(ref))) continue;
    edges.push({
      source_requirement_id: e.source.reference_id,
      target_requirement_id: e.target.reference_id,
      relationship_type: e.relationship_type,
      suspect: e.suspect,
      changed: [
        ...(e.source_changed ? (["source"] as const) : []),
        ...(e.target_changed ? (["target"] as const) : []),
      ],
    });
  }
  const externals = [...external.values()].sort((a, b) => a.reference_id.localeCompare(b.reference_id));
  return {
    nodes: [...nodes, ...externals],
    edges,
    total_requirements: total,
    truncated: total > nodes.length,
  };
}
