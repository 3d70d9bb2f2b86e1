/**
 * The creates of an import (issue 15), many rows per statement: an import of 100,000 requirements ran
 * five statements per item through the tools' create functions (parent, type and title lookups, the
 * insert, the row read back), most of its time spent building and parsing SQL.
 *
 * `BulkCreator` collects consecutive creates of one kind and writes them with one
 * `INSERT … SELECT … FROM json_each(?) … RETURNING id` per `ROWS` items: the SQL text is the same for any
 * batch (parsed once per batch, not built per row), the search index is filled by the tables' triggers as
 * for any insert, and the revision of each row is recorded from the row as sent and the id the insert
 * returns — no row is read back. The checks of the create functions hold the same way, per batch:
 *
 * - parents, types, assignees and usernames come from maps read once per import and extended with the rows
 *   this import creates; a name the maps lack goes to the repository's own lookup, which finds it or throws
 *   the tools' error;
 * - external ids are looked up for the whole batch (an index probe each) before the insert;
 * - a title taken in its scope (epic titles in the workspace, story titles in the epic, requirement titles
 *   in the story, any case by SQLite's `lower()`) is found in memory: each scope's titles are read once per
 *   import and extended by every create (and read again after an update). A clash is reported by the
 *   tools' own check, after the insert so that it also finds a clash within the batch, and the caller's
 *   transaction rolls everything back;
 * - a requirement created Active passes the approval gate (`checkActivation`) once per batch.
 *
 * The caller runs every other write (updates, relationships, comments) only after `flush()`, so each write
 * sees the rows created before it, in document order.
 */
import { eq, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { titleFromDescription, toCriterion } from "./acceptance-criteria.repo.js";
import type { Tx } from "./database.js";
import {
  type Actor,
  type EntityOrigin,
  interchangeColumns,
  iso,
  memberIdByUsername,
  originStamps,
  refuseDuplicateExternalId,
} from "./entity-support.js";
import { refuseDuplicateEpicTitle, requireEpicRow, toEpic } from "./epics.repo.js";
import { jsonRowsSelect } from "./json-rows.js";
import { requirementTypeId } from "./requirement-types.repo.js";
import { refuseDuplicateRequirementTitle, toRequirement } from "./requirements.repo.js";
import { checkActivation } from "./review.repo.js";
import { recordWrite } from "./revisions.repo.js";
import {
  acceptanceCriteria,
  epics,
  memberships,
  requirements,
  requirementTypes,
  userStories,
  users,
} from "./schema.js";
import { refuseDuplicateStoryTitle, requireUserStoryRow, toUserStory } from "./user-stories.repo.js";

export type BulkKind = "epic" | "user_story" | "requirement" | "acceptance_criterion";

/** One entity to create, in the create functions' terms (`NewEpic`, `NewRequirement`, …). */
export interface BulkCreate {
  kind: BulkKind;
  /** Already allocated (`referenceAllocator`). */
  referenceId: string;
  /** The parent's reference id: the epic of a story, the story of a requirement or criterion. */
  parent?: string;
  title: string;
  description: string;
  status?: string;
  priority?: number;
  /** A requirement's type, by its stored name. */
  type?: string;
  assignee?: string;
  external_id?: string;
  attributes?: Record<string, unknown>;
  origin: EntityOrigin;
}

/** Items per statement: one JSON parameter, so only the statement's size bounds it. */
const ROWS = 500;

const TABLES = {
  epic: { table: epics, name: "epics", parent: undefined },
  user_story: { table: userStories, name: "user_stories", parent: "epic_id" },
  requirement: { table: requirements, name: "requirements", parent: "user_story_id" },
  acceptance_criterion: { table: acceptanceCriteria, name: "acceptance_criteria", parent: "user_story_id" },
} as const;

/** The stored default of a column the item leaves out (the schema's `.default(…)`). */
const defaultOf = (column: SQLiteColumn) => column.default as string | number;

/** What an insert returns: the stored row. */
interface Inserted {
  id: number;
  reference_id: string;
  parent_id: number | null;
  type_id: number | null;
  title: string;
  description: string;
  status: string | null;
  priority: number | null;
  creator_id: number | null;
  assignee_id: number | null;
  revision: number;
  created_at: string;
  updated_at: string;
  external_id: string | null;
  attributes: string | null;
}

export class BulkCreator {
  private pending: BulkCreate[] = [];
  private epicIds: Map<string, number> | undefined;
  private storyIds: Map<string, number> | undefined;
  /** Lower-cased type name → row id and stored name. */
  private types: Map<string, { id: number; name: string }> | undefined;
  /** Lower-cased member username → user id. */
  private members: Map<string, number> | undefined;
  private readonly usernames = new Map<number, string>();
  /** Per title scope (the workspace, an epic's or a story's row id): its titles in SQL lower case. */
  private readonly titles = new Map<number, Set<string>>();

  constructor(
    private readonly tx: Tx,
    private readonly workspaceId: number,
    private readonly actor: Actor,
  ) {}

  async add(item: BulkCreate): Promise<void> {
    if (this.pending.length > 0 && this.pending[0]?.kind !== item.kind) await this.flush();
    this.pending.push(item);
    if (this.pending.length >= ROWS) await this.flush();
  }

  /** Writes what is pending. */
  async flush(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const kind = batch[0]?.kind as BulkKind;
    const parents = await this.parentIds(kind, batch);
    const typeIds = kind === "requirement" ? await this.typeIds(batch) : [];
    const assigneeIds = await this.assigneeIds(batch);
    await this.refuseTakenExternalIds(kind, batch);
    if (kind === "requirement" && batch.some((b) => b.status === "Active"))
      await checkActivation(this.tx, this.workspaceId, undefined, []);
    const taken = await this.firstTakenTitle(kind, batch, parents);
    const inserted = await this.insert(kind, batch, parents, typeIds, assigneeIds);
    if (taken !== -1) await this.refuseTakenTitle(kind, inserted[taken] as Inserted);
    await this.recordRevisions(kind, batch, inserted);
  }

  private async parentIds(kind: BulkKind, batch: BulkCreate[]): Promise<(number | null)[]> {
    if (kind === "epic") return batch.map(() => null);
    const ws = this.workspaceId;
    const ids = kind === "user_story" ? await this.epicMap() : await this.storyMap();
    const out: number[] = [];
    for (const item of batch) {
      const ref = item.parent as string;
      let id = ids.get(ref);
      if (id === undefined) {
        // Not seen yet: the repository's lookup finds it or throws the tools' not_found.
        id =
          kind === "user_story"
            ? (await requireEpicRow(this.tx, ws, ref)).id
            : (await requireUserStoryRow(this.tx, ws, ref)).id;
        ids.set(ref, id);
      }
      out.push(id);
    }
    return out;
  }

  private async epicMap(): Promise<Map<string, number>> {
    this.epicIds ??= await this.referenceMap(epics);
    return this.epicIds;
  }

  private async storyMap(): Promise<Map<string, number>> {
    this.storyIds ??= await this.referenceMap(userStories);
    return this.storyIds;
  }

  private async referenceMap(table: typeof epics | typeof userStories): Promise<Map<string, number>> {
    const rows = await this.tx
      .select({ id: table.id, ref: table.referenceId })
      .from(table)
      .where(eq(table.workspaceId, this.workspaceId));
    return new Map(rows.map((r) => [r.ref, r.id]));
  }

  private async typeIds(batch: BulkCreate[]): Promise<number[]> {
    const load = async () => {
      const rows = await this.tx
        .select({ id: requirementTypes.id, name: requirementTypes.name })
        .from(requirementTypes)
        .where(eq(requirementTypes.workspaceId, this.workspaceId));
      this.types = new Map(rows.map((r) => [r.name.toLowerCase(), r]));
      return this.types;
    };
    let types = this.types ?? (await load());
    const out: number[] = [];
    for (const item of batch) {
      const key = (item.type as string).toLowerCase();
      if (!types.has(key)) types = await load();
      const known = types.get(key);
      // Unknown: the repository's lookup throws the tools' error (the plan already refuses such files).
      out.push(known ? known.id : await requirementTypeId(this.tx, this.workspaceId, item.type as string));
    }
    return out;
  }

  private async assigneeIds(batch: BulkCreate[]): Promise<(number | null)[]> {
    if (!batch.some((b) => b.assignee !== undefined)) return batch.map(() => null);
    if (!this.members) {
      const rows = await this.tx
        .select({ id: users.id, username: users.username })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.workspaceId, this.workspaceId));
      this.members = new Map(rows.map((r) => [r.username.toLowerCase(), r.id]));
    }
    const out: (number | null)[] = [];
    for (const item of batch) {
      if (item.assignee === undefined) out.push(null);
      else
        out.push(
          this.members.get(item.assignee.toLowerCase()) ??
            (await memberIdByUsername(this.tx, this.workspaceId, item.assignee)),
        );
    }
    return out;
  }

  /** One index probe per external id of the batch; a taken one gets the tools' conflict. */
  private async refuseTakenExternalIds(kind: BulkKind, batch: BulkCreate[]): Promise<void> {
    const wanted = batch.flatMap((b) => (b.external_id ? [b.external_id] : []));
    if (wanted.length === 0) return;
    const { table, name } = TABLES[kind];
    const taken = await this.tx.all<{ external_id: string }>(
      sql`SELECT external_id FROM ${sql.identifier(name)} WHERE workspace_id = ${this.workspaceId}
        AND external_id IN (SELECT value FROM json_each(${JSON.stringify(wanted)})) LIMIT 1`,
    );
    const first = taken[0];
    if (first) await refuseDuplicateExternalId(this.tx, table, this.workspaceId, first.external_id);
  }

  private async insert(
    kind: BulkKind,
    batch: BulkCreate[],
    parents: (number | null)[],
    typeIds: number[],
    assigneeIds: (number | null)[],
  ): Promise<Inserted[]> {
    const { table, name, parent } = TABLES[kind];
    const stamp = iso(this.actor.now);
    const criterion = kind === "acceptance_criterion";
    const rows = batch.map((item, i) => {
      const stamps = originStamps(item.origin, stamp);
      const columns = interchangeColumns(item);
      return [
        item.referenceId,
        parents[i] ?? null,
        typeIds[i] ?? null,
        criterion ? (item.title ?? titleFromDescription(item.description)) : item.title,
        item.description,
        criterion ? null : (item.status ?? defaultOf((table as typeof epics).status)),
        criterion ? null : (item.priority ?? defaultOf((table as typeof epics).priority)),
        item.origin.creator_id !== undefined ? item.origin.creator_id : this.actor.userId,
        assigneeIds[i] ?? null,
        stamps.revision ?? defaultOf(table.revision),
        stamps.createdAt,
        stamps.updatedAt,
        columns.externalId ?? null,
        columns.attributes ?? null,
      ];
    });
    // The kind's own columns only: stories have no type, criteria no status, priority or assignee.
    const own = [
      ["reference_id", 0],
      ...(parent ? [[parent, 1]] : []),
      ...(kind === "requirement" ? [["type_id", 2]] : []),
      ["title", 3],
      ["description", 4],
      ...(criterion
        ? []
        : [
            ["status", 5],
            ["priority", 6],
          ]),
      ["creator_id", 7],
      ...(criterion ? [] : [["assignee_id", 8]]),
      ["revision", 9],
      ["created_at", 10],
      ["updated_at", 11],
      ["external_id", 12],
      ["attributes", 13],
    ] as [string, number][];
    const inserted = await this.tx.all<{ id: number; reference_id: string }>(
      sql`INSERT INTO ${sql.identifier(name)} (workspace_id, ${sql.raw(own.map(([c]) => c).join(", "))})
        ${jsonRowsSelect(rows.map((row) => [this.workspaceId, ...own.map(([, i]) => row[i] ?? null)]))}
        RETURNING id, reference_id`,
    );
    // RETURNING gives rows in no promised order: match them to the batch by reference id. The stored row is
    // what was sent (every column is given, none computed), so only its id is read back.
    const ids = new Map(inserted.map((r) => [r.reference_id, r.id]));
    const ordered = rows.map((row): Inserted => {
      const id = ids.get(row[0] as string);
      if (id === undefined) throw new Error(`${row[0]} was not inserted`);
      return {
        id,
        reference_id: row[0] as string,
        parent_id: row[1] as number | null,
        type_id: row[2] as number | null,
        title: row[3] as string,
        description: row[4] as string,
        status: row[5] as string | null,
        priority: row[6] as number | null,
        creator_id: row[7] as number | null,
        assignee_id: (criterion ? null : row[8]) as number | null,
        revision: row[9] as number,
        created_at: row[10] as string,
        updated_at: row[11] as string,
        external_id: row[12] as string | null,
        attributes: row[13] as string | null,
      };
    });
    if (kind === "epic" && this.epicIds) for (const r of ordered) this.epicIds.set(r.reference_id, r.id);
    if (kind === "user_story" && this.storyIds)
      for (const r of ordered) this.storyIds.set(r.reference_id, r.id);
    return ordered;
  }

  /**
   * The first item of the batch whose title its scope already has (stored, created earlier by this
   * import, or earlier in the batch), in SQLite's `lower()` as the tools compare; -1 when none. Each
   * scope's titles are read once per import and extended by every create.
   */
  private async firstTakenTitle(
    kind: BulkKind,
    batch: BulkCreate[],
    parents: (number | null)[],
  ): Promise<number> {
    if (kind === "acceptance_criterion") return -1;
    const column = TABLES[kind].parent ?? "workspace_id";
    const scopes = batch.map((_, i) => parents[i] ?? this.workspaceId);
    const unread = [...new Set(scopes)].filter((s) => !this.titles.has(s));
    if (unread.length > 0) {
      const rows = await this.tx.all<{ scope: number; title: string }>(
        sql`SELECT ${sql.raw(column)} AS scope, lower(title) AS title FROM ${sql.identifier(TABLES[kind].name)}
          WHERE ${sql.raw(column)} IN (SELECT value FROM json_each(${JSON.stringify(unread)}))`,
      );
      for (const scope of unread) this.titles.set(scope, new Set());
      for (const r of rows) this.titles.get(r.scope)?.add(r.title);
    }
    const lowered = await this.tx.all<{ title: string }>(
      sql`SELECT lower(value) AS title FROM json_each(${JSON.stringify(batch.map((b) => b.title))}) ORDER BY key`,
    );
    let first = -1;
    lowered.forEach((l, i) => {
      const titles = this.titles.get(scopes[i] as number) as Set<string>;
      if (first === -1 && titles.has(l.title)) first = i;
      titles.add(l.title);
    });
    return first;
  }

  /** The tools' check on the item `firstTakenTitle` found, after the insert: it throws the tools' conflict. */
  private async refuseTakenTitle(kind: BulkKind, row: Inserted): Promise<never> {
    const ws = this.workspaceId;
    if (kind === "epic") await refuseDuplicateEpicTitle(this.tx, ws, row.title, row.id);
    else if (kind === "user_story")
      await refuseDuplicateStoryTitle(this.tx, ws, row.parent_id as number, row.title, row.id);
    else await refuseDuplicateRequirementTitle(this.tx, ws, row.parent_id as number, row.title, row.id);
    throw new Error(`duplicate title "${row.title}" was not refused`);
  }

  /** Another write (an update) may rename or move items: titles are read again where needed. */
  forgetTitles(): void {
    this.titles.clear();
  }

  private async usernamesOf(ids: (number | null)[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id): id is number => id !== null && !this.usernames.has(id));
    if (missing.length === 0) return;
    const rows = await this.tx.all<{ id: number; username: string }>(
      sql`SELECT id, username FROM users WHERE id IN (SELECT value FROM json_each(${JSON.stringify(missing)}))`,
    );
    for (const r of rows) this.usernames.set(r.id, r.username);
  }

  /** Each row's revision, from the row as stored (sent, with its returned id), as the tools show the entity. */
  private async recordRevisions(kind: BulkKind, batch: BulkCreate[], inserted: Inserted[]): Promise<void> {
    await this.usernamesOf(inserted.flatMap((r) => [r.creator_id, r.assignee_id]));
    const name = (id: number | null) => (id === null ? null : (this.usernames.get(id) ?? null));
    const typeName = new Map([...(this.types?.values() ?? [])].map((t) => [t.id, t.name]));
    const ws = this.workspaceId;
    for (let i = 0; i < inserted.length; i++) {
      const r = inserted[i] as Inserted;
      const parent = (batch[i] as BulkCreate).parent as string;
      const common = { id: r.id, reference_id: r.reference_id };
      const tail = {
        revision: r.revision,
        created_at: r.created_at,
        updated_at: r.updated_at,
        external_id: r.external_id,
        attributes: r.attributes,
      };
      const work = {
        title: r.title,
        description: r.description,
        status: r.status as never,
        priority: r.priority as number,
      };
      const people = { creator_username: name(r.creator_id), assignee_username: name(r.assignee_id) };
      // Key order as the repositories' selects give it: the snapshot is the entity as the tools show it.
      if (kind === "epic")
        await recordWrite(
          this.tx,
          ws,
          kind,
          "create",
          { ...common, ...work, ...people, ...tail },
          toEpic,
          this.actor,
        );
      else if (kind === "user_story")
        await recordWrite(
          this.tx,
          ws,
          kind,
          "create",
          {
            id: r.id,
            epic_row_id: r.parent_id as number,
            reference_id: r.reference_id,
            epic_id: parent,
            ...work,
            ...people,
            ...tail,
          },
          toUserStory,
          this.actor,
        );
      else if (kind === "requirement")
        await recordWrite(
          this.tx,
          ws,
          kind,
          "create",
          {
            id: r.id,
            story_row_id: r.parent_id as number,
            reference_id: r.reference_id,
            user_story_id: parent,
            ...work,
            type_name: typeName.get(r.type_id as number) as string,
            ...people,
            ...tail,
          },
          toRequirement,
          this.actor,
        );
      else
        await recordWrite(
          this.tx,
          ws,
          kind,
          "create",
          {
            ...common,
            user_story_id: parent,
            title: r.title,
            description: r.description,
            creator_username: name(r.creator_id),
            ...tail,
          },
          toCriterion,
          this.actor,
        );
    }
  }
}
