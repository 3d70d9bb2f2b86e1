/**
 * The import engine (issue 15): a document (`core/interchange/document.ts`) against a workspace.
 *
 * - `planImport(ex, workspaceId, doc)`: what an import would do, writing nothing: each item matched by
 *   reference id, else by external id; equal → unchanged, different → update (the fields listed), unmatched
 *   → create; problems (unknown parent, type or relationship type) → errors.
 * - `applyImport(tx, workspaceId, doc, actor)`: plans again inside the caller's ONE write transaction and,
 *   when there is no error, runs every create and update through the repository functions the tools use
 *   (titles, types, approvals and history checked and recorded the same way). Revisions carry the actor's
 *   provenance: `source` = the file name. Any failure throws, and the caller's transaction rolls back.
 *
 * Importing the same document twice creates nothing the second time: everything matches and is equal.
 * Nothing is ever deleted by an import.
 */

import { DomainError } from "../core/errors.js";
import type {
  CommentDoc,
  CriterionDoc,
  EpicDoc,
  InterchangeDocument,
  RelationshipDoc,
  RequirementDoc,
  UserStoryDoc,
} from "../core/interchange/document.js";
import { kindOfReference, PREFIXES } from "../core/references.js";
import { updateAcceptanceCriterion } from "./acceptance-criteria.repo.js";
import { addComment } from "./comments.repo.js";
import { type ReferenceAllocator, referenceAllocator } from "./counters.repo.js";
import type { Executor, Tx } from "./database.js";
import type { Actor } from "./entity-support.js";
import { updateEpic } from "./epics.repo.js";
import { BulkCreator } from "./interchange-bulk.js";
import {
  commentKey,
  type KindState,
  loadWorkspaceState,
  relationshipKey,
  type StoredItem,
  type WorkspaceState,
} from "./interchange-state.js";
import { createRelationship } from "./relationships.repo.js";
import { createRequirementType } from "./requirement-types.repo.js";
import { updateRequirement } from "./requirements.repo.js";
import { flushRevisions, RevisionBatch } from "./revisions.repo.js";
import { updateUserStory } from "./user-stories.repo.js";

export type ImportKind =
  | "epic"
  | "user_story"
  | "requirement"
  | "acceptance_criterion"
  | "relationship"
  | "comment"
  | "requirement_type";

export interface ImportEntry {
  kind: ImportKind;
  /** The item's reference id in the workspace (created: the one it will get, when known ahead). */
  reference_id: string;
  external_id?: string;
  matched_by?: "reference_id" | "external_id";
  /** Updates: the fields that differ. */
  changes?: string[];
  note?: string;
}

export interface ImportProblem {
  kind: ImportKind;
  /** Where in the document: `requirements[3].user_story`. */
  path: string;
  reference_id?: string;
  message: string;
}

export interface ImportPlan {
  create: ImportEntry[];
  update: ImportEntry[];
  unchanged: ImportEntry[];
  errors: ImportProblem[];
  warnings: string[];
}

export interface ImportOptions {
  /** Create the document's requirement types the workspace lacks (admins); otherwise they are errors. */
  createTypes?: boolean;
}

type EntityKind = "epic" | "user_story" | "requirement" | "acceptance_criterion";
type AnyDoc = EpicDoc | UserStoryDoc | RequirementDoc | CriterionDoc;

/** A document item's place in the workspace: known once matched, or once created. */
interface Target {
  ref: string | undefined;
}

/** What the import wants an entity to be, in the repositories' terms (undefined: leave alone). */
interface Wanted {
  title: string;
  description?: string;
  status?: string;
  priority?: number;
  assignee?: string | null;
  external_id?: string | null;
  attributes?: Record<string, unknown> | null;
  type?: string;
}

/**
 * One write of the import. `bulk`: an entity create, collected by the `BulkCreator` and written many rows
 * per statement; every other step runs after the collected creates are written. `readsHistory`: it reads
 * revisions, so the batched ones are written first.
 */
interface Step {
  run(tx: Tx, actor: Actor, refs: ReferenceAllocator, creates: BulkCreator): Promise<void>;
  readsHistory?: boolean;
  bulk?: boolean;
}

const KINDS: {
  kind: EntityKind;
  list: keyof InterchangeDocument;
  parent?: EntityKind;
  parentField?: string;
}[] = [
  { kind: "epic", list: "epics" },
  { kind: "user_story", list: "user_stories", parent: "epic", parentField: "epic" },
  { kind: "requirement", list: "requirements", parent: "user_story", parentField: "user_story" },
  {
    kind: "acceptance_criterion",
    list: "acceptance_criteria",
    parent: "user_story",
    parentField: "user_story",
  },
];

const LABEL: Record<EntityKind, string> = {
  epic: "epic",
  user_story: "user story",
  requirement: "requirement",
  acceptance_criterion: "acceptance criterion",
};

/** Canonical reference id when `id` is one of `kind` (`req-7` → REQ-007), else undefined. */
function canonical(kind: EntityKind, id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const known = kindOfReference(id);
  if (known?.kind !== kind) return undefined;
  // The id itself when it is canonical already: the plan keeps it, and one copy of 46,000 ids is enough.
  return known.reference === id ? id : known.reference;
}

const attributesText = (a: Record<string, unknown> | null | undefined) =>
  a === undefined ? undefined : a === null || Object.keys(a).length === 0 ? null : JSON.stringify(a);

/** The fields of `wanted` that differ from `stored`. */
function differences(wanted: Wanted, stored: StoredItem, parentChanged: boolean): string[] {
  const out: string[] = [];
  if (wanted.title !== stored.title) out.push("title");
  if (wanted.description !== undefined && wanted.description !== stored.description) out.push("description");
  if (wanted.status !== undefined && wanted.status !== stored.status) out.push("status");
  if (wanted.priority !== undefined && wanted.priority !== stored.priority) out.push("priority");
  if (wanted.type !== undefined && wanted.type.toLowerCase() !== stored.type?.toLowerCase()) out.push("type");
  if (
    wanted.assignee !== undefined &&
    (wanted.assignee?.toLowerCase() ?? null) !== (stored.assignee?.toLowerCase() ?? null)
  )
    out.push("assignee");
  if (wanted.external_id !== undefined && wanted.external_id !== stored.external_id) out.push("external_id");
  const attrs = attributesText(wanted.attributes);
  if (attrs !== undefined && attrs !== stored.attributes) out.push("attributes");
  if (parentChanged) out.push("parent");
  return out;
}

/**
 * A create of the import: one object per item holding what its write needs (no closure, no copies of the
 * item's fields until it runs: the planned `Wanted` is the item's own fields but for the type's stored
 * name and an assignee who is no member), so a plan of 50,000 creates holds little more than the document.
 */
class CreateStep implements Step {
  readonly bulk = true;
  constructor(
    private readonly kind: EntityKind,
    private readonly item: AnyDoc,
    /** A requirement's type by its stored name. */
    private readonly type: string | undefined,
    /** The attributes when the plan changed them (an assignee kept there), else undefined: the item's. */
    private readonly attributes: Wanted["attributes"] | undefined,
    private readonly target: Target,
    private readonly parentTarget: Target | undefined,
    /** The file's reference id when it is free here, else undefined (the next id). */
    private readonly wantedRef: string | undefined,
    private readonly creator: number | null | undefined,
  ) {}

  async run(_tx: Tx, _actor: Actor, refs: ReferenceAllocator, creates: BulkCreator): Promise<void> {
    const { kind, item, type } = this;
    const referenceId = refs.allocate(PREFIXES[kind], this.wantedRef);
    const attributes = this.attributes ?? item.attributes;
    // An assignee who is no member was moved into the attributes by the plan, not assigned.
    const assignee = this.attributes === undefined && "assignee" in item ? item.assignee : undefined;
    const status = "status" in item ? item.status : undefined;
    const priority = "priority" in item ? item.priority : undefined;
    await creates.add({
      kind,
      referenceId,
      ...(this.parentTarget ? { parent: this.parentTarget.ref as string } : {}),
      title: item.title,
      description: item.description ?? "",
      ...(item.external_id ? { external_id: item.external_id } : {}),
      ...(attributes && Object.keys(attributes).length > 0 ? { attributes } : {}),
      ...(assignee ? { assignee } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(kind === "acceptance_criterion" ? {} : { priority: priority ?? 3 }),
      ...(type !== undefined ? { type } : {}),
      origin: {
        ...(item.revision !== undefined ? { revision: item.revision } : {}),
        ...(item.created_at !== undefined ? { created_at: item.created_at } : {}),
        ...(item.updated_at !== undefined ? { updated_at: item.updated_at } : {}),
        ...(this.creator !== undefined ? { creator_id: this.creator } : {}),
      },
    });
    this.target.ref = referenceId;
  }
}

class Planner {
  readonly plan: ImportPlan = { create: [], update: [], unchanged: [], errors: [], warnings: [] };
  readonly steps: Step[] = [];
  /** Per kind: a document item's reference id and external id → its target. */
  private readonly docIndex: Record<EntityKind, Map<string, Target>> = {
    epic: new Map(),
    user_story: new Map(),
    requirement: new Map(),
    acceptance_criterion: new Map(),
  };

  constructor(
    private readonly state: WorkspaceState,
    private readonly doc: InterchangeDocument,
    private readonly options: ImportOptions,
  ) {}

  error(kind: ImportKind, path: string, message: string, reference_id?: string) {
    this.plan.errors.push({ kind, path, message, ...(reference_id ? { reference_id } : {}) });
  }

  /** The stored item a document item names, by reference id first, then external id. */
  private match(kind: EntityKind, item: AnyDoc) {
    const s: KindState = this.state[kind];
    const ref = canonical(kind, item.reference_id);
    const byRef = ref ? s.byReference.get(ref) : undefined;
    if (byRef) return { stored: byRef, by: "reference_id" as const };
    const ext = item.external_id ?? undefined;
    const byExt = ext ? s.byExternal.get(ext) : undefined;
    if (byExt) return { stored: byExt, by: "external_id" as const };
    return undefined;
  }

  /** A parent named by the document: one of its items (reference or external id), else a stored one. */
  private parent(kind: EntityKind, id: string): Target | undefined {
    const inDoc = this.docIndex[kind].get(id) ?? this.docIndex[kind].get(canonical(kind, id) ?? "");
    if (inDoc) return inDoc;
    const s = this.state[kind];
    const stored = s.byReference.get(canonical(kind, id) ?? "") ?? s.byExternal.get(id);
    return stored ? { ref: stored.reference_id } : undefined;
  }

  /**
   * Indexes the document's items first, so a child may name a parent listed after it. The targets come
   * back by list and position (arrays, not a map by item: a hash table per 50,000 items is ~2 MB, and each
   * of its doublings lingers in V8's large-object space until a full GC).
   */
  indexDocument(): Target[][] {
    const targets: Target[][] = [];
    for (const { kind, list } of KINDS) {
      const items = this.doc[list] as AnyDoc[];
      const listTargets = new Array<Target>(items.length);
      targets.push(listTargets);
      // The index holds exactly the keys seen so far in this list: it is the set of seen keys.
      const seen = this.docIndex[kind];
      items.forEach((item, i) => {
        const matched = this.match(kind, item);
        const target: Target = { ref: matched?.stored.reference_id };
        listTargets[i] = target;
        const canonicalRef = canonical(kind, item.reference_id);
        for (const key of [item.reference_id, canonicalRef, item.external_id ?? undefined]) {
          if (key === undefined) continue;
          if (seen.has(key) && key !== canonicalRef) {
            this.error(
              kind,
              `${list}[${i}]`,
              `${key} appears twice in the file; each ${LABEL[kind]} once.`,
              key,
            );
          }
          seen.set(key, target);
        }
      });
    }
    return targets;
  }

  /** Usernames: a member for assignees (else kept in attributes), any user for creators. */
  private wanted(kind: EntityKind, item: AnyDoc, path: string): Wanted {
    const w: Wanted = { title: item.title };
    if (item.description !== undefined) w.description = item.description;
    let attributes = item.attributes === undefined ? undefined : item.attributes;
    if ("status" in item && item.status !== undefined) w.status = item.status;
    if ("priority" in item && item.priority !== undefined) w.priority = item.priority;
    if ("type" in item) {
      const known = this.state.requirementTypes.get(item.type.toLowerCase());
      if (known) w.type = known;
      else
        this.error(
          kind,
          `${path}.type`,
          `Unknown requirement type "${item.type}". Use one of: ${[...this.state.requirementTypes.values()].join(", ")}; or import as a workspace admin, which creates the types the file uses.`,
          item.reference_id,
        );
    }
    if ("assignee" in item && item.assignee !== undefined) {
      if (item.assignee === null || this.state.members.has(item.assignee.toLowerCase()))
        w.assignee = item.assignee;
      else {
        attributes = { ...(attributes ?? {}), assignee: item.assignee };
        this.plan.warnings.push(
          `${path}: "${item.assignee}" is not a member of this workspace; kept in attributes.assignee, not assigned.`,
        );
      }
    }
    if (item.external_id !== undefined) w.external_id = item.external_id;
    if (attributes !== undefined) w.attributes = attributes;
    return w;
  }

  private creatorId(username: string | null | undefined, path: string): number | null | undefined {
    if (username === undefined) return undefined;
    if (username === null) return null;
    const id = this.state.users.get(username.toLowerCase());
    if (id === undefined)
      this.plan.warnings.push(`${path}: creator "${username}" is not a user here; kept as unknown.`);
    return id ?? null;
  }

  /** Admins: the requirement types the file uses and the workspace lacks are created (with the file's description). */
  planTypes() {
    if (!this.options.createTypes) return;
    for (const r of this.doc.requirements) {
      const key = r.type.toLowerCase();
      if (this.state.requirementTypes.has(key)) continue;
      const listed = this.doc.requirement_types.find((t) => t.name.toLowerCase() === key);
      const type = { name: listed?.name ?? r.type, description: listed?.description ?? "" };
      this.state.requirementTypes.set(key, type.name);
      this.plan.create.push({ kind: "requirement_type", reference_id: type.name });
      this.steps.push({
        run: async (tx) => {
          await createRequirementType(tx, this.workspaceId, type);
        },
      });
    }
  }

  workspaceId = 0;

  planEntities(targets: Target[][]) {
    KINDS.forEach(({ kind, list, parent, parentField }, k) => {
      const items = this.doc[list] as AnyDoc[];
      const listTargets = targets[k] as Target[];
      items.forEach((item, i) => {
        const path = `${list}[${i}]`;
        const target = listTargets[i] as Target;
        const w = this.wanted(kind, item, path);
        let parentTarget: Target | undefined;
        if (parent && parentField) {
          const id = (item as unknown as Record<string, string>)[parentField] as string;
          parentTarget = this.parent(parent, id);
          if (!parentTarget) {
            this.error(
              kind,
              `${path}.${parentField}`,
              `Unknown ${LABEL[parent]} "${id}": not in the file and not in this workspace.`,
              item.reference_id,
            );
            return;
          }
        }
        const matched = this.match(kind, item);
        if (matched) this.planMatched(kind, item, w, matched, parentTarget, path);
        else this.planCreate(kind, item, w, target, parentTarget, path);
      });
    });
  }

  private planMatched(
    kind: EntityKind,
    item: AnyDoc,
    w: Wanted,
    matched: { stored: StoredItem; by: "reference_id" | "external_id" },
    parentTarget: Target | undefined,
    path: string,
  ) {
    const { stored, by } = matched;
    // A parent created by this import is new, so it differs; a matched one differs when its id does.
    const parentChanged = parentTarget !== undefined && parentTarget.ref !== stored.parent;
    const changes = differences(w, stored, parentChanged);
    const entry: ImportEntry = {
      kind,
      reference_id: stored.reference_id,
      ...(stored.external_id ? { external_id: stored.external_id } : {}),
      matched_by: by,
    };
    if (changes.length === 0) {
      this.plan.unchanged.push(entry);
      return;
    }
    if (kind === "acceptance_criterion" && parentChanged) {
      this.error(
        kind,
        path,
        `${stored.reference_id} belongs to ${stored.parent}; an import does not move acceptance criteria. Keep its user_story, or create a new criterion.`,
        stored.reference_id,
      );
      return;
    }
    this.plan.update.push({ ...entry, changes });
    const ref = stored.reference_id;
    const patch = (parentRef: string | undefined): Record<string, unknown> => {
      const p: Record<string, unknown> = {};
      for (const field of changes) {
        if (field === "parent") {
          if (kind === "user_story") p.epic_id = parentRef;
          if (kind === "requirement") p.user_story_id = parentRef;
        } else p[field] = w[field as keyof Wanted];
      }
      return p;
    };
    // An update checks approvals against the history (the last editor), so it reads revisions.
    this.steps.push({
      readsHistory: true,
      run: async (tx, actor) => {
        const p = patch(parentTarget?.ref);
        const ws = this.workspaceId;
        if (kind === "epic") await updateEpic(tx, ws, ref, p, actor);
        else if (kind === "user_story") await updateUserStory(tx, ws, ref, p, actor);
        else if (kind === "requirement") await updateRequirement(tx, ws, ref, p, actor);
        else await updateAcceptanceCriterion(tx, ws, ref, p, actor);
      },
    });
    void item;
  }

  private planCreate(
    kind: EntityKind,
    item: AnyDoc,
    w: Wanted,
    target: Target,
    parentTarget: Target | undefined,
    path: string,
  ) {
    const wantedRef = canonical(kind, item.reference_id);
    const free = wantedRef !== undefined && !this.state[kind].byReference.has(wantedRef);
    this.plan.create.push({
      kind,
      reference_id: free ? wantedRef : `(next ${PREFIXES[kind]} id)`,
      ...(item.external_id ? { external_id: item.external_id } : {}),
      ...(wantedRef !== undefined && !free
        ? { note: `${wantedRef} is taken here; the new ${LABEL[kind]} gets the next id` }
        : {}),
    });
    const creator = item.creator !== undefined ? this.creatorId(item.creator, path) : undefined;
    const attributes = w.attributes === item.attributes ? undefined : w.attributes;
    this.steps.push(
      new CreateStep(
        kind,
        item,
        w.type,
        attributes,
        target,
        parentTarget,
        free ? wantedRef : undefined,
        creator,
      ),
    );
  }

  planRelationships() {
    this.doc.relationships.forEach((link, i) => {
      this.planRelationship(link, i);
    });
  }

  private planRelationship(link: RelationshipDoc, i: number) {
    {
      const path = `relationships[${i}]`;
      const source = this.parent("requirement", link.source);
      const target = this.parent("requirement", link.target);
      const type = this.state.relationshipTypes.get(link.type.toLowerCase());
      if (!source)
        return this.error("relationship", `${path}.source`, `Unknown requirement "${link.source}".`);
      if (!target)
        return this.error("relationship", `${path}.target`, `Unknown requirement "${link.target}".`);
      if (!type)
        return this.error(
          "relationship",
          `${path}.type`,
          `Unknown relationship type "${link.type}". Use one of: ${[...this.state.relationshipTypes.values()].join(", ")}.`,
        );
      const describe = `${link.source} ${type} ${link.target}`;
      if (
        source.ref &&
        target.ref &&
        this.state.relationships.has(relationshipKey(source.ref, type, target.ref))
      ) {
        this.plan.unchanged.push({
          kind: "relationship",
          reference_id: `${source.ref} ${type} ${target.ref}`,
        });
        return;
      }
      this.plan.create.push({ kind: "relationship", reference_id: describe });
      const creator = this.creatorId(link.creator, path);
      this.steps.push({
        run: async (tx, actor) => {
          await createRelationship(
            tx,
            this.workspaceId,
            {
              source_requirement_id: source.ref as string,
              target_requirement_id: target.ref as string,
              relationship_type: type,
            },
            actor,
            {
              ...(link.revision !== undefined ? { revision: link.revision } : {}),
              ...(link.source_revision !== undefined ? { source_revision: link.source_revision } : {}),
              ...(link.target_revision !== undefined ? { target_revision: link.target_revision } : {}),
              ...(link.created_at !== undefined ? { created_at: link.created_at } : {}),
              ...(creator !== undefined ? { creator_id: creator } : {}),
            },
          );
        },
      });
    }
  }

  planComments() {
    this.doc.comments.forEach((c, i) => {
      this.planComment(c, i);
    });
    this.reportBaselines();
  }

  private planComment(c: CommentDoc, i: number) {
    {
      const path = `comments[${i}]`;
      const on = this.parent(c.on.kind, c.on.reference_id);
      if (!on)
        return this.error("comment", `${path}.on`, `Unknown ${LABEL[c.on.kind]} "${c.on.reference_id}".`);
      if (on.ref && this.state.comments.has(commentKey(on.ref, c.created_at, c.author, c.body))) {
        this.plan.unchanged.push({ kind: "comment", reference_id: on.ref });
        return;
      }
      this.plan.create.push({ kind: "comment", reference_id: on.ref ?? c.on.reference_id });
      const author = this.creatorId(c.author, path);
      const resolver = this.creatorId(c.resolved_by, path);
      this.steps.push({
        run: async (tx, actor) => {
          await addComment(tx, this.workspaceId, on.ref as string, c.body, actor, {
            revision: c.on.revision,
            created_at: c.created_at,
            user_id: author ?? null,
            resolved_at: c.resolved_at ?? null,
            resolved_by_id: resolver ?? null,
          });
        },
      });
    }
  }

  private reportBaselines(): void {
    if (this.doc.baselines && this.doc.baselines.length > 0) {
      this.plan.warnings.push(
        `${this.doc.baselines.length} baseline(s) in the file were not imported: a baseline names revisions of the source workspace's history.`,
      );
    }
  }
}

function buildPlan(
  state: WorkspaceState,
  workspaceId: number,
  doc: InterchangeDocument,
  options: ImportOptions,
): Planner {
  const planner = new Planner(state, doc, options);
  planner.workspaceId = workspaceId;
  planner.planTypes();
  const targets = planner.indexDocument();
  planner.planEntities(targets);
  planner.planRelationships();
  planner.planComments();
  return planner;
}

/** What importing `doc` would do; writes nothing. */
export async function planImport(
  ex: Executor,
  workspaceId: number,
  doc: InterchangeDocument,
  options: ImportOptions = {},
): Promise<ImportPlan> {
  return buildPlan(await loadWorkspaceState(ex, workspaceId), workspaceId, doc, options).plan;
}

/**
 * Imports `doc` inside the caller's write transaction `tx`; refuses (invalid_input, nothing written) when
 * the plan has errors. Returns the plan it carried out.
 */
export async function applyImport(
  tx: Tx,
  workspaceId: number,
  doc: InterchangeDocument,
  actor: Actor,
  options: ImportOptions = {},
): Promise<ImportPlan> {
  const planner = buildPlan(await loadWorkspaceState(tx, workspaceId), workspaceId, doc, options);
  const { plan } = planner;
  if (plan.errors.length > 0) throw importRefused(plan);
  // Reference ids come from one read of the counters and history, and revisions are written in batches:
  // per item, an import runs only the statements of the write itself.
  const refs = await referenceAllocator(tx, workspaceId);
  const revisionBatch = new RevisionBatch();
  const batched: Actor = { ...actor, revisionBatch };
  const creates = new BulkCreator(tx, workspaceId, batched);
  let sinceYield = 0;
  for (const step of planner.steps) {
    if (!step.bulk) {
      await creates.flush();
      creates.forgetTitles();
    }
    if (step.readsHistory) await flushRevisions(tx, revisionBatch);
    await step.run(tx, batched, refs, creates);
    if (++sinceYield === YIELD_EVERY) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  await creates.flush();
  await flushRevisions(tx, revisionBatch);
  await refs.save();
  return plan;
}

/**
 * The embedded libSQL client runs each statement synchronously, so an import's loop never leaves the
 * microtask queue; the native statements it prepared are released by finalizers that run only when the
 * event loop turns. Without a turn now and then, 3,000 items held +226 MB of native memory; with one every
 * few hundred steps, +49 MB (bench/results/interchange-*.md).
 */
const YIELD_EVERY = 100;
const yieldToEventLoop = () =>
  new Promise<void>((resolve) => {
    const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
    if (immediate) immediate(resolve);
    else setTimeout(resolve, 0);
  });

/** invalid_input carrying the plan's errors (the first ones), so nothing is written. */
export function importRefused(plan: ImportPlan): DomainError {
  const first = plan.errors[0];
  return DomainError.invalid(
    `The import was refused, nothing was written: ${plan.errors.length} problem(s); first: ${first?.path}: ${first?.message}`,
    plan.errors.slice(0, 100).map((e) => ({ field: e.path, message: e.message })),
  );
}
