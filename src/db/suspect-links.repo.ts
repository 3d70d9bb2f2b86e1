/**
 * Suspect links (change control item 3): a relationship remembers its ends' revisions when it is created or
 * confirmed; once either end has a newer revision the link may no longer hold. Trace citations pinned to a
 * revision (traceability) go suspect the same way and are listed beside them.
 */
import { and, asc, eq, gt, or, sql } from "drizzle-orm";
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

/**
 * Suspect relationships of the workspace, or those with an end in one epic (`epicRowId`), by relationship
 * id: at most `limit` of them after id `afterId`. The suspect test reads both ends, so a page walks the
 * workspace's links in id order (index relationships_workspace_id) until it has `limit`.
 */
export async function suspectRelationships(
  ex: Executor,
  workspaceId: number,
  page: { epicRowId?: number | undefined; afterId?: number | undefined; limit: number },
): Promise<(SuspectRelationship & { id: number })[]> {
  const sources = relationshipSources;
  const targets = relationshipTargets;
  const { epicRowId, afterId } = page;
  const rows = await ex
    .select({
      id: relationships.id,
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
        afterId === undefined ? undefined : gt(relationships.id, afterId),
        isSuspect,
        epicRowId === undefined
          ? undefined
          : or(eq(sourceStories.epicId, epicRowId), eq(targetStories.epicId, epicRowId)),
      ),
    )
    .orderBy(asc(relationships.id))
    .limit(page.limit);
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
 * A citation's place in the list: repository, file, line, reference id (binary order, as SQLite compares
 * text), then the citation's id, so citations tied on all four (one id cited twice on a line) keep push
 * order and a page boundary among them neither skips nor repeats.
 */
export type CitationKey = [repository: string, file: string, line: number, referenceId: string, id: number];

/** The cited entity's current revision, whichever of the four kinds it is (one join matches). */
const REVISION_NOW = sql`coalesce(ep.revision, us.revision, rq.revision, ac.revision)`;
/** What puts the cited entity in an epic: being it, its story's epic, or its story's. */
const EPIC_OF_CITED = sql`coalesce(ep.id, us.epic_id, st.epic_id)`;

/**
 * Citations in the latest snapshot of each repository pinned to an older revision than their entity's
 * current one (the rule of `citationPinnedBefore`, shared with get_requirement_traces and trace_summary),
 * or only those citing an entity of one epic (`epicRowId`): at most `limit` after `after`, in CitationKey
 * order. Repositories are taken in order, one query each over the pinned-citations index of its latest
 * snapshot (trace_citations_pinned), so a page reads the pinned citations it walks, not the workspace's.
 */
export async function suspectCitations(
  ex: Executor,
  workspaceId: number,
  page: { epicRowId?: number | undefined; after?: CitationKey | undefined; limit: number },
): Promise<(SuspectCitation & { id: number })[]> {
  const { epicRowId, after } = page;
  const snapshots = (await latestSnapshots(ex, workspaceId))
    .filter((s) => after === undefined || s.repository >= after[0])
    .sort((a, b) => (a.repository < b.repository ? -1 : a.repository > b.repository ? 1 : 0));
  const out: (SuspectCitation & { id: number })[] = [];
  for (const snapshot of snapshots) {
    const want = page.limit - out.length;
    if (want <= 0) break;
    const from =
      after !== undefined && after[0] === snapshot.repository
        ? sql`AND (${traceCitations.file}, ${traceCitations.line}, ${traceCitations.referenceId}, ${traceCitations.id}) > (${after[1]}, ${after[2]}, ${after[3]}, ${after[4]})`
        : sql``;
    const rows = await ex.all<SuspectCitation & { id: number }>(sql`
      SELECT ${traceCitations.id} AS id, ${traceCitations.referenceId} AS reference_id,
        ${traceCitations.entityKind} AS entity_kind, ${traceCitations.file} AS file,
        ${traceCitations.line} AS line, ${traceCitations.kind} AS kind,
        ${traceCitations.revision} AS pinned_revision, ${REVISION_NOW} AS revision_now
      FROM ${traceCitations}
      LEFT JOIN epics ep ON ${traceCitations.entityKind} = 'epic'
        AND ep.id = ${traceCitations.entityId} AND ep.workspace_id = ${workspaceId}
      LEFT JOIN user_stories us ON ${traceCitations.entityKind} = 'user_story'
        AND us.id = ${traceCitations.entityId} AND us.workspace_id = ${workspaceId}
      LEFT JOIN requirements rq ON ${traceCitations.entityKind} = 'requirement'
        AND rq.id = ${traceCitations.entityId} AND rq.workspace_id = ${workspaceId}
      LEFT JOIN acceptance_criteria ac ON ${traceCitations.entityKind} = 'acceptance_criterion'
        AND ac.id = ${traceCitations.entityId} AND ac.workspace_id = ${workspaceId}
      ${epicRowId === undefined ? sql`` : sql`LEFT JOIN user_stories st ON st.id = coalesce(rq.user_story_id, ac.user_story_id)`}
      WHERE ${traceCitations.snapshotId} = ${snapshot.snapshot_id}
        AND ${traceCitations.workspaceId} = ${workspaceId}
        AND ${traceCitations.revision} IS NOT NULL
        AND ${citationPinnedBefore(REVISION_NOW)}
        ${from}
        ${epicRowId === undefined ? sql`` : sql`AND ${EPIC_OF_CITED} = ${epicRowId}`}
      ORDER BY ${traceCitations.file}, ${traceCitations.line}, ${traceCitations.referenceId}, ${traceCitations.id}
      LIMIT ${want}`);
    out.push(
      ...rows.map((r) => ({
        id: Number(r.id),
        reference_id: r.reference_id,
        entity_kind: r.entity_kind,
        repository: snapshot.repository,
        commit: snapshot.commit,
        file: r.file,
        line: Number(r.line),
        kind: r.kind,
        pinned_revision: Number(r.pinned_revision),
        revision_now: Number(r.revision_now),
      })),
    );
  }
  return out;
}

/**
 * Where a page of list_suspect_links ends: in the relationships (after that link's id), at the start of the
 * citations, or in the citations (after that key). The relationships come first, then the citations.
 */
export type SuspectPosition = ["r", number] | ["c"] | ["c", ...CitationKey];

const isPosInt = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v > 0;
export const isSuspectPosition = (k: unknown): k is SuspectPosition =>
  Array.isArray(k) &&
  ((k.length === 2 && k[0] === "r" && isPosInt(k[1])) ||
    (k.length === 1 && k[0] === "c") ||
    (k.length === 6 &&
      k[0] === "c" &&
      typeof k[1] === "string" &&
      typeof k[2] === "string" &&
      typeof k[3] === "number" &&
      Number.isSafeInteger(k[3]) &&
      typeof k[4] === "string" &&
      isPosInt(k[5])));

export interface SuspectLinksPage {
  relationships: SuspectRelationship[];
  trace_citations: SuspectCitation[];
  /** Where the next page starts; absent on the last page. */
  next: SuspectPosition | undefined;
}

/**
 * One page of both lists, `limit` links in all: the relationships first, then the citations, a page
 * holding the end of the one and the start of the other. One more row than asked is read to know whether
 * a next page exists.
 */
export async function suspectLinksPage(
  ex: Executor,
  workspaceId: number,
  page: { epicRowId?: number | undefined; from?: SuspectPosition | undefined; limit: number },
): Promise<SuspectLinksPage> {
  const { epicRowId, from, limit } = page;
  const strip = <T extends { id: number }>({ id: _id, ...rest }: T) => rest;
  let relationshipRows: (SuspectRelationship & { id: number })[] = [];
  if (from === undefined || from[0] === "r") {
    relationshipRows = await suspectRelationships(ex, workspaceId, {
      epicRowId,
      afterId: from?.[1],
      limit: limit + 1,
    });
    if (relationshipRows.length > limit) {
      const kept = relationshipRows.slice(0, limit);
      return {
        relationships: kept.map(strip),
        trace_citations: [],
        next: ["r", (kept.at(-1) as { id: number }).id],
      };
    }
  }
  const after = from?.[0] === "c" && from.length === 6 ? (from.slice(1) as CitationKey) : undefined;
  const want = limit - relationshipRows.length;
  const citationRows = await suspectCitations(ex, workspaceId, { epicRowId, after, limit: want + 1 });
  const kept = citationRows.slice(0, want);
  const last = kept.at(-1);
  return {
    relationships: relationshipRows.map(strip),
    trace_citations: kept.map(strip),
    next:
      citationRows.length <= want
        ? undefined
        : last === undefined
          ? ["c"]
          : ["c", last.repository, last.file, last.line, last.reference_id, last.id],
  };
}
