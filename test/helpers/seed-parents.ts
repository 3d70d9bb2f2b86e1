/**
 * The parents bulk-seeded requirements hang from (search tests and benches that write rows with plain SQL,
 * the tools being too slow at their sizes): epic EP-001 and its one story US-001 in a workspace.
 */
import { sql } from "drizzle-orm";
import type { Tx } from "../../src/db/database.js";

export async function insertEpicAndStory(tx: Tx, workspaceId: number, storyTitle = "Story"): Promise<void> {
  await tx.run(
    sql`INSERT INTO epics (workspace_id, reference_id, title) VALUES (${workspaceId}, 'EP-001', 'Epic')`,
  );
  await tx.run(sql`INSERT INTO user_stories (workspace_id, reference_id, epic_id, title)
    VALUES (${workspaceId}, 'US-001', (SELECT id FROM epics WHERE workspace_id = ${workspaceId}), ${storyTitle})`);
}
