/**
 * Domain types of the hosted requirements store, as repositories return them and tools show them.
 * Field names are the wire names (snake_case): the spec's fields for requirements (reference_id, type_name,
 * creator_username, assignee_username, …) are used for every entity so a model meets one vocabulary.
 */
export const ENTITY_STATUSES = ["Backlog", "Draft", "In Progress", "Done", "Cancelled"] as const;
export const REQUIREMENT_STATUSES = ["Draft", "Active", "Obsolete"] as const;
export type EntityStatus = (typeof ENTITY_STATUSES)[number];
export type RequirementStatus = (typeof REQUIREMENT_STATUSES)[number];

/** 1 = Critical, 2 = High, 3 = Medium, 4 = Low. */
export type Priority = 1 | 2 | 3 | 4;
export const PRIORITY_NAMES: Record<number, string> = { 1: "Critical", 2: "High", 3: "Medium", 4: "Low" };
export const DEFAULT_PRIORITY = 3;
/** What an invalid priority is told (issue item 13: an argument error shows the scale). */
export const PRIORITY_SCALE_MESSAGE = `Priority is a whole number from 1 to 4: ${Object.entries(
  PRIORITY_NAMES,
)
  .map(([n, name]) => `${n} = ${name}`)
  .join(", ")}`;

export interface Epic extends InterchangeFields {
  reference_id: string;
  title: string;
  description: string;
  status: EntityStatus;
  priority: number;
  creator_username: string | null;
  assignee_username: string | null;
  /** 1 on create, +1 on every change: what history, baselines and approvals refer to. */
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface UserStory extends InterchangeFields {
  reference_id: string;
  /** Reference id of the epic it belongs to. */
  epic_id: string;
  title: string;
  description: string;
  status: EntityStatus;
  priority: number;
  creator_username: string | null;
  assignee_username: string | null;
  /** 1 on create, +1 on every change: what history, baselines and approvals refer to. */
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface Requirement extends InterchangeFields {
  reference_id: string;
  /** Reference id of the user story it belongs to. */
  user_story_id: string;
  title: string;
  description: string;
  status: RequirementStatus;
  priority: number;
  /** The requirement type's name, never its internal id (user-story spec, criterion 9). */
  type_name: string;
  creator_username: string | null;
  assignee_username: string | null;
  /** 1 on create, +1 on every change: what history, baselines and approvals refer to. */
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface AcceptanceCriterion extends InterchangeFields {
  reference_id: string;
  user_story_id: string;
  title: string;
  description: string;
  creator_username: string | null;
  /** 1 on create, +1 on every change: what history, baselines and approvals refer to. */
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface Relationship {
  source_requirement_id: string;
  target_requirement_id: string;
  relationship_type: string;
  creator_username: string | null;
  created_at: string;
  /** 1 on create, +1 on every confirmation. */
  revision: number;
  /** The revisions of the source and target when the link was created or last confirmed. */
  source_revision: number;
  target_revision: number;
  /** An end changed since: the link may no longer hold (confirm_relationship clears it). */
  suspect: boolean;
}

/**
 * Interchange fields (issue 15), present on an entity only when set: `external_id` is its identifier in
 * another tool (a ReqIF IDENTIFIER, a markdown requirement index); `attributes` holds the imported fields
 * reqlix has no column for, so nothing is lost.
 */
export interface InterchangeFields {
  external_id?: string;
  attributes?: Record<string, unknown>;
}

export interface NamedType {
  name: string;
  description: string;
}

/** Optional fields of an update: `undefined` leaves a field alone; `null` clears an optional one. */
export interface EntityPatch {
  title?: string;
  description?: string;
  priority?: number;
  assignee?: string | null;
  /** Refuse the update when the stored `updated_at` differs (someone else changed it meanwhile). */
  expected_updated_at?: string;
  /** null clears. */
  external_id?: string | null;
  /** Replaces the stored attributes; null (or an empty object) clears them. */
  attributes?: Record<string, unknown> | null;
}
