/**
 * Comments on an epic, story, requirement or criterion (change control item 4), each bound to the revision
 * it was written against. Viewers may comment; a comment is resolved by its author or an editor.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { DomainError } from "../core/errors.js";
import type { Executor, Tx } from "./database.js";
import { type Actor, iso } from "./entity-support.js";
import { reviewTarget } from "./review.repo.js";
import { comments, users } from "./schema.js";

export interface Comment {
  comment_id: number;
  reference_id: string;
  revision: number;
  username: string | null;
  text: string;
  resolved: boolean;
  resolved_by: string | null;
  resolved_at: string | null;
  created_at: string;
}

const resolvers = sql`(SELECT username FROM users WHERE id = ${comments.resolvedById})`;

function selectComments(ex: Executor) {
  return ex
    .select({
      comment_id: comments.id,
      reference_id: comments.referenceId,
      revision: comments.revision,
      username: users.username,
      text: comments.text,
      resolved_by: sql<string | null>`${resolvers}`,
      resolved_at: comments.resolvedAt,
      created_at: comments.createdAt,
      user_id: comments.userId,
    })
    .from(comments)
    .leftJoin(users, eq(users.id, comments.userId));
}

type CommentRow = Omit<Comment, "resolved"> & { user_id: number | null };

function toComment({ user_id: _u, ...c }: CommentRow): Comment {
  return { ...c, resolved: c.resolved_at !== null };
}

/** Interchange import: what an imported comment keeps of the file. */
export interface CommentOrigin {
  revision?: number;
  created_at?: string;
  /** The author's user id; null: unknown. */
  user_id?: number | null;
  resolved_at?: string | null;
  resolved_by_id?: number | null;
}

export async function addComment(
  tx: Tx,
  workspaceId: number,
  referenceId: string,
  text: string,
  actor: Actor,
  origin: CommentOrigin = {},
): Promise<Comment> {
  const target = await reviewTarget(tx, workspaceId, referenceId);
  const [row] = await tx
    .insert(comments)
    .values({
      workspaceId,
      entityKind: target.kind,
      entityId: target.id,
      referenceId: target.reference_id,
      revision: origin.revision ?? target.revision,
      userId: origin.user_id !== undefined ? origin.user_id : actor.userId,
      text,
      createdAt: origin.created_at ?? iso(actor.now),
      resolvedAt: origin.resolved_at ?? null,
      resolvedById: origin.resolved_by_id ?? null,
    })
    .returning({ id: comments.id });
  if (!row) throw new Error("comment insert returned no row");
  return (await commentById(tx, workspaceId, row.id)).comment;
}

async function commentById(ex: Executor, workspaceId: number, commentId: number) {
  const rows = await selectComments(ex)
    .where(and(eq(comments.workspaceId, workspaceId), eq(comments.id, commentId)))
    .limit(1);
  const row = rows[0];
  if (!row) {
    throw DomainError.notFound(
      `Comment not found: ${commentId}. Call list_comments with the entity's id to see its comments and their comment_id.`,
      String(commentId),
    );
  }
  return { comment: toComment(row), authorId: row.user_id };
}

export async function listComments(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<Comment[]> {
  const target = await reviewTarget(ex, workspaceId, referenceId);
  const rows = await selectComments(ex)
    .where(and(eq(comments.workspaceId, workspaceId), eq(comments.referenceId, target.reference_id)))
    .orderBy(asc(comments.id));
  return rows.map(toComment);
}

/** Marks a comment resolved. `mayResolveOthers`: the caller may resolve comments they did not write. */
export async function resolveComment(
  tx: Tx,
  workspaceId: number,
  commentId: number,
  mayResolveOthers: boolean,
  actor: Actor,
): Promise<Comment> {
  const { comment, authorId } = await commentById(tx, workspaceId, commentId);
  if (authorId !== actor.userId && !mayResolveOthers) {
    throw DomainError.forbidden(
      `Forbidden: resolve_comment needs the editor role to resolve someone else's comment; comment ${commentId} is ${comment.username ?? "someone else"}'s. Ask its author or an editor.`,
    );
  }
  if (!comment.resolved) {
    await tx
      .update(comments)
      .set({ resolvedAt: iso(actor.now), resolvedById: actor.userId })
      .where(and(eq(comments.workspaceId, workspaceId), eq(comments.id, commentId)));
  }
  return (await commentById(tx, workspaceId, commentId)).comment;
}
