/**
 * The database side of an export (issue 15): an `ExportSource` (core/interchange/formats.ts) over one
 * workspace or one epic, whose lists are read page by page in creation order (keyset on the row id), so an
 * export of 100,000 requirements holds one page at a time.
 *
 * Scope: an epic export holds the epic, its stories, their requirements and criteria, the relationships
 * with both ends among those requirements, and the comments on those entities.
 */
import { and, asc, eq, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type {
  CommentDoc,
  CriterionDoc,
  EpicDoc,
  RelationshipDoc,
  RequirementDoc,
  UserStoryDoc,
} from "../core/interchange/document.js";
import type { ExportSource } from "../core/interchange/formats.js";
import type { Executor } from "./database.js";
import { assignees, creators } from "./entity-support.js";
import { requireEpicRow } from "./epics.repo.js";
import { listRelationshipTypes, listRequirementTypes } from "./requirement-types.repo.js";
import {
  acceptanceCriteria,
  comments,
  epics,
  relationships,
  relationshipTypes,
  requirements,
  requirementTypes,
  userStories,
  users,
  workspaces,
} from "./schema.js";

const PAGE = 1000;

const parentEpics = alias(epics, "parent_epics");
const parentStories = alias(userStories, "parent_stories");
const sources = alias(requirements, "sources");
const targets = alias(requirements, "targets");
const resolvers = alias(users, "resolvers");

/** Reads `page(afterId)` until a short page, yielding each row. */
async function* paged<R extends { id: number }, T>(
  page: (afterId: number) => Promise<R[]>,
  map: (row: R) => T,
): AsyncIterable<T> {
  let after = 0;
  for (;;) {
    const rows = await page(after);
    for (const row of rows) yield map(row);
    if (rows.length < PAGE) return;
    after = (rows[rows.length - 1] as R).id;
  }
}

const attrs = (text: string | null) => (text === null ? null : (JSON.parse(text) as Record<string, never>));

/** Row → document item, in the document's key order (docs/interchange.md). */
function workItem<R extends Record<string, unknown>>(
  row: R,
  parent?: [string, unknown],
  extra?: [string, unknown],
) {
  return {
    reference_id: row.reference_id,
    ...(parent ? { [parent[0]]: parent[1] } : {}),
    external_id: row.external_id,
    attributes: attrs(row.attributes as string | null),
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    ...(extra ? { [extra[0]]: extra[1] } : {}),
    assignee: row.assignee,
    creator: row.creator,
    revision: row.revision,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface ExportScope {
  /** Reference id of the epic to export; the whole workspace when absent. */
  epic?: string;
  /** Include baselines (not yet: reserved; the document field stays absent). */
  now: Date;
}

export async function exportSource(
  ex: Executor,
  workspaceId: number,
  scope: ExportScope,
): Promise<ExportSource> {
  const ws = (await ex.select().from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1))[0];
  if (!ws) throw new Error(`workspace ${workspaceId} vanished`);
  const epicRowId =
    scope.epic === undefined ? undefined : (await requireEpicRow(ex, workspaceId, scope.epic)).id;
  const storyIds = (epic: number) =>
    sql`(SELECT ${userStories.id} FROM ${userStories} WHERE ${userStories.epicId} = ${epic})`;
  const requirementIds = (epic: number) =>
    sql`(SELECT ${requirements.id} FROM ${requirements} WHERE ${requirements.userStoryId} IN ${storyIds(epic)})`;
  const criterionIds = (epic: number) =>
    sql`(SELECT ${acceptanceCriteria.id} FROM ${acceptanceCriteria} WHERE ${acceptanceCriteria.userStoryId} IN ${storyIds(epic)})`;

  const epicRows = (where: SQL | undefined) =>
    paged(
      (after) =>
        ex
          .select({
            id: epics.id,
            reference_id: epics.referenceId,
            external_id: epics.externalId,
            attributes: epics.attributes,
            title: epics.title,
            description: epics.description,
            status: epics.status,
            priority: epics.priority,
            assignee: assignees.username,
            creator: creators.username,
            revision: epics.revision,
            created_at: epics.createdAt,
            updated_at: epics.updatedAt,
          })
          .from(epics)
          .leftJoin(assignees, eq(assignees.id, epics.assigneeId))
          .leftJoin(creators, eq(creators.id, epics.creatorId))
          .where(and(eq(epics.workspaceId, workspaceId), gt(epics.id, after), where))
          .orderBy(asc(epics.id))
          .limit(PAGE),
      (row) => workItem(row) as EpicDoc,
    );

  const storyRows = (where: SQL | undefined) =>
    paged(
      (after) =>
        ex
          .select({
            id: userStories.id,
            reference_id: userStories.referenceId,
            epic: parentEpics.referenceId,
            external_id: userStories.externalId,
            attributes: userStories.attributes,
            title: userStories.title,
            description: userStories.description,
            status: userStories.status,
            priority: userStories.priority,
            assignee: assignees.username,
            creator: creators.username,
            revision: userStories.revision,
            created_at: userStories.createdAt,
            updated_at: userStories.updatedAt,
          })
          .from(userStories)
          .innerJoin(parentEpics, eq(parentEpics.id, userStories.epicId))
          .leftJoin(assignees, eq(assignees.id, userStories.assigneeId))
          .leftJoin(creators, eq(creators.id, userStories.creatorId))
          .where(and(eq(userStories.workspaceId, workspaceId), gt(userStories.id, after), where))
          .orderBy(asc(userStories.id))
          .limit(PAGE),
      (row) => workItem(row, ["epic", row.epic]) as UserStoryDoc,
    );

  const requirementRows = (where: SQL | undefined) =>
    paged(
      (after) =>
        ex
          .select({
            id: requirements.id,
            reference_id: requirements.referenceId,
            user_story: parentStories.referenceId,
            external_id: requirements.externalId,
            attributes: requirements.attributes,
            title: requirements.title,
            description: requirements.description,
            status: requirements.status,
            priority: requirements.priority,
            type: requirementTypes.name,
            assignee: assignees.username,
            creator: creators.username,
            revision: requirements.revision,
            created_at: requirements.createdAt,
            updated_at: requirements.updatedAt,
          })
          .from(requirements)
          .innerJoin(parentStories, eq(parentStories.id, requirements.userStoryId))
          .innerJoin(requirementTypes, eq(requirementTypes.id, requirements.typeId))
          .leftJoin(assignees, eq(assignees.id, requirements.assigneeId))
          .leftJoin(creators, eq(creators.id, requirements.creatorId))
          .where(and(eq(requirements.workspaceId, workspaceId), gt(requirements.id, after), where))
          .orderBy(asc(requirements.id))
          .limit(PAGE),
      (row) => workItem(row, ["user_story", row.user_story], ["type", row.type]) as RequirementDoc,
    );

  const criterionRows = (where: SQL | undefined) =>
    paged(
      (after) =>
        ex
          .select({
            id: acceptanceCriteria.id,
            reference_id: acceptanceCriteria.referenceId,
            user_story: parentStories.referenceId,
            external_id: acceptanceCriteria.externalId,
            attributes: acceptanceCriteria.attributes,
            title: acceptanceCriteria.title,
            description: acceptanceCriteria.description,
            creator: creators.username,
            revision: acceptanceCriteria.revision,
            created_at: acceptanceCriteria.createdAt,
            updated_at: acceptanceCriteria.updatedAt,
          })
          .from(acceptanceCriteria)
          .innerJoin(parentStories, eq(parentStories.id, acceptanceCriteria.userStoryId))
          .leftJoin(creators, eq(creators.id, acceptanceCriteria.creatorId))
          .where(
            and(eq(acceptanceCriteria.workspaceId, workspaceId), gt(acceptanceCriteria.id, after), where),
          )
          .orderBy(asc(acceptanceCriteria.id))
          .limit(PAGE),
      (row): CriterionDoc => ({
        reference_id: row.reference_id,
        user_story: row.user_story,
        external_id: row.external_id,
        attributes: attrs(row.attributes),
        title: row.title,
        description: row.description,
        creator: row.creator,
        revision: row.revision,
        created_at: row.created_at,
        updated_at: row.updated_at,
      }),
    );

  const inEpic = <C extends Parameters<typeof eq>[0]>(column: C, ids: SQL) => sql`${column} IN ${ids}`;
  const scoped = {
    stories: epicRowId === undefined ? undefined : eq(userStories.epicId, epicRowId),
    requirements: epicRowId === undefined ? undefined : inEpic(requirements.userStoryId, storyIds(epicRowId)),
    criteria:
      epicRowId === undefined ? undefined : inEpic(acceptanceCriteria.userStoryId, storyIds(epicRowId)),
  };

  const header = {
    exported_at: scope.now.toISOString(),
    workspace: { slug: ws.slug, name: ws.name },
    scope:
      scope.epic === undefined ? { kind: "workspace" as const } : { kind: "epic" as const, epic: scope.epic },
    requirement_types: await listRequirementTypes(ex, workspaceId),
    relationship_types: await listRelationshipTypes(ex, workspaceId),
  };

  return {
    header,
    epics: () => epicRows(epicRowId === undefined ? undefined : eq(epics.id, epicRowId)),
    userStories: () => storyRows(scoped.stories),
    requirements: () => requirementRows(scoped.requirements),
    acceptanceCriteria: () => criterionRows(scoped.criteria),
    relationships: () =>
      paged(
        (after) =>
          ex
            .select({
              id: relationships.id,
              source: sources.referenceId,
              target: targets.referenceId,
              type: relationshipTypes.name,
              revision: relationships.revision,
              source_revision: sql<number>`coalesce(${relationships.sourceRevision}, 1)`,
              target_revision: sql<number>`coalesce(${relationships.targetRevision}, 1)`,
              creator: creators.username,
              created_at: relationships.createdAt,
            })
            .from(relationships)
            .innerJoin(sources, eq(sources.id, relationships.sourceRequirementId))
            .innerJoin(targets, eq(targets.id, relationships.targetRequirementId))
            .innerJoin(relationshipTypes, eq(relationshipTypes.id, relationships.typeId))
            .leftJoin(creators, eq(creators.id, relationships.creatorId))
            .where(
              and(
                eq(relationships.workspaceId, workspaceId),
                gt(relationships.id, after),
                epicRowId === undefined
                  ? undefined
                  : and(
                      inEpic(relationships.sourceRequirementId, requirementIds(epicRowId)),
                      inEpic(relationships.targetRequirementId, requirementIds(epicRowId)),
                    ),
              ),
            )
            .orderBy(asc(relationships.id))
            .limit(PAGE),
        ({ id: _id, ...link }): RelationshipDoc => link,
      ),
    comments: () =>
      paged(
        (after) =>
          ex
            .select({
              id: comments.id,
              kind: comments.entityKind,
              reference_id: comments.referenceId,
              revision: comments.revision,
              author: users.username,
              body: comments.text,
              created_at: comments.createdAt,
              resolved_at: comments.resolvedAt,
              resolved_by: resolvers.username,
            })
            .from(comments)
            .leftJoin(users, eq(users.id, comments.userId))
            .leftJoin(resolvers, eq(resolvers.id, comments.resolvedById))
            .where(
              and(
                eq(comments.workspaceId, workspaceId),
                gt(comments.id, after),
                inArray(comments.entityKind, ["epic", "user_story", "requirement", "acceptance_criterion"]),
                epicRowId === undefined
                  ? undefined
                  : or(
                      and(eq(comments.entityKind, "epic"), eq(comments.entityId, epicRowId)),
                      and(
                        eq(comments.entityKind, "user_story"),
                        inEpic(comments.entityId, storyIds(epicRowId)),
                      ),
                      and(
                        eq(comments.entityKind, "requirement"),
                        inEpic(comments.entityId, requirementIds(epicRowId)),
                      ),
                      and(
                        eq(comments.entityKind, "acceptance_criterion"),
                        inEpic(comments.entityId, criterionIds(epicRowId)),
                      ),
                    ),
              ),
            )
            .orderBy(asc(comments.id))
            .limit(PAGE),
        (c): CommentDoc => ({
          on: {
            kind: c.kind as CommentDoc["on"]["kind"],
            reference_id: c.reference_id,
            revision: c.revision,
          },
          author: c.author,
          body: c.body,
          created_at: c.created_at,
          resolved_at: c.resolved_at,
          resolved_by: c.resolved_by,
        }),
      ),
    userStoriesOf: (epic) => storyRows(eq(parentEpics.referenceId, epic)),
    requirementsOf: (story) => requirementRows(eq(parentStories.referenceId, story)),
    criteriaOf: (story) => criterionRows(eq(parentStories.referenceId, story)),
  };
}
