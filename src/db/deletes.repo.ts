/**
 * Deleting work items (issue item 18). A delete is refused while something still hangs on the entity
 * (stories under an epic, requirements and criteria under a story, a requirement outside the deleted set
 * that depends_on one inside it), naming what blocks; `cascade` deletes the whole subtree and the links
 * that touch it, and reports every id. Each delete runs inside the caller's one write transaction.
 *
 * Rows are removed explicitly, children first (not through ON DELETE CASCADE), so what is reported is what
 * was deleted, and each removed row (links included) first gets its `delete` revision in the same
 * transaction, so its history stays readable by its id; the FTS triggers (drizzle/0002) take every deleted entity out of the search index. Reference
 * ids are never reissued: the counters (counters.repo.ts) only grow.
 */
import { type SQL, sql } from "drizzle-orm";
import { DomainError } from "../core/errors.js";
import { criterionNotFound, criterionRowsIn, toCriterion } from "./acceptance-criteria.repo.js";
import type { Executor, Tx } from "./database.js";
import type { Actor } from "./entity-support.js";
import { epicRowsIn, requireEpicRow, toEpic } from "./epics.repo.js";
import { recordCascadedRelationshipDeletions } from "./relationships.repo.js";
import { requirementRowsIn, requireRequirementRow, toRequirement } from "./requirements.repo.js";
import { recordDeletions } from "./revisions.repo.js";
import { requireUserStoryRow, toUserStory, userStoryRowsIn } from "./user-stories.repo.js";

export interface DeletedRelationship {
  source_requirement_id: string;
  relationship_type: string;
  target_requirement_id: string;
}

/** Everything one delete removed, by kind, in creation order. */
export interface DeletedEntities {
  epics: string[];
  user_stories: string[];
  requirements: string[];
  acceptance_criteria: string[];
  relationships: DeletedRelationship[];
}

export interface DeleteResult {
  /** The entity the call named (also the audit target). */
  reference_id: string;
  deleted: DeletedEntities;
}

/** The rows a delete covers, each kind as a subquery of ids (so a story of 3,000 requirements binds no list). */
interface Scope {
  epics: SQL;
  stories: SQL;
  requirements: SQL;
  criteria: SQL;
}

const NONE = sql`SELECT NULL WHERE 0`;

type Ref = { id: number; reference_id: string };

async function refs(ex: Executor, table: string, workspaceId: number, ids: SQL): Promise<Ref[]> {
  const rows = await ex.all<Ref>(
    sql`SELECT id, reference_id FROM ${sql.identifier(table)} WHERE workspace_id = ${workspaceId} AND id IN (${ids}) ORDER BY id`,
  );
  return rows.map((r) => ({ id: Number(r.id), reference_id: String(r.reference_id) }));
}

/** Links with either end among `requirements`; `incomingDependsOnly`: only depends_on from outside them. */
async function links(
  ex: Executor,
  workspaceId: number,
  requirements: SQL,
  incomingDependsOnly: boolean,
): Promise<DeletedRelationship[]> {
  const which = incomingDependsOnly
    ? sql`l.target_requirement_id IN (${requirements}) AND l.source_requirement_id NOT IN (${requirements}) AND t.name = 'depends_on'`
    : sql`(l.source_requirement_id IN (${requirements}) OR l.target_requirement_id IN (${requirements}))`;
  return ex.all<DeletedRelationship>(sql`
    SELECT s.reference_id AS source_requirement_id, t.name AS relationship_type, d.reference_id AS target_requirement_id
    FROM relationships l
    JOIN requirements s ON s.id = l.source_requirement_id
    JOIN requirements d ON d.id = l.target_requirement_id
    JOIN relationship_types t ON t.id = l.type_id
    WHERE l.workspace_id = ${workspaceId} AND ${which}
    ORDER BY l.id`);
}

/** "3 user stories (US-001, US-002, US-003)": a count and the first ids. */
function counted(rows: { reference_id: string }[], one: string, many: string): string {
  const shown = rows.slice(0, 10).map((r) => r.reference_id);
  const more = rows.length > shown.length ? ", …" : "";
  return `${rows.length} ${rows.length === 1 ? one : many} (${shown.join(", ")}${more})`;
}

function linkText(l: DeletedRelationship): string {
  return `${l.source_requirement_id} ${l.relationship_type} ${l.target_requirement_id}`;
}

function refuse(what: string, blockers: string[], details: Record<string, unknown>, hint: string): never {
  throw DomainError.conflict(
    `${what} ${blockers.join(" and ")}; ${hint}, or pass cascade: true to delete everything under it as well.`,
    details,
  );
}

/** Incoming depends_on links from outside the deleted requirements block a delete unless it cascades. */
async function refuseDependents(
  ex: Executor,
  workspaceId: number,
  what: string,
  reference: string,
  scope: Scope,
): Promise<void> {
  const dependents = await links(ex, workspaceId, scope.requirements, true);
  if (dependents.length === 0) return;
  const shown = dependents.slice(0, 10).map(linkText).join(", ");
  const more = dependents.length > 10 ? ", …" : "";
  throw DomainError.conflict(
    `${what} is needed by ${dependents.length} depends_on ${dependents.length === 1 ? "link" : "links"} (${shown}${more}); ` +
      `remove ${dependents.length === 1 ? "it" : "them"} with delete_relationship first, or pass cascade: true to remove ${dependents.length === 1 ? "it" : "them"} with the delete.`,
    { reference_id: reference, blocking_relationships: dependents.slice(0, 50) },
  );
}

/**
 * Removes everything in `scope` (links, criteria, requirements, stories, epics) and reports it. Before the
 * DELETE statements, while the rows still exist, every removed row gets its `delete` revision with its last
 * state (one SELECT per kind and batched INSERTs, so a cascade over thousands of rows stays one quick write).
 */
async function remove(tx: Tx, workspaceId: number, scope: Scope, actor: Actor): Promise<DeletedEntities> {
  const [epics, stories, requirements, criteria, relationships] = [
    await epicRowsIn(tx, workspaceId, scope.epics),
    await userStoryRowsIn(tx, workspaceId, scope.stories),
    await requirementRowsIn(tx, workspaceId, scope.requirements),
    await criterionRowsIn(tx, workspaceId, scope.criteria),
    await links(tx, workspaceId, scope.requirements, false),
  ];
  await recordCascadedRelationshipDeletions(tx, workspaceId, scope.requirements, actor);
  await recordDeletions(tx, workspaceId, "acceptance_criterion", criteria, toCriterion, actor);
  await recordDeletions(tx, workspaceId, "requirement", requirements, toRequirement, actor);
  await recordDeletions(tx, workspaceId, "user_story", stories, toUserStory, actor);
  await recordDeletions(tx, workspaceId, "epic", epics, toEpic, actor);
  // Children first, each statement scoped to the workspace as well as to the subtree.
  await tx.run(sql`DELETE FROM relationships WHERE workspace_id = ${workspaceId}
    AND (source_requirement_id IN (${scope.requirements}) OR target_requirement_id IN (${scope.requirements}))`);
  for (const [table, ids] of [
    ["acceptance_criteria", scope.criteria],
    ["requirements", scope.requirements],
    ["user_stories", scope.stories],
    ["epics", scope.epics],
  ] as const) {
    await tx.run(
      sql`DELETE FROM ${sql.identifier(table)} WHERE workspace_id = ${workspaceId} AND id IN (${ids})`,
    );
  }
  const names = (rows: Ref[]) => rows.map((r) => r.reference_id);
  return {
    epics: names(epics),
    user_stories: names(stories),
    requirements: names(requirements),
    acceptance_criteria: names(criteria),
    relationships,
  };
}

function storyScope(stories: SQL): Omit<Scope, "epics"> {
  return {
    stories,
    requirements: sql`SELECT id FROM requirements WHERE user_story_id IN (${stories})`,
    criteria: sql`SELECT id FROM acceptance_criteria WHERE user_story_id IN (${stories})`,
  };
}

export async function deleteEpic(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  cascade: boolean,
  actor: Actor,
): Promise<DeleteResult> {
  const epic = await requireEpicRow(tx, workspaceId, referenceId);
  const stories = sql`SELECT id FROM user_stories WHERE workspace_id = ${workspaceId} AND epic_id = ${epic.id}`;
  const scope: Scope = { epics: sql`SELECT ${epic.id}`, ...storyScope(stories) };
  if (!cascade) {
    const children = await refs(tx, "user_stories", workspaceId, stories);
    if (children.length > 0) {
      refuse(
        `Epic ${referenceId} has`,
        [counted(children, "user story", "user stories")],
        { reference_id: referenceId, user_stories: children.length },
        "delete or move them first (delete_user_story, update_user_story with epic_id)",
      );
    }
  }
  return { reference_id: referenceId, deleted: await remove(tx, workspaceId, scope, actor) };
}

export async function deleteUserStory(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  cascade: boolean,
  actor: Actor,
): Promise<DeleteResult> {
  const story = await requireUserStoryRow(tx, workspaceId, referenceId);
  const scope: Scope = { epics: NONE, ...storyScope(sql`SELECT ${story.id}`) };
  if (!cascade) {
    const requirements = await refs(tx, "requirements", workspaceId, scope.requirements);
    const criteria = await refs(tx, "acceptance_criteria", workspaceId, scope.criteria);
    const blockers = [
      ...(requirements.length > 0 ? [counted(requirements, "requirement", "requirements")] : []),
      ...(criteria.length > 0 ? [counted(criteria, "acceptance criterion", "acceptance criteria")] : []),
    ];
    if (blockers.length > 0) {
      refuse(
        `User story ${referenceId} has`,
        blockers,
        {
          reference_id: referenceId,
          requirements: requirements.length,
          acceptance_criteria: criteria.length,
        },
        "delete or move them first (delete_requirement, delete_acceptance_criteria, update_requirement with user_story_id)",
      );
    }
  }
  return { reference_id: referenceId, deleted: await remove(tx, workspaceId, scope, actor) };
}

export async function deleteRequirement(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  cascade: boolean,
  actor: Actor,
): Promise<DeleteResult> {
  const requirement = await requireRequirementRow(tx, workspaceId, referenceId);
  const scope: Scope = {
    epics: NONE,
    stories: NONE,
    requirements: sql`SELECT ${requirement.id}`,
    criteria: NONE,
  };
  if (!cascade) await refuseDependents(tx, workspaceId, `Requirement ${referenceId}`, referenceId, scope);
  return { reference_id: referenceId, deleted: await remove(tx, workspaceId, scope, actor) };
}

export async function deleteAcceptanceCriterion(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  actor: Actor,
): Promise<DeleteResult> {
  const rows = await tx.all<{ id: number }>(
    sql`SELECT id FROM acceptance_criteria WHERE workspace_id = ${workspaceId} AND reference_id = ${referenceId}`,
  );
  const row = rows[0];
  if (!row) throw criterionNotFound(referenceId);
  const scope: Scope = {
    epics: NONE,
    stories: NONE,
    requirements: NONE,
    criteria: sql`SELECT ${Number(row.id)}`,
  };
  return { reference_id: referenceId, deleted: await remove(tx, workspaceId, scope, actor) };
}
