/**
 * What the entity repositories share: timestamps, optimistic concurrency, member lookup, list cursors,
 * and the core of the work items (epics, user stories, requirements): lookup-or-not_found, the duplicate
 * title check, the new row and the update's changes. Each entity passes its table and its own words.
 * Kept apart from any one aggregate so each `*.repo.ts` stays small.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { EntityPatch, InterchangeFields } from "../core/domain.js";
import { DomainError } from "../core/errors.js";
import type { Prefix } from "../core/references.js";
import { claimReference, nextReference } from "./counters.repo.js";
import type { Executor, Tx } from "./database.js";
import type { RevisionBatch } from "./revisions.repo.js";
import {
  type acceptanceCriteria,
  type epics,
  memberships,
  type requirements,
  type userStories,
  users,
} from "./schema.js";

export const creators = alias(users, "creators");

/** The stored form of the interchange fields: text columns, null when unset. */
export interface StoredInterchange {
  external_id: string | null;
  attributes: string | null;
}

/** The interchange fields as the tools show them: present only when set (`attributes` parsed). */
export function shownInterchange({ external_id, attributes }: StoredInterchange): InterchangeFields {
  return {
    ...(external_id !== null ? { external_id } : {}),
    ...(attributes !== null ? { attributes: JSON.parse(attributes) as Record<string, unknown> } : {}),
  };
}

/** The columns a create or update writes for the interchange fields (undefined leaves them alone). */
export function interchangeColumns(input: {
  external_id?: string | null;
  attributes?: Record<string, unknown> | null;
}): { externalId?: string | null; attributes?: string | null } {
  return {
    ...(input.external_id !== undefined ? { externalId: input.external_id } : {}),
    ...(input.attributes !== undefined
      ? {
          attributes:
            input.attributes === null || Object.keys(input.attributes).length === 0
              ? null
              : JSON.stringify(input.attributes),
        }
      : {}),
  };
}

type InterchangeTable = typeof epics | typeof userStories | typeof requirements | typeof acceptanceCriteria;

/** Refuses an external id another item of the same kind in the workspace already has (`exceptId`: this one). */
export async function refuseDuplicateExternalId(
  ex: Executor,
  table: InterchangeTable,
  workspaceId: number,
  externalId: string | null | undefined,
  exceptId?: number,
): Promise<void> {
  if (externalId === undefined || externalId === null) return;
  const rows = await ex
    .select({ id: table.id, reference_id: table.referenceId })
    .from(table)
    .where(and(eq(table.workspaceId, workspaceId), eq(table.externalId, externalId)))
    .limit(1);
  const other = rows[0];
  if (other && other.id !== exceptId) {
    throw DomainError.conflict(
      `${other.reference_id} already has external id "${externalId}"; an external id names one item per kind. Pass another external_id, or update ${other.reference_id} instead.`,
      { reference_id: other.reference_id },
    );
  }
}

/**
 * Where an imported entity comes from (interchange import): the identity it keeps. `reference_id` is kept
 * only when it was never used in this workspace (numbers are never reused); the rest is kept as given so
 * an export → import → export round trip is identity.
 */
export interface EntityOrigin {
  reference_id?: string;
  revision?: number;
  created_at?: string;
  updated_at?: string;
  /** The creator's user id (null: unknown). */
  creator_id?: number | null;
  /**
   * The caller (import) already allocated `reference_id` against the workspace's counter and history, and
   * advances the counter itself: it is used as is.
   */
  reference_allocated?: boolean;
}

/** The reference id a new entity gets: the origin's when it is free in this workspace, else the next one. */
export async function allocateReference(
  tx: Tx,
  workspaceId: number,
  prefix: Prefix,
  wanted: string | undefined,
  allocated = false,
): Promise<string> {
  if (wanted !== undefined && allocated) return wanted;
  if (wanted !== undefined && (await claimReference(tx, workspaceId, prefix, wanted))) return wanted;
  return nextReference(tx, workspaceId, prefix);
}
export const assignees = alias(users, "assignees");

/**
 * The workspace condition of a query. When a parent (story, epic) already narrows the rows, it is written
 * `+workspace_id = ?` so SQLite keeps using the parent's index instead of walking the whole workspace's
 * rows through the workspace index (the planner has no statistics to tell them apart).
 */
export function inWorkspace(column: SQLiteColumn, workspaceId: number, narrowedByParent: boolean): SQL {
  return narrowedByParent ? sql`+${column} = ${workspaceId}` : eq(column, workspaceId);
}

/** Who performs a write, and when. */
export interface Actor {
  userId: number;
  now: Date;
  /** Where the write came from and why: stored with the revision it appends (revisions.repo.ts). */
  change?: ChangeProvenance;
  /** Set by a bulk writer (import): revisions are collected and written in batches (revisions.repo.ts). */
  revisionBatch?: RevisionBatch;
}

/** The provenance a revision records besides its author and time. */
export interface ChangeProvenance {
  tokenId?: number;
  requestId?: string;
  /** The tool's name (or the API operation) that made the change. */
  tool?: string;
  /** Why: the caller's `change_note`. */
  changeNote?: string;
  /** Where the change came from: a URL, a meeting, a ticket id (the caller's `source`). */
  source?: string;
}

export function iso(date: Date): string {
  return date.toISOString();
}

/**
 * `updated_at` of a row being updated: the clock, but always after the stored value, so two updates in
 * the same millisecond still give different stamps and `expected_updated_at` keeps detecting stale writes.
 */
export function nextUpdatedAt(previous: string, now: Date): string {
  const prev = Date.parse(previous);
  const t = Number.isNaN(prev) || now.getTime() > prev ? now.getTime() : prev + 1;
  return new Date(t).toISOString();
}

/**
 * The lookup that throws: `find` when it finds the row, the entity's not_found error (naming the reference
 * id the caller passed) when it does not.
 */
export function requiredRow<R>(
  find: (ex: Executor, workspaceId: number, referenceId: string) => Promise<R | undefined>,
  notFound: (referenceId: string) => DomainError,
): (ex: Executor, workspaceId: number, referenceId: string) => Promise<R> {
  return async (ex, workspaceId, referenceId) => {
    const row = await find(ex, workspaceId, referenceId);
    if (!row) throw notFound(referenceId);
    return row;
  };
}

/** The work items (epics, user stories, requirements): titled, prioritised, assignable, revised. */
type WorkItemTable = typeof epics | typeof userStories | typeof requirements;

/**
 * Refuses a title another item in `scope` already has, in any case (`exceptId`: the item being renamed).
 * `scope` is the workspace for epics and the parent for stories and requirements; `message` says so in
 * the entity's own words and names the tool to update the existing one.
 */
export async function refuseDuplicateTitle(
  ex: Executor,
  table: WorkItemTable,
  scope: SQL | undefined,
  title: string,
  exceptId: number | undefined,
  message: (otherReferenceId: string) => string,
): Promise<void> {
  const rows = await ex
    .select({ id: table.id, reference_id: table.referenceId })
    .from(table)
    .where(and(scope, sql`lower(${table.title}) = lower(${title})`))
    .limit(2);
  const other = rows.find((r) => r.id !== exceptId);
  if (other) {
    throw DomainError.conflict(message(other.reference_id), { reference_id: other.reference_id });
  }
}

/** What a new work item's row always holds, after its title was checked; allocates its reference id. */
export async function newWorkItem<S extends string>(
  tx: Tx,
  workspaceId: number,
  prefix: Prefix,
  input: {
    title: string;
    description?: string;
    status?: S;
    assignee?: string;
    external_id?: string;
    attributes?: Record<string, unknown>;
    origin?: EntityOrigin;
  },
  actor: Actor,
) {
  const assigneeId =
    input.assignee === undefined ? null : await memberIdByUsername(tx, workspaceId, input.assignee);
  const { origin } = input;
  const referenceId = await allocateReference(
    tx,
    workspaceId,
    prefix,
    origin?.reference_id,
    origin?.reference_allocated,
  );
  const stamp = iso(actor.now);
  return {
    workspaceId,
    referenceId,
    title: input.title,
    description: input.description ?? "",
    ...(input.status ? { status: input.status } : {}),
    creatorId: origin?.creator_id !== undefined ? origin.creator_id : actor.userId,
    assigneeId,
    ...interchangeColumns(input),
    ...originStamps(origin, stamp),
  };
}

/** created_at, updated_at and revision of a new row: the origin's when given, else now and 1. */
export function originStamps(origin: EntityOrigin | undefined, stamp: string) {
  return {
    createdAt: origin?.created_at ?? stamp,
    updatedAt: origin?.updated_at ?? origin?.created_at ?? stamp,
    ...(origin?.revision !== undefined ? { revision: origin.revision } : {}),
  };
}

/** The columns a work item's patch changes (omitted fields stay as they are; an assignee resolves). */
export async function workItemChanges<S extends string>(
  ex: Executor,
  workspaceId: number,
  patch: EntityPatch & { status?: S },
) {
  return {
    ...interchangeColumns(patch),
    ...(patch.title !== undefined ? { title: patch.title } : {}),
    ...(patch.description !== undefined ? { description: patch.description } : {}),
    ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
    ...(await assigneePatch(ex, workspaceId, patch.assignee)),
  };
}

/** What every update writes besides its changes: the next revision and an `updated_at` after the stored one. */
export function nextRevision(revision: SQLiteColumn, previousUpdatedAt: string, now: Date) {
  return { revision: sql`${revision} + 1`, updatedAt: nextUpdatedAt(previousUpdatedAt, now) };
}

/** Refuses a write based on an outdated read (DESIGN: conflict → -32009). */
export function checkExpected(referenceId: string, stored: string, expected: string | undefined): void {
  if (expected === undefined || expected === stored) return;
  throw DomainError.conflict(
    `${referenceId} was changed by someone else (updated_at is now ${stored}, you expected ${expected}). ` +
      `Read it again, re-apply your change to the current version, and pass the new updated_at.`,
    { reference_id: referenceId, updated_at: stored },
  );
}

/** The id of a member of the workspace by username (case-insensitive); invalid_input naming `field` otherwise. */
export async function memberIdByUsername(
  ex: Executor,
  workspaceId: number,
  username: string,
  field = "assignee",
): Promise<number> {
  const rows = await ex
    .select({ id: users.id })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.workspaceId, workspaceId)))
    .where(sql`lower(${users.username}) = lower(${username})`)
    .limit(1);
  const id = rows[0]?.id;
  if (id === undefined) {
    throw DomainError.invalid(
      `No member of this workspace is called "${username}". Pass the username of a workspace member, or omit ${field}.`,
      [{ field, message: `unknown member "${username}"` }],
    );
  }
  return id;
}

/** `null` clears, `undefined` leaves alone, a username resolves to a member id. */
export async function assigneePatch(
  ex: Executor,
  workspaceId: number,
  assignee: string | null | undefined,
): Promise<{ assigneeId?: number | null }> {
  if (assignee === undefined) return {};
  if (assignee === null) return { assigneeId: null };
  return { assigneeId: await memberIdByUsername(ex, workspaceId, assignee) };
}

/** A page of a list and the cursor of the next page (absent on the last page). */
export interface Page<T> {
  items: T[];
  next_cursor?: string;
}

/**
 * List cursors are opaque to callers: base64url JSON of the last row id seen, tagged with the list they
 * belong to so a cursor from another list or filter is refused instead of silently misread.
 */
export function encodeCursor(tag: string, key: unknown): string {
  return toBase64Url(JSON.stringify({ t: tag, k: key }));
}

// Web APIs only (btoa/atob): the same code runs on Node and in workerd without Buffer.
function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function decodeCursor<K>(
  tag: string,
  cursor: string | undefined,
  isKey: (k: unknown) => k is K,
): K | undefined {
  if (cursor === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromBase64Url(cursor));
  } catch {
    parsed = undefined;
  }
  const obj = parsed as { t?: unknown; k?: unknown } | undefined;
  if (!obj || obj.t !== tag || !isKey(obj.k)) {
    throw DomainError.invalid(
      "This cursor does not belong to this list or these filters. Pass next_cursor exactly as the previous call returned it, with the same filters, or omit cursor to start over.",
      [{ field: "cursor", message: "not a cursor of this query" }],
    );
  }
  return obj.k;
}

export const isPositiveInt = (k: unknown): k is number =>
  typeof k === "number" && Number.isSafeInteger(k) && k > 0;

/** Builds a page from `limit + 1` rows fetched in key order. */
export function pageOf<R, T>(
  rows: R[],
  limit: number,
  map: (r: R) => T,
  key: (r: R) => unknown,
  tag: string,
): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return {
    items: kept.map(map),
    ...(more && last !== undefined ? { next_cursor: encodeCursor(tag, key(last)) } : {}),
  };
}
