/**
 * The hosted data model (DESIGN "Hosted data model"), one drizzle schema for Node and Workers.
 *
 * Conventions, so every repository reads the same:
 * - Primary keys are integer `id`s (SQLite rowids). Reference ids (`EP-001`) are stored, never derived,
 *   unique per workspace, allocated by `counters.repo.ts` and never reused.
 * - Every domain row carries `workspace_id`; every query filters by it.
 * - Timestamps are ISO-8601 UTC strings with milliseconds (`2026-01-02T03:04:05.678Z`): readable in the
 *   database, identical on every runtime, and they sort lexically in time order.
 * - Booleans are integers 0/1 (`mode: "boolean"`).
 * - Full-text search (FTS5 + triggers) lives in a custom migration, not here: `search_fts` over the four
 *   entity kinds, `search_titles` over their reference ids and titles alone, and `docset_pages_fts` over
 *   docset pages (drizzle/0001, 0010, 0017; the queries are db/search*.ts).
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ENTITY_STATUSES, REQUIREMENT_STATUSES } from "../core/domain.js";
import { ROLES } from "../core/roles.js";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;
const createdAt = () => text("created_at").notNull().default(now);
const updatedAt = () => text("updated_at").notNull().default(now);
/**
 * Interchange (issue 15): an imported item's identifier elsewhere (a ReqIF IDENTIFIER, a markdown
 * requirement index), unique per workspace and kind when set; and the fields reqlix has no column for, as
 * a JSON object, so an import loses nothing.
 */
const externalId = () => text("external_id");
const attributes = () => text("attributes");

// ---------------------------------------------------------------------------------------------------------
// Tenancy and access
// ---------------------------------------------------------------------------------------------------------

export const workspaces = sqliteTable("workspaces", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** `[a-z0-9][a-z0-9-]*`, used in URLs and the admin API. */
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  username: text("username").notNull().unique(),
  /** The first user created at bootstrap: may administer every workspace. */
  isOwner: integer("is_owner", { mode: "boolean" }).notNull().default(false),
  createdAt: createdAt(),
});

export const memberships = sqliteTable(
  "memberships",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** viewer | editor | admin (src/core/roles.ts). */
    role: text("role", { enum: ROLES }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("memberships_workspace_user").on(t.workspaceId, t.userId)],
);

export const tokens = sqliteTable(
  "tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Hex SHA-256 of the whole token (`rqx_…`). The token itself is never stored. */
    tokenHash: text("token_hash").notNull().unique(),
    name: text("name").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** Optional ceiling: the token acts with min(member role, ceiling). Null = the member's role. */
    roleCeiling: text("role_ceiling", { enum: ROLES }),
    /**
     * Who minted the token: the admin's user id over the admin API, null when the admin CLI (local access to
     * the database) or bootstrap made it. Kept for the audit trail; it grants nothing.
     */
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
  },
  (t) => [
    index("tokens_workspace").on(t.workspaceId),
    // A holder's tokens in one workspace, newest first (list_my_tokens pages by id); user first for cascades.
    index("tokens_user_workspace").on(t.userId, t.workspaceId, t.id),
  ],
);

/** Per-workspace settings as key/value text (e.g. `docs_root`). */
export const workspaceSettings = sqliteTable(
  "workspace_settings",
  {
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    value: text("value").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.key] })],
);

/** Last allocated number per workspace and prefix (EP, US, REQ, AC). Only ever grows. */
export const referenceCounters = sqliteTable(
  "reference_counters",
  {
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    lastValue: integer("last_value").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.prefix] })],
);

// ---------------------------------------------------------------------------------------------------------
// Types (per workspace; seeded when a workspace is created, managed by its admins)
// ---------------------------------------------------------------------------------------------------------

export const requirementTypes = sqliteTable(
  "requirement_types",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("requirement_types_workspace_name").on(t.workspaceId, t.name)],
);

export const relationshipTypes = sqliteTable(
  "relationship_types",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** snake_case: depends_on, blocks, relates_to, conflicts_with, derives_from, … */
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("relationship_types_workspace_name").on(t.workspaceId, t.name)],
);

// ---------------------------------------------------------------------------------------------------------
// Entities: epics → user stories → requirements, acceptance criteria; relationships between requirements
// ---------------------------------------------------------------------------------------------------------

export const epics = sqliteTable(
  "epics",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    referenceId: text("reference_id").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: ENTITY_STATUSES }).notNull().default("Backlog"),
    /** 1 = Critical … 4 = Low. */
    priority: integer("priority").notNull().default(3),
    creatorId: integer("creator_id").references(() => users.id),
    assigneeId: integer("assignee_id").references(() => users.id),
    /** Incremented on every update; lets a caller detect a stale write (conflict). */
    externalId: externalId(),
    attributes: attributes(),
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("epics_workspace_external")
      .on(t.workspaceId, t.externalId)
      .where(sql`${t.externalId} IS NOT NULL`),
    uniqueIndex("epics_workspace_reference").on(t.workspaceId, t.referenceId),
  ],
);

export const userStories = sqliteTable(
  "user_stories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    referenceId: text("reference_id").notNull(),
    epicId: integer("epic_id")
      .notNull()
      .references(() => epics.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: ENTITY_STATUSES }).notNull().default("Backlog"),
    priority: integer("priority").notNull().default(3),
    creatorId: integer("creator_id").references(() => users.id),
    assigneeId: integer("assignee_id").references(() => users.id),
    externalId: externalId(),
    attributes: attributes(),
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("user_stories_workspace_external")
      .on(t.workspaceId, t.externalId)
      .where(sql`${t.externalId} IS NOT NULL`),
    uniqueIndex("user_stories_workspace_reference").on(t.workspaceId, t.referenceId),
    index("user_stories_epic").on(t.epicId),
    // Lists page a workspace's rows in id order: (workspace_id, rowid) serves them without a sort.
    index("user_stories_workspace").on(t.workspaceId),
  ],
);

export const requirements = sqliteTable(
  "requirements",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    referenceId: text("reference_id").notNull(),
    userStoryId: integer("user_story_id")
      .notNull()
      .references(() => userStories.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: REQUIREMENT_STATUSES }).notNull().default("Draft"),
    priority: integer("priority").notNull().default(3),
    typeId: integer("type_id")
      .notNull()
      .references(() => requirementTypes.id),
    creatorId: integer("creator_id").references(() => users.id),
    assigneeId: integer("assignee_id").references(() => users.id),
    externalId: externalId(),
    attributes: attributes(),
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("requirements_workspace_external")
      .on(t.workspaceId, t.externalId)
      .where(sql`${t.externalId} IS NOT NULL`),
    uniqueIndex("requirements_workspace_reference").on(t.workspaceId, t.referenceId),
    index("requirements_user_story").on(t.userStoryId),
    index("requirements_workspace").on(t.workspaceId),
  ],
);

export const acceptanceCriteria = sqliteTable(
  "acceptance_criteria",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    referenceId: text("reference_id").notNull(),
    userStoryId: integer("user_story_id")
      .notNull()
      .references(() => userStories.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    creatorId: integer("creator_id").references(() => users.id),
    externalId: externalId(),
    attributes: attributes(),
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("acceptance_criteria_workspace_external")
      .on(t.workspaceId, t.externalId)
      .where(sql`${t.externalId} IS NOT NULL`),
    uniqueIndex("acceptance_criteria_workspace_reference").on(t.workspaceId, t.referenceId),
    index("acceptance_criteria_user_story").on(t.userStoryId),
  ],
);

export const relationships = sqliteTable(
  "relationships",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    sourceRequirementId: integer("source_requirement_id")
      .notNull()
      .references(() => requirements.id, { onDelete: "cascade" }),
    targetRequirementId: integer("target_requirement_id")
      .notNull()
      .references(() => requirements.id, { onDelete: "cascade" }),
    typeId: integer("type_id")
      .notNull()
      .references(() => relationshipTypes.id),
    creatorId: integer("creator_id").references(() => users.id),
    createdAt: createdAt(),
    /** Bumped by confirm_relationship; numbers the relationship's own revisions (history). */
    revision: integer("revision").notNull().default(1),
    /**
     * The revisions of both ends when the link was created or last confirmed: when an end's revision has
     * moved on since, the link is suspect (it may no longer hold). Null: created before change control,
     * treated as confirmed at revision 1.
     */
    sourceRevision: integer("source_revision"),
    targetRevision: integer("target_revision"),
  },
  (t) => [
    uniqueIndex("relationships_unique").on(
      t.workspaceId,
      t.sourceRequirementId,
      t.targetRequirementId,
      t.typeId,
    ),
    index("relationships_target").on(t.targetRequirementId),
    // list_suspect_links pages a workspace's links by id.
    index("relationships_workspace_id").on(t.workspaceId, t.id),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// Docsets (hosted documentation sets) and their pages
// ---------------------------------------------------------------------------------------------------------

export const docsets = sqliteTable(
  "docsets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** `[a-z0-9][a-z0-9._-]*` */
    name: text("name").notNull(),
    version: text("version").notNull().default(""),
    /** JSON array of strings. */
    aliases: text("aliases", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    description: text("description").notNull().default(""),
    /** Optional search-instructions template (single-brace variables, knowledge spec). */
    template: text("template"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("docsets_workspace_name").on(t.workspaceId, t.name)],
);

export const docsetPages = sqliteTable(
  "docset_pages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    docsetId: integer("docset_id")
      .notNull()
      .references(() => docsets.id, { onDelete: "cascade" }),
    /** Relative path inside the docset, `/`-separated (e.g. `guide/intro.md`). */
    path: text("path").notNull(),
    title: text("title").notNull().default(""),
    /** Markdown. */
    content: text("content").notNull().default(""),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("docset_pages_docset_path").on(t.docsetId, t.path),
    index("docset_pages_workspace").on(t.workspaceId),
  ],
);

// ---------------------------------------------------------------------------------------------------------
// Traceability: snapshots of the reference ids cited in a repository's code, tests and commits
// ---------------------------------------------------------------------------------------------------------

/**
 * One scan of one commit of one repository (`POST /api/v1/traces`). Unique per workspace, repository and
 * commit: a re-push of the same commit replaces its rows in place (same id). "Latest" means highest id; at
 * most 50 are kept per repository (older ones are pruned by the push that makes room).
 */
export const traceSnapshots = sqliteTable(
  "trace_snapshots",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    repository: text("repository").notNull(),
    commitSha: text("commit_sha").notNull(),
    branch: text("branch"),
    /** When the client scanned (as sent); `created_at`/`updated_at` are the server's times. */
    scannedAt: text("scanned_at").notNull(),
    /** SHA-256 of the pushed content (branch, citations, commits): an identical re-push changes nothing. */
    contentHash: text("content_hash").notNull(),
    citationCount: integer("citation_count").notNull(),
    orphanCount: integer("orphan_count").notNull(),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdByTokenId: integer("created_by_token_id").references(() => tokens.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("trace_snapshots_workspace_repository_commit").on(t.workspaceId, t.repository, t.commitSha),
    // Latest snapshot per repository, and pruning beyond 50: (workspace, repository, id DESC).
    index("trace_snapshots_workspace_repository_id").on(t.workspaceId, t.repository, t.id),
  ],
);

/**
 * One cited id at one place. `entity_kind` follows from the id's prefix; `entity_id` is the cited row in the
 * snapshot's workspace when it existed at push time, else null: an orphan, never resolved in another
 * workspace.
 */
export const traceCitations = sqliteTable(
  "trace_citations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    snapshotId: integer("snapshot_id")
      .notNull()
      .references(() => traceSnapshots.id, { onDelete: "cascade" }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** The cited id, normalized (`REQ-012`). */
    referenceId: text("reference_id").notNull(),
    /** epic | user_story | requirement | acceptance_criterion */
    entityKind: text("entity_kind").notNull(),
    entityId: integer("entity_id"),
    /** The entity revision the citation is pinned to, when the code says so (`REQ-012@3`). */
    revision: integer("revision"),
    file: text("file").notNull(),
    line: integer("line").notNull(),
    column: integer("column").notNull(),
    /** impl | test | doc */
    kind: text("kind").notNull(),
    testName: text("test_name"),
    snippet: text("snippet").notNull(),
  },
  (t) => [
    // Coverage of many requirements, citations of one, orphans of a snapshot, pruning: all by snapshot first.
    index("trace_citations_snapshot_entity").on(t.snapshotId, t.entityKind, t.entityId, t.kind),
    // list_suspect_links pages a snapshot's pinned citations (only those can be suspect) in this order.
    index("trace_citations_pinned")
      .on(t.snapshotId, t.file, t.line, t.referenceId, t.id)
      .where(sql`${t.revision} IS NOT NULL`),
  ],
);

/** Commits of the pushed range whose messages cite ids. */
export const traceCommits = sqliteTable(
  "trace_commits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    snapshotId: integer("snapshot_id")
      .notNull()
      .references(() => traceSnapshots.id, { onDelete: "cascade" }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    sha: text("sha").notNull(),
    /** JSON array of the normalized ids the message cites. */
    ids: text("ids", { mode: "json" }).$type<string[]>().notNull(),
    subject: text("subject").notNull(),
  },
  (t) => [index("trace_commits_snapshot").on(t.snapshotId)],
);

// ---------------------------------------------------------------------------------------------------------
// Audit
// ---------------------------------------------------------------------------------------------------------

/** Who did what, with which outcome. Never token values or secrets. */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Null only for events outside any workspace (e.g. a failed authentication). */
    workspaceId: integer("workspace_id").references(() => workspaces.id, { onDelete: "cascade" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    tokenId: integer("token_id").references(() => tokens.id, { onDelete: "set null" }),
    /** Face that served it: `mcp`, `jsonrpc`, `admin`, `cli`. */
    channel: text("channel").notNull(),
    /** JSON-RPC method (`tools/call`) or admin operation (`tokens.create`). */
    method: text("method").notNull(),
    /** Tool, resource URI or prompt name, when the method has one. */
    target: text("target"),
    /** Entity reference id the call acted on, when known. */
    referenceId: text("reference_id"),
    outcome: text("outcome", { enum: ["ok", "error"] }).notNull(),
    /** DomainErrorCode or JSON-RPC error code as text, when outcome = error. */
    errorCode: text("error_code"),
    requestId: text("request_id"),
    durationMs: integer("duration_ms"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_events_workspace_time").on(t.workspaceId, t.createdAt)],
);

// ---------------------------------------------------------------------------------------------------------
// Change control: history, baselines, review
// ---------------------------------------------------------------------------------------------------------

export const ENTITY_KINDS = [
  "epic",
  "user_story",
  "requirement",
  "acceptance_criterion",
  "relationship",
] as const;
export const REVISION_OPS = ["create", "update", "move", "delete"] as const;

/**
 * One immutable row per write of an entity, appended in the write's transaction. `entity_id` is the row id
 * of the entity and is kept after it is deleted (no foreign key), so a deleted entity's history stays
 * readable by its reference id. A relationship's rows carry both ends' reference ids so they appear in
 * both requirements' histories.
 */
export const revisions = sqliteTable(
  "revisions",
  {
    // No AUTOINCREMENT (one write less per revision): rows are never deleted, so rowids only grow.
    id: integer("id").primaryKey(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    entityKind: text("entity_kind", { enum: ENTITY_KINDS }).notNull(),
    entityId: integer("entity_id").notNull(),
    /** The entity's reference id; for a relationship `REQ-001 depends_on REQ-002`. */
    referenceId: text("reference_id").notNull(),
    /** The entity's `revision` after this write (a delete takes the next number). */
    revision: integer("revision").notNull(),
    op: text("op", { enum: REVISION_OPS }).notNull(),
    /** JSON: the entity as the tools show it, parents by reference id. */
    snapshot: text("snapshot").notNull(),
    /** A relationship's source and target reference ids; null for other kinds. */
    sourceRef: text("source_ref"),
    targetRef: text("target_ref"),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    tokenId: integer("token_id").references(() => tokens.id, { onDelete: "set null" }),
    requestId: text("request_id"),
    /** The tool (or API) that made the change. */
    tool: text("tool"),
    changeNote: text("change_note"),
    source: text("source"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("revisions_entity_revision").on(t.workspaceId, t.entityKind, t.entityId, t.revision),
    index("revisions_reference").on(t.workspaceId, t.referenceId),
    // Partial: only relationship revisions have ends, so other writes do not pay for these two indexes.
    index("revisions_source_ref").on(t.workspaceId, t.sourceRef).where(sql`${t.sourceRef} IS NOT NULL`),
    index("revisions_target_ref").on(t.workspaceId, t.targetRef).where(sql`${t.targetRef} IS NOT NULL`),
  ],
);

/** A named, immutable set of entity revisions (the workspace, or one epic's tree, at one moment). */
export const baselines = sqliteTable(
  "baselines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** The epic the baseline is scoped to (row id and reference id); null = the whole workspace. */
    epicId: integer("epic_id"),
    epicReferenceId: text("epic_reference_id"),
    creatorId: integer("creator_id").references(() => users.id, { onDelete: "set null" }),
    entryCount: integer("entry_count").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("baselines_workspace_name").on(t.workspaceId, t.name)],
);

/** What a baseline froze: a reference to one revision per entity (never a copy of its text). */
export const baselineEntries = sqliteTable(
  "baseline_entries",
  {
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    baselineId: integer("baseline_id")
      .notNull()
      .references(() => baselines.id, { onDelete: "cascade" }),
    entityKind: text("entity_kind", { enum: ENTITY_KINDS }).notNull(),
    entityId: integer("entity_id").notNull(),
    revision: integer("revision").notNull(),
  },
  (t) => [primaryKey({ columns: [t.baselineId, t.entityKind, t.entityId] })],
);

/** Comments on an entity, bound to the revision they were written against. */
export const comments = sqliteTable(
  "comments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    entityKind: text("entity_kind", { enum: ENTITY_KINDS }).notNull(),
    entityId: integer("entity_id").notNull(),
    referenceId: text("reference_id").notNull(),
    revision: integer("revision").notNull(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    text: text("text").notNull(),
    resolvedAt: text("resolved_at"),
    resolvedById: integer("resolved_by_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("comments_entity").on(t.workspaceId, t.referenceId)],
);

export const REVIEW_STATUSES = ["pending", "approved", "changes_requested"] as const;

/** A reviewer asked to review an entity; its status follows the reviewer's latest verdict. */
export const reviewRequests = sqliteTable(
  "review_requests",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    entityKind: text("entity_kind", { enum: ENTITY_KINDS }).notNull(),
    entityId: integer("entity_id").notNull(),
    referenceId: text("reference_id").notNull(),
    /** The revision current when the review was requested. */
    revision: integer("revision").notNull(),
    requestedById: integer("requested_by_id").references(() => users.id, { onDelete: "set null" }),
    reviewerId: integer("reviewer_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text("status", { enum: REVIEW_STATUSES }).notNull().default("pending"),
    /** The revision the reviewer's verdict was given on. */
    verdictRevision: integer("verdict_revision"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("review_requests_entity_reviewer").on(t.workspaceId, t.referenceId, t.reviewerId),
    index("review_requests_reviewer").on(t.workspaceId, t.reviewerId),
  ],
);

export const VERDICTS = ["approved", "changes_requested"] as const;

/** A verdict on one revision: an approval counts only while that revision is current. */
export const approvals = sqliteTable(
  "approvals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    entityKind: text("entity_kind", { enum: ENTITY_KINDS }).notNull(),
    entityId: integer("entity_id").notNull(),
    referenceId: text("reference_id").notNull(),
    revision: integer("revision").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    verdict: text("verdict", { enum: VERDICTS }).notNull(),
    comment: text("comment"),
    createdAt: createdAt(),
  },
  (t) => [index("approvals_entity").on(t.workspaceId, t.entityKind, t.entityId, t.revision)],
);

/**
 * Web app sign-in sessions (issue 13). A session is opened by pasting a personal access token and acts
 * through that token (its role ceiling, expiry and revocation apply). Only the SHA-256 of the session id
 * is stored; the id itself lives in the browser's HttpOnly cookie.
 */
export const webSessions = sqliteTable(
  "web_sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Hex SHA-256 of the session id sent in the cookie. */
    idHash: text("id_hash").notNull().unique(),
    tokenId: integer("token_id")
      .notNull()
      .references(() => tokens.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("web_sessions_user").on(t.workspaceId, t.userId)],
);

/**
 * OAuth 2.1 clients (issue 12): registered dynamically (RFC 7591, `source` "registration", a generated
 * `client_id` and, for confidential clients, the SHA-256 of the secret) or known by their client ID metadata
 * document (`source` "metadata_document": `client_id` is the document's https URL, refreshed when fetched).
 */
export const oauthClients = sqliteTable("oauth_clients", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  clientId: text("client_id").notNull().unique(),
  /** Hex SHA-256 of the client secret; null for public clients (token_endpoint_auth_method none). */
  secretHash: text("secret_hash"),
  source: text("source", { enum: ["registration", "metadata_document"] }).notNull(),
  name: text("name").notNull(),
  /** JSON array of the exact redirect URIs. */
  redirectUris: text("redirect_uris").notNull(),
  authMethod: text("auth_method", { enum: ["none", "client_secret_post", "client_secret_basic"] }).notNull(),
  /** The accepted metadata as JSON (what registration echoes). */
  metadata: text("metadata").notNull(),
  createdAt: createdAt(),
  updatedAt: text("updated_at").notNull().default(now),
});

/**
 * One authorization of a client by a member in a workspace (the consent): a refresh-token family. It acts
 * through a `tokens` row of its own (`token_id`, a principal no one can present: its hash is of a discarded
 * random value) whose role ceiling is the scope's role, so roles, audit, revisions and revocation work as for
 * a PAT. Revoking the grant revokes that token, and with it every code and token of the family.
 */
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    clientRowId: integer("client_row_id")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    tokenId: integer("token_id")
      .notNull()
      .references(() => tokens.id, { onDelete: "cascade" }),
    /** Space-separated granted scopes. */
    scope: text("scope").notNull(),
    /** The RFC 8707 resource its tokens are bound to (`<issuer>/mcp`). */
    resource: text("resource").notNull(),
    createdAt: createdAt(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("oauth_grants_user").on(t.workspaceId, t.userId)],
);

/**
 * Codes, access and refresh tokens of a grant, by the SHA-256 of their value (never the value). A code keeps
 * its redirect URI and PKCE challenge; `used_at` marks a code exchanged or a refresh token rotated (a second
 * use is a replay: the grant is revoked).
 */
export const oauthTokens = sqliteTable(
  "oauth_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    hash: text("hash").notNull().unique(),
    kind: text("kind", { enum: ["code", "access", "refresh"] }).notNull(),
    grantId: integer("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri"),
    codeChallenge: text("code_challenge"),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("oauth_tokens_grant").on(t.grantId)],
);

/**
 * How a user signs in besides tokens (issue 12 item 4), one row per user, apart from `users` so that
 * listing or joining users never reads a password hash.
 */
export const userCredentials = sqliteTable("user_credentials", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** Lower-cased; recorded when an invitation is accepted; matched by upstream sign-in. Unique when set. */
  email: text("email").unique(),
  /**
   * argon2id in PHC form (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`, core/password.ts); null: no password
   * sign-in. The password itself is never stored.
   */
  passwordHash: text("password_hash"),
  passwordChangedAt: text("password_changed_at"),
});

/**
 * Browsers a user has signed in from with their password (OWASP's device cookies): one that shows its
 * cookie for the account it signs in to is held by its own failure limit instead of the account's, so
 * guessing at a username cannot lock its owner out. Only the SHA-256 of the cookie's secret is stored; a
 * row proves nothing but "this browser once knew the password" and grants no access.
 */
export const trustedDevices = sqliteTable(
  "trusted_devices",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    secretHash: text("secret_hash").notNull().unique(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("trusted_devices_user").on(t.userId)],
);

/**
 * The tokens a password, invitation or upstream sign-in acts through (credentials.repo.ts): rows of
 * `tokens` whose value nobody ever saw. Not PATs: not listed with them, and revoked with their session.
 */
export const sessionTokens = sqliteTable("session_tokens", {
  tokenId: integer("token_id")
    .primaryKey()
    .references(() => tokens.id, { onDelete: "cascade" }),
  /** password, invitation or oidc. */
  method: text("method").notNull(),
});

/**
 * Invitations (issue 12 item 4): a single-use, expiring link that makes whoever opens it a member of the
 * workspace with the role. Only the SHA-256 of the link's secret is stored.
 */
export const invitations = sqliteTable(
  "invitations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    secretHash: text("secret_hash").notNull().unique(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** Lower-cased; becomes the new user's email. */
    email: text("email").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    /** The admin who invited (null: the admin CLI). */
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    acceptedAt: text("accepted_at"),
    acceptedByUserId: integer("accepted_by_user_id").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [index("invitations_workspace").on(t.workspaceId)],
);
