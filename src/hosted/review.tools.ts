/**
 * Review and approval (change control item 4): comments, review requests, verdicts bound to a revision,
 * and the workspace's approval rule for Active requirements.
 */
import * as z from "zod";
import { roleAtLeast } from "../core/roles.js";
import { addComment, listComments, resolveComment } from "../db/comments.repo.js";
import {
  giveVerdict,
  listReviews,
  listVerdicts,
  requestReview,
  setApprovalsRequired,
} from "../db/review.repo.js";
import { REVIEW_STATUSES } from "../db/schema.js";
import { actor, hostedTool, READ } from "./access.js";
import { entityId, revisionNumber } from "./change-control.schemas.js";

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const commentText = () =>
  z.string().trim().min(1, "must not be empty").max(10_000).describe("The comment, in markdown.");

const commentOutput = z.object({
  comment_id: z.number().int(),
  reference_id: z.string(),
  revision: z.number().int().describe("The revision the comment was written against."),
  username: z.string().nullable(),
  text: z.string(),
  resolved: z.boolean(),
  resolved_by: z.string().nullable(),
  resolved_at: z.string().nullable(),
  created_at: z.string(),
});

const reviewOutput = z.object({
  reference_id: z.string(),
  reviewer: z.string(),
  requested_by: z.string().nullable(),
  requested_revision: z.number().int(),
  current_revision: z.number().int(),
  status: z.enum(REVIEW_STATUSES).describe("The reviewer's verdict on the current revision, or pending."),
  voided_verdict: z
    .object({ verdict: z.enum(["approved", "changes_requested"]), revision: z.number().int() })
    .nullable()
    .describe("A verdict on an older revision, voided because the entity changed since."),
  requested_at: z.string(),
});

export const addCommentTool = hostedTool({
  name: "add_comment",
  title: "Add comment",
  description:
    "Comment on an epic, user story, requirement or acceptance criterion (viewers may comment). The comment is bound to the entity's current revision. Returns the comment with its comment_id (pass it to resolve_comment).",
  input: z.object({ id: entityId(), text: commentText() }),
  output: commentOutput,
  annotations: WRITE,
  role: "viewer",
  handler: ({ id, text }, ctx) =>
    ctx.database.write((tx) => addComment(tx, ctx.auth.workspaceId, id, text, actor(ctx))),
});

export const listCommentsTool = hostedTool({
  name: "list_comments",
  title: "List comments",
  description:
    "The comments on an epic, user story, requirement or acceptance criterion, oldest first, with the revision each was written against and whether it is resolved.",
  input: z.object({ id: entityId() }),
  output: z.object({ comments: z.array(commentOutput) }),
  annotations: READ,
  handler: async ({ id }, ctx) => ({
    comments: await ctx.database.read((db) => listComments(db, ctx.auth.workspaceId, id)),
  }),
});

export const resolveCommentTool = hostedTool({
  name: "resolve_comment",
  title: "Resolve comment",
  description:
    "Mark a comment resolved (its author may resolve it; editors and admins may resolve any). Resolving a resolved comment changes nothing. Returns the comment.",
  input: z.object({ comment_id: z.number().int().min(1).describe("comment_id from list_comments.") }),
  output: commentOutput,
  annotations: { ...WRITE, idempotentHint: true },
  role: "viewer",
  handler: ({ comment_id }, ctx) =>
    ctx.database.write((tx) =>
      resolveComment(tx, ctx.auth.workspaceId, comment_id, roleAtLeast(ctx.auth.role, "editor"), actor(ctx)),
    ),
});

export const requestReviewTool = hostedTool({
  name: "request_review",
  title: "Request review",
  description:
    "Ask workspace members to review an entity's current revision. Each reviewer then sees it in list_reviews {assigned_to_me: true} and answers with approve or request_changes. Asking again re-opens the review. Returns the entity's reviews.",
  input: z.object({
    id: entityId(),
    reviewers: z
      .array(z.string().trim().min(1).max(100))
      .min(1)
      .max(20)
      .describe("Usernames of workspace members (editors or admins can give verdicts)."),
  }),
  output: z.object({ reviews: z.array(reviewOutput) }),
  annotations: WRITE,
  handler: async ({ id, reviewers }, ctx) => ({
    reviews: await ctx.database.write((tx) =>
      requestReview(tx, ctx.auth.workspaceId, id, reviewers, actor(ctx)),
    ),
  }),
});

const verdictOutput = z.object({
  reference_id: z.string(),
  revision: z.number().int(),
  verdict: z.enum(["approved", "changes_requested"]),
  approvals_of_current_revision: z.number().int(),
});

export const approveTool = hostedTool({
  name: "approve",
  title: "Approve",
  description:
    "Approve the wording of an entity at one revision (read it first: get_requirement shows the revision). The approval binds to that revision: any later change voids it. A revision that is no longer current is refused with the current one. With approvals_required set, a requirement becomes Active only with enough approvals of its current revision from members other than its last editor.",
  input: z.object({
    id: entityId(),
    revision: revisionNumber().describe("The revision you read and approve."),
  }),
  output: verdictOutput,
  annotations: WRITE,
  handler: ({ id, revision }, ctx) =>
    ctx.database.write((tx) =>
      giveVerdict(tx, ctx.auth.workspaceId, { referenceId: id, revision, verdict: "approved" }, actor(ctx)),
    ),
});

export const requestChangesTool = hostedTool({
  name: "request_changes",
  title: "Request changes",
  description:
    "Ask for changes to an entity at one revision, saying what must change (kept as a comment). It withdraws your approval of that revision. A revision that is no longer current is refused with the current one.",
  input: z.object({ id: entityId(), revision: revisionNumber(), comment: commentText() }),
  output: verdictOutput,
  annotations: WRITE,
  handler: ({ id, revision, comment }, ctx) =>
    ctx.database.write((tx) =>
      giveVerdict(
        tx,
        ctx.auth.workspaceId,
        { referenceId: id, revision, verdict: "changes_requested", comment },
        actor(ctx),
      ),
    ),
});

export const listVerdictsTool = hostedTool({
  name: "list_verdicts",
  title: "List verdicts",
  description:
    "The approvals and change requests given on an epic, user story, requirement or acceptance criterion, newest first: who, which verdict, on which revision, with what comment, and whether it still counts (a verdict on an older revision is void). Use it to see where a review stands before approving or activating.",
  input: z.object({ id: entityId() }),
  output: z.object({
    verdicts: z.array(
      z.object({
        username: z.string(),
        verdict: z.enum(["approved", "changes_requested"]),
        revision: z.number().int(),
        comment: z.string().nullable(),
        created_at: z.string(),
        current: z.boolean().describe("Given on the current revision; false = void."),
      }),
    ),
  }),
  annotations: READ,
  handler: async ({ id }, ctx) => ({
    verdicts: await ctx.database.read((db) => listVerdicts(db, ctx.auth.workspaceId, id)),
  }),
});

export const listReviewsTool = hostedTool({
  name: "list_reviews",
  title: "List reviews",
  description:
    "Review requests of the workspace (or only yours), with each reviewer's verdict on the entity's current revision: pending, approved or changes_requested; a verdict on an older revision shows as voided. Use it to find what waits for your review.",
  input: z.object({
    assigned_to_me: z.boolean().optional().describe("Only reviews assigned to you."),
    status: z.enum(REVIEW_STATUSES).optional(),
  }),
  output: z.object({ reviews: z.array(reviewOutput) }),
  annotations: READ,
  handler: async ({ assigned_to_me, status }, ctx) => ({
    reviews: await ctx.database.read((db) =>
      listReviews(db, ctx.auth.workspaceId, {
        ...(assigned_to_me ? { reviewerId: ctx.auth.userId } : {}),
        ...(status ? { status } : {}),
      }),
    ),
  }),
});

export const setApprovalsRequiredTool = hostedTool({
  name: "set_approvals_required",
  title: "Set approvals required",
  description:
    "Set how many approvals of its current revision a requirement needs before it may become Active (workspace admins only; 0 turns the rule off, the default). Approvals by the requirement's last editor do not count.",
  input: z.object({
    approvals_required: z.number().int().min(0).max(10).describe("0 (off) to 10."),
  }),
  output: z.object({ approvals_required: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  role: "admin",
  handler: async ({ approvals_required }, ctx) => ({
    approvals_required: await ctx.database.write((tx) =>
      setApprovalsRequired(tx, ctx.auth.workspaceId, approvals_required),
    ),
  }),
});

export const reviewTools = [
  addCommentTool,
  listCommentsTool,
  resolveCommentTool,
  requestReviewTool,
  approveTool,
  requestChangesTool,
  listReviewsTool,
  listVerdictsTool,
  setApprovalsRequiredTool,
];
