/**
 * The database side of an export (issue 15): an `ExportSource` (core/interchange/formats.ts) over one
 * workspace or one epic, whose lists are read page by page in creation order (keyset on the row id), so an
 * export of 100,000 requirements holds one page at a time.
 *
 * Scope: an epic export holds the epic, its stories, their requirements and criteria, the relationships
 * with both ends among those requirements, and the comments on those entities.
 */
import { and, asc, eq, gt, inArray, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
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

/**
 * A document item built by SQLite as JSON text (`json_object`, keys in the document's order, attributes
 * embedded with `json()`): byte for byte what `JSON.stringify` gives of the item (same escapes), one text
 * column per row. Reading 15 columns per row through the client and drizzle cost most of an export; the
 * JSON export writes the text as it is, the other formats `JSON.parse` it.
 */
function jsonObject(fields: [string, SQLWrapper][]): SQL<string> {
  return sql<string>`json_object(${sql.join(
    fields.map(([key, value]) => sql`${key}, ${value}`),
    sql`, `,
  )})`;
}

/** The fields of an epic, story or requirement in the document's key order (docs/interchange.md). */
function workItem(
  t: typeof epics | typeof userStories | typeof requirements,
  parent?: [string, SQLWrapper],
  extra?: [string, SQLWrapper],
): SQL<string> {
  return jsonObject([
    ["reference_id", t.referenceId],
    ...(parent ? [parent] : []),
    ["external_id", t.externalId],
    ["attributes", sql`json(${t.attributes})`],
    ["title", t.title],
    ["description", t.description],
    ["status", t.status],
    ["priority", t.priority],
    ...(extra ? [extra] : []),
    ["assignee", assignees.username],
    ["creator", creators.username],
    ["revision", t.revision],
    ["created_at", t.createdAt],
    ["updated_at", t.updatedAt],
  ]);
}

/** A page of items as JSON text. */
type JsonPage = (afterId: number) => Promise<{ id: number; json: string }[]>;
const parsed = <T>(row: { json: string }) => JSON.parse(row.json) as T;
const text = (row: { json: string }) => row.json;

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

  const epicRows =
    (where: SQL | undefined): JsonPage =>
    (after) =>
      ex
        .select({ id: epics.id, json: workItem(epics) })
        .from(epics)
        .leftJoin(assignees, eq(assignees.id, epics.assigneeId))
        .leftJoin(creators, eq(creators.id, epics.creatorId))
        .where(and(eq(epics.workspaceId, workspaceId), gt(epics.id, after), where))
        .orderBy(asc(epics.id))
        .limit(PAGE);

  const storyRows =
    (where: SQL | undefined): JsonPage =>
    (after) =>
      ex
        .select({ id: userStories.id, json: workItem(userStories, ["epic", parentEpics.referenceId]) })
        .from(userStories)
        .innerJoin(parentEpics, eq(parentEpics.id, userStories.epicId))
        .leftJoin(assignees, eq(assignees.id, userStories.assigneeId))
        .leftJoin(creators, eq(creators.id, userStories.creatorId))
        .where(and(eq(userStories.workspaceId, workspaceId), gt(userStories.id, after), where))
        .orderBy(asc(userStories.id))
        .limit(PAGE);

  const requirementRows =
    (where: SQL | undefined): JsonPage =>
    (after) =>
      ex
        .select({
          id: requirements.id,
          json: workItem(
            requirements,
            ["user_story", parentStories.referenceId],
            ["type", requirementTypes.name],
          ),
        })
        .from(requirements)
        .innerJoin(parentStories, eq(parentStories.id, requirements.userStoryId))
        .innerJoin(requirementTypes, eq(requirementTypes.id, requirements.typeId))
        .leftJoin(assignees, eq(assignees.id, requirements.assigneeId))
        .leftJoin(creators, eq(creators.id, requirements.creatorId))
        .where(and(eq(requirements.workspaceId, workspaceId), gt(requirements.id, after), where))
        .orderBy(asc(requirements.id))
        .limit(PAGE);

  const criterionRows =
    (where: SQL | undefined): JsonPage =>
    (after) =>
      ex
        .select({
          id: acceptanceCriteria.id,
          json: jsonObject([
            ["reference_id", acceptanceCriteria.referenceId],
            ["user_story", parentStories.referenceId],
            ["external_id", acceptanceCriteria.externalId],
            ["attributes", sql`json(${acceptanceCriteria.attributes})`],
            ["title", acceptanceCriteria.title],
            ["description", acceptanceCriteria.description],
            ["creator", creators.username],
            ["revision", acceptanceCriteria.revision],
            ["created_at", acceptanceCriteria.createdAt],
            ["updated_at", acceptanceCriteria.updatedAt],
          ]),
        })
        .from(acceptanceCriteria)
        .innerJoin(parentStories, eq(parentStories.id, acceptanceCriteria.userStoryId))
        .leftJoin(creators, eq(creators.id, acceptanceCriteria.creatorId))
        .where(and(eq(acceptanceCriteria.workspaceId, workspaceId), gt(acceptanceCriteria.id, after), where))
        .orderBy(asc(acceptanceCriteria.id))
        .limit(PAGE);

  const relationshipRows: JsonPage = (after) =>
    ex
      .select({
        id: relationships.id,
        json: jsonObject([
          ["source", sources.referenceId],
          ["target", targets.referenceId],
          ["type", relationshipTypes.name],
          ["revision", relationships.revision],
          ["source_revision", sql`coalesce(${relationships.sourceRevision}, 1)`],
          ["target_revision", sql`coalesce(${relationships.targetRevision}, 1)`],
          ["creator", creators.username],
          ["created_at", relationships.createdAt],
        ]),
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
      .limit(PAGE);

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

  const lists = {
    epics: epicRows(epicRowId === undefined ? undefined : eq(epics.id, epicRowId)),
    userStories: storyRows(scoped.stories),
    requirements: requirementRows(scoped.requirements),
    acceptanceCriteria: criterionRows(scoped.criteria),
  };

  return {
    header,
    epics: () => paged(lists.epics, parsed<EpicDoc>),
    userStories: () => paged(lists.userStories, parsed<UserStoryDoc>),
    requirements: () => paged(lists.requirements, parsed<RequirementDoc>),
    acceptanceCriteria: () => paged(lists.acceptanceCriteria, parsed<CriterionDoc>),
    relationships: () => paged(relationshipRows, parsed<RelationshipDoc>),
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
    json: {
      epics: () => paged(lists.epics, text),
      userStories: () => paged(lists.userStories, text),
      requirements: () => paged(lists.requirements, text),
      acceptanceCriteria: () => paged(lists.acceptanceCriteria, text),
      relationships: () => paged(relationshipRows, text),
    },
    userStoriesOf: (epic) => paged(storyRows(eq(parentEpics.referenceId, epic)), parsed<UserStoryDoc>),
    requirementsOf: (story) =>
      paged(requirementRows(eq(parentStories.referenceId, story)), parsed<RequirementDoc>),
    criteriaOf: (story) => paged(criterionRows(eq(parentStories.referenceId, story)), parsed<CriterionDoc>),
  };
}
