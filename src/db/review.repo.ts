/**
 * Review and approval (change control item 4): comments, review requests and verdicts, each bound to the
 * revision it was given on. An approval counts only while its revision is current: any later change of the
 * entity voids it. With the workspace setting `approvals_required` above 0, a requirement becomes Active
 * only with that many approvals of its current revision by members other than its last editor.
 */
import { and, asc, desc, eq, inArray, ne, sql } from "drizzle-orm";
import { DomainError } from "../core/errors.js";
import { kindOfReference } from "../core/references.js";
import type { Executor, Tx } from "./database.js";
import { type Actor, iso, memberIdByUsername } from "./entity-support.js";
import { lastEditorOf, type RevisionKind } from "./revisions.repo.js";
import {
  acceptanceCriteria,
  approvals,
  comments,
  epics,
  memberships,
  requirements,
  reviewRequests,
  userStories,
  users,
} from "./schema.js";
import { getSetting, setSetting } from "./settings.repo.js";

/** An epic, story, requirement or criterion: what comments and reviews attach to. */
export interface ReviewTarget {
  kind: Exclude<RevisionKind, "relationship">;
  id: number;
  reference_id: string;
  revision: number;
}

const TABLES = {
  epic: epics,
  user_story: userStories,
  requirement: requirements,
  acceptance_criterion: acceptanceCriteria,
} as const;

/** The entity a reference id names, with its current revision; not_found otherwise. */
export async function reviewTarget(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<ReviewTarget> {
  const known = kindOfReference(referenceId);
  const table = known ? TABLES[known.kind] : undefined;
  const rows =
    known && table
      ? await ex
          .select({ id: table.id, revision: table.revision })
          .from(table)
          .where(and(eq(table.workspaceId, workspaceId), eq(table.referenceId, known.reference)))
          .limit(1)
      : [];
  const row = rows[0];
  if (!known || !row) {
    throw DomainError.notFound(
      `Entity not found: ${referenceId}. Call search_global to find the right epic, user story, requirement or acceptance criterion id.`,
      referenceId,
    );
  }
  return { kind: known.kind, id: row.id, reference_id: known.reference, revision: row.revision };
}

// ----- review requests and verdicts ----------------------------------------------------------------------

export type ReviewStatus = "pending" | "approved" | "changes_requested";

export interface Review {
  reference_id: string;
  reviewer: string;
  requested_by: string | null;
  /** The revision current when the review was requested. */
  requested_revision: number;
  current_revision: number;
  /** The reviewer's verdict on the current revision; pending when none (or the entity changed since). */
  status: ReviewStatus;
  /** A verdict given on an older revision, voided by a later change. */
  voided_verdict: { verdict: Exclude<ReviewStatus, "pending">; revision: number } | null;
  requested_at: string;
}

export async function requestReview(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  reviewers: string[],
  actor: Actor,
): Promise<Review[]> {
  const target = await reviewTarget(tx, workspaceId, referenceId);
  const ids = [];
  for (const name of reviewers) ids.push(await memberIdByUsername(tx, workspaceId, name, "reviewers"));
  const stamp = iso(actor.now);
  for (const reviewerId of new Set(ids)) {
    await tx
      .insert(reviewRequests)
      .values({
        workspaceId,
        entityKind: target.kind,
        entityId: target.id,
        referenceId: target.reference_id,
        revision: target.revision,
        requestedById: actor.userId,
        reviewerId,
        createdAt: stamp,
        updatedAt: stamp,
      })
      // Asking again re-opens the review for the current revision.
      .onConflictDoUpdate({
        target: [reviewRequests.workspaceId, reviewRequests.referenceId, reviewRequests.reviewerId],
        set: {
          revision: target.revision,
          requestedById: actor.userId,
          status: "pending",
          verdictRevision: null,
          updatedAt: stamp,
        },
      });
  }
  return listReviews(tx, workspaceId, { referenceId: target.reference_id });
}

/** Refuses a verdict on a revision that is no longer current, naming the current one. */
function refuseStale(target: ReviewTarget, revision: number, tool: string): void {
  if (revision === target.revision) return;
  throw DomainError.conflict(
    `${target.reference_id} is at revision ${target.revision}, not ${revision}: your ${tool} would bind to wording that has changed. Read it (get_history or diff_revisions from ${revision}), then call ${tool} with revision ${target.revision}.`,
    { reference_id: target.reference_id },
  );
}

export async function giveVerdict(
  tx: Tx,
  workspaceId: number,
  input: {
    referenceId: string;
    revision: number;
    verdict: Exclude<ReviewStatus, "pending">;
    comment?: string;
  },
  actor: Actor,
): Promise<{
  reference_id: string;
  revision: number;
  verdict: string;
  approvals_of_current_revision: number;
}> {
  const target = await reviewTarget(tx, workspaceId, input.referenceId);
  refuseStale(target, input.revision, input.verdict === "approved" ? "approve" : "request_changes");
  const stamp = iso(actor.now);
  await tx.insert(approvals).values({
    workspaceId,
    entityKind: target.kind,
    entityId: target.id,
    referenceId: target.reference_id,
    revision: target.revision,
    userId: actor.userId,
    verdict: input.verdict,
    comment: input.comment ?? null,
    createdAt: stamp,
  });
  if (input.comment !== undefined) {
    await tx.insert(comments).values({
      workspaceId,
      entityKind: target.kind,
      entityId: target.id,
      referenceId: target.reference_id,
      revision: target.revision,
      userId: actor.userId,
      text: input.comment,
      createdAt: stamp,
    });
  }
  await tx
    .update(reviewRequests)
    .set({ status: input.verdict, verdictRevision: target.revision, updatedAt: stamp })
    .where(
      and(
        eq(reviewRequests.workspaceId, workspaceId),
        eq(reviewRequests.referenceId, target.reference_id),
        eq(reviewRequests.reviewerId, actor.userId),
      ),
    );
  return {
    reference_id: target.reference_id,
    revision: target.revision,
    verdict: input.verdict,
    approvals_of_current_revision: (await approversOf(tx, workspaceId, target)).length,
  };
}

/**
 * Who approved the current revision: each approver's latest verdict on it must be an approval (a later
 * request for changes withdraws it).
 */
async function approversOf(ex: Executor, workspaceId: number, target: ReviewTarget): Promise<number[]> {
  const rows = await ex
    .select({ userId: approvals.userId, verdict: approvals.verdict })
    .from(approvals)
    .where(
      and(
        eq(approvals.workspaceId, workspaceId),
        eq(approvals.entityKind, target.kind),
        eq(approvals.entityId, target.id),
        eq(approvals.revision, target.revision),
      ),
    )
    .orderBy(desc(approvals.id));
  const latest = new Map<number, string>();
  for (const r of rows) if (!latest.has(r.userId)) latest.set(r.userId, r.verdict);
  return [...latest].filter(([, v]) => v === "approved").map(([u]) => u);
}

export async function listReviews(
  ex: Executor,
  workspaceId: number,
  filter: { reviewerId?: number; status?: ReviewStatus; referenceId?: string },
): Promise<Review[]> {
  const reviewers = users;
  const rows = await ex
    .select({
      kind: reviewRequests.entityKind,
      entity_id: reviewRequests.entityId,
      reference_id: reviewRequests.referenceId,
      reviewer: reviewers.username,
      requested_by: sql<
        string | null
      >`(SELECT username FROM users WHERE id = ${reviewRequests.requestedById})`,
      requested_revision: reviewRequests.revision,
      stored_status: reviewRequests.status,
      verdict_revision: reviewRequests.verdictRevision,
      requested_at: reviewRequests.createdAt,
    })
    .from(reviewRequests)
    .innerJoin(reviewers, eq(reviewers.id, reviewRequests.reviewerId))
    .where(
      and(
        eq(reviewRequests.workspaceId, workspaceId),
        filter.reviewerId !== undefined ? eq(reviewRequests.reviewerId, filter.reviewerId) : undefined,
        filter.referenceId !== undefined ? eq(reviewRequests.referenceId, filter.referenceId) : undefined,
      ),
    )
    .orderBy(asc(reviewRequests.id));
  const out: Review[] = [];
  for (const r of rows) {
    const current = await currentRevision(ex, r.kind as ReviewTarget["kind"], r.entity_id);
    if (current === undefined) continue; // the entity was deleted: nothing left to review
    const onCurrent = r.stored_status !== "pending" && r.verdict_revision === current;
    const review: Review = {
      reference_id: r.reference_id,
      reviewer: r.reviewer,
      requested_by: r.requested_by,
      requested_revision: r.requested_revision,
      current_revision: current,
      status: onCurrent ? r.stored_status : "pending",
      voided_verdict:
        !onCurrent && r.stored_status !== "pending" && r.verdict_revision !== null
          ? { verdict: r.stored_status, revision: r.verdict_revision }
          : null,
      requested_at: r.requested_at,
    };
    if (filter.status === undefined || review.status === filter.status) out.push(review);
  }
  return out;
}

async function currentRevision(
  ex: Executor,
  kind: ReviewTarget["kind"],
  id: number,
): Promise<number | undefined> {
  const table = TABLES[kind];
  const rows = await ex.select({ revision: table.revision }).from(table).where(eq(table.id, id)).limit(1);
  return rows[0]?.revision;
}

// ----- the Active gate ----------------------------------------------------------------------------------

const APPROVALS_REQUIRED = "approvals_required";

export async function approvalsRequired(ex: Executor, workspaceId: number): Promise<number> {
  const value = await getSetting(ex, workspaceId, APPROVALS_REQUIRED);
  const n = value === undefined ? 0 : Number.parseInt(value, 10);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

export async function setApprovalsRequired(tx: Tx, workspaceId: number, n: number): Promise<number> {
  await setSetting(tx, workspaceId, APPROVALS_REQUIRED, String(n));
  return n;
}

/**
 * Called by the requirement write paths before a requirement becomes Active. With approvals_required above
 * 0 it needs that many approvals of its current revision by members other than its last editor, and the
 * write may change nothing else (the approvals are of the current wording). The refusal names who may approve.
 */
export async function checkActivation(
  tx: Tx,
  workspaceId: number,
  requirement: { id: number; reference_id: string; revision: number } | undefined,
  otherChanges: string[],
): Promise<void> {
  const required = await approvalsRequired(tx, workspaceId);
  if (required === 0) return;
  const lastEditor = requirement
    ? await lastEditorOf(tx, workspaceId, "requirement", requirement.id)
    : undefined;
  const approvers = requirement
    ? (
        await approversOf(tx, workspaceId, {
          kind: "requirement",
          id: requirement.id,
          reference_id: requirement.reference_id,
          revision: requirement.revision,
        })
      ).filter((u) => u !== lastEditor)
    : [];
  if (requirement && otherChanges.length === 0 && approvers.length >= required) return;
  const may = await possibleApprovers(tx, workspaceId, lastEditor);
  const what = requirement
    ? `${requirement.reference_id} (revision ${requirement.revision})`
    : "A new requirement";
  const reason =
    requirement === undefined
      ? "a new requirement has no approvals yet: create it as Draft, ask for reviews (request_review), then set it Active"
      : otherChanges.length > 0
        ? `the approvals are of the current wording, so set status Active in an update that changes nothing else (this one also changes ${otherChanges.join(", ")})`
        : `it has ${approvers.length} approval(s) of its current revision by members other than its last editor`;
  throw DomainError.conflict(
    `${what} cannot become Active: this workspace requires ${required} approval(s) (approvals_required); ${reason}. ` +
      `Who may approve: ${may.length > 0 ? may.join(", ") : "no other editor or admin (add one, or lower approvals_required)"} (editors and admins other than the last editor), with approve {id, revision}.`,
    requirement ? { reference_id: requirement.reference_id } : {},
  );
}

async function possibleApprovers(ex: Executor, workspaceId: number, exceptUserId: number | undefined) {
  const rows = await ex
    .select({ username: users.username })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.workspaceId, workspaceId),
        inArray(memberships.role, ["editor", "admin"]),
        exceptUserId !== undefined ? ne(users.id, exceptUserId) : undefined,
      ),
    )
    .orderBy(asc(users.username));
  return rows.map((r) => r.username);
}

export interface VerdictRow {
  username: string;
  verdict: string;
  revision: number;
  comment: string | null;
  created_at: string;
  /** The verdict is on the entity's current revision (an older one is void). */
  current: boolean;
}

/** Every verdict given on an entity, newest first, each marked current or void. */
export async function listVerdicts(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<VerdictRow[]> {
  const target = await reviewTarget(ex, workspaceId, referenceId);
  const rows = await ex
    .select({
      username: users.username,
      verdict: approvals.verdict,
      revision: approvals.revision,
      comment: approvals.comment,
      created_at: approvals.createdAt,
    })
    .from(approvals)
    .innerJoin(users, eq(users.id, approvals.userId))
    .where(
      and(
        eq(approvals.workspaceId, workspaceId),
        eq(approvals.entityKind, target.kind),
        eq(approvals.entityId, target.id),
      ),
    )
    .orderBy(desc(approvals.id));
  return rows.map((r) => ({ ...r, current: r.revision === target.revision }));
}
