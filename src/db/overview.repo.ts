/** The workspace at a glance: entities counted by status, and the latest revisions of anything. */
import { desc, eq, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
import { epics, requirements, revisions, userStories, users } from "./schema.js";

export interface StatusCount {
  kind: "epic" | "user_story" | "requirement";
  status: string;
  count: number;
}

export async function countsByStatus(ex: Executor, workspaceId: number): Promise<StatusCount[]> {
  const out: StatusCount[] = [];
  const tables = [
    ["epic", epics],
    ["user_story", userStories],
    ["requirement", requirements],
  ] as const;
  for (const [kind, table] of tables) {
    const rows = await ex
      .select({ status: table.status, count: sql<number>`count(*)` })
      .from(table)
      .where(eq(table.workspaceId, workspaceId))
      .groupBy(table.status)
      .orderBy(table.status);
    for (const r of rows) out.push({ kind, status: r.status, count: Number(r.count) });
  }
  return out;
}

export interface RecentChange {
  reference_id: string;
  entity_kind: string;
  revision: number;
  op: string;
  username: string | null;
  created_at: string;
  change_note: string | null;
  /** The entity's title in that revision (null for a relationship). */
  title: string | null;
}

/** The newest `limit` revisions of the workspace, newest first. */
export async function recentChanges(
  ex: Executor,
  workspaceId: number,
  limit: number,
): Promise<RecentChange[]> {
  return (
    ex
      .select({
        reference_id: revisions.referenceId,
        entity_kind: revisions.entityKind,
        revision: revisions.revision,
        op: revisions.op,
        username: users.username,
        created_at: revisions.createdAt,
        change_note: revisions.changeNote,
        title: sql<string | null>`json_extract(${revisions.snapshot}, '$.title')`,
      })
      .from(revisions)
      .leftJoin(users, eq(users.id, revisions.userId))
      // `+workspace_id`: walk the newest rows by rowid and stop after `limit` of this workspace, rather than
      // fetch the workspace's every revision through its index and sort them (0.1 ms against 18 ms at 100,000).
      .where(sql`+${revisions.workspaceId} = ${workspaceId}`)
      .orderBy(desc(revisions.id))
      .limit(limit)
  );
}
