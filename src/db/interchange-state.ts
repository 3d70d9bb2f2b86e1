/**
 * What an import compares a document with: the workspace's epics, stories, requirements, criteria,
 * relationships and comments, keyed by reference id and external id, plus its users and types. Read once
 * per plan, in the plan's transaction (apply) or read (dry run), with one query per kind.
 */
import { and, asc, eq } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Executor } from "./database.js";
import { assignees } from "./entity-support.js";
import {
  acceptanceCriteria,
  comments,
  epics,
  memberships,
  relationships,
  relationshipTypes,
  requirements,
  requirementTypes,
  userStories,
  users,
} from "./schema.js";

/** One stored entity as an import compares it. `parent` is the parent's reference id; `type` its type name. */
export interface StoredItem {
  reference_id: string;
  external_id: string | null;
  attributes: string | null;
  title: string;
  description: string;
  status?: string;
  priority?: number;
  assignee?: string | null;
  parent?: string;
  type?: string;
  revision: number;
}

export interface KindState {
  byReference: Map<string, StoredItem>;
  byExternal: Map<string, StoredItem>;
}

export interface WorkspaceState {
  epic: KindState;
  user_story: KindState;
  requirement: KindState;
  acceptance_criterion: KindState;
  /** `source type target` of every relationship. */
  relationships: Set<string>;
  /** `reference_id|created_at|author|text` of every comment. */
  comments: Set<string>;
  /** Lower-cased username → user id, for every user of the instance (creators and authors). */
  users: Map<string, number>;
  /** Lower-cased usernames of the workspace's members (assignees must be members). */
  members: Set<string>;
  /** Lower-cased type name → stored name. */
  requirementTypes: Map<string, string>;
  relationshipTypes: Map<string, string>;
}

export const relationshipKey = (source: string, type: string, target: string) =>
  `${source} ${type.toLowerCase()} ${target}`;
export const commentKey = (ref: string, createdAt: string, author: string | null, text: string) =>
  `${ref}|${createdAt}|${(author ?? "").toLowerCase()}|${text}`;

function kindState(rows: StoredItem[]): KindState {
  const state: KindState = { byReference: new Map(), byExternal: new Map() };
  for (const row of rows) {
    state.byReference.set(row.reference_id, row);
    if (row.external_id !== null) state.byExternal.set(row.external_id, row);
  }
  return state;
}

const parentEpics = alias(epics, "parent_epics");
const parentStories = alias(userStories, "parent_stories");
const sources = alias(requirements, "sources");
const targets = alias(requirements, "targets");

export async function loadWorkspaceState(ex: Executor, workspaceId: number): Promise<WorkspaceState> {
  const common = <
    T extends typeof epics | typeof userStories | typeof requirements | typeof acceptanceCriteria,
  >(
    t: T,
  ) => ({
    reference_id: t.referenceId,
    external_id: t.externalId,
    attributes: t.attributes,
    title: t.title,
    description: t.description,
    revision: t.revision,
  });
  const epicRows = await ex
    .select({
      ...common(epics),
      status: epics.status,
      priority: epics.priority,
      assignee: assignees.username,
    })
    .from(epics)
    .leftJoin(assignees, eq(assignees.id, epics.assigneeId))
    .where(eq(epics.workspaceId, workspaceId))
    .orderBy(asc(epics.id));
  const storyRows = await ex
    .select({
      ...common(userStories),
      status: userStories.status,
      priority: userStories.priority,
      assignee: assignees.username,
      parent: parentEpics.referenceId,
    })
    .from(userStories)
    .innerJoin(parentEpics, eq(parentEpics.id, userStories.epicId))
    .leftJoin(assignees, eq(assignees.id, userStories.assigneeId))
    .where(eq(userStories.workspaceId, workspaceId))
    .orderBy(asc(userStories.id));
  const requirementRows = await ex
    .select({
      ...common(requirements),
      status: requirements.status,
      priority: requirements.priority,
      assignee: assignees.username,
      parent: parentStories.referenceId,
      type: requirementTypes.name,
    })
    .from(requirements)
    .innerJoin(parentStories, eq(parentStories.id, requirements.userStoryId))
    .innerJoin(requirementTypes, eq(requirementTypes.id, requirements.typeId))
    .leftJoin(assignees, eq(assignees.id, requirements.assigneeId))
    .where(eq(requirements.workspaceId, workspaceId))
    .orderBy(asc(requirements.id));
  const criterionRows = await ex
    .select({ ...common(acceptanceCriteria), parent: parentStories.referenceId })
    .from(acceptanceCriteria)
    .innerJoin(parentStories, eq(parentStories.id, acceptanceCriteria.userStoryId))
    .where(eq(acceptanceCriteria.workspaceId, workspaceId))
    .orderBy(asc(acceptanceCriteria.id));
  const links = await ex
    .select({ source: sources.referenceId, target: targets.referenceId, type: relationshipTypes.name })
    .from(relationships)
    .innerJoin(sources, eq(sources.id, relationships.sourceRequirementId))
    .innerJoin(targets, eq(targets.id, relationships.targetRequirementId))
    .innerJoin(relationshipTypes, eq(relationshipTypes.id, relationships.typeId))
    .where(eq(relationships.workspaceId, workspaceId));
  const commentRows = await ex
    .select({
      ref: comments.referenceId,
      created_at: comments.createdAt,
      author: users.username,
      text: comments.text,
    })
    .from(comments)
    .leftJoin(users, eq(users.id, comments.userId))
    .where(eq(comments.workspaceId, workspaceId));
  const userRows = await ex.select({ id: users.id, username: users.username }).from(users);
  const memberRows = await ex
    .select({ username: users.username })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId)));
  const reqTypes = await ex
    .select({ name: requirementTypes.name })
    .from(requirementTypes)
    .where(eq(requirementTypes.workspaceId, workspaceId));
  const relTypes = await ex
    .select({ name: relationshipTypes.name })
    .from(relationshipTypes)
    .where(eq(relationshipTypes.workspaceId, workspaceId));
  return {
    epic: kindState(epicRows),
    user_story: kindState(storyRows),
    requirement: kindState(requirementRows),
    acceptance_criterion: kindState(criterionRows),
    relationships: new Set(links.map((l) => relationshipKey(l.source, l.type, l.target))),
    comments: new Set(commentRows.map((c) => commentKey(c.ref, c.created_at, c.author, c.text))),
    users: new Map(userRows.map((u) => [u.username.toLowerCase(), u.id])),
    members: new Set(memberRows.map((m) => m.username.toLowerCase())),
    requirementTypes: new Map(reqTypes.map((t) => [t.name.toLowerCase(), t.name])),
    relationshipTypes: new Map(relTypes.map((t) => [t.name.toLowerCase(), t.name])),
  };
}
