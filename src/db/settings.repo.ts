/** Per-workspace settings as key/value text (e.g. `docs_root`). */
import { and, eq, sql } from "drizzle-orm";
import type { Executor, Tx } from "./database.js";
import { workspaceSettings } from "./schema.js";

export async function getSetting(
  ex: Executor,
  workspaceId: number,
  key: string,
): Promise<string | undefined> {
  const rows = await ex
    .select({ value: workspaceSettings.value })
    .from(workspaceSettings)
    .where(and(eq(workspaceSettings.workspaceId, workspaceId), eq(workspaceSettings.key, key)))
    .limit(1);
  return rows[0]?.value;
}

export async function listSettings(ex: Executor, workspaceId: number): Promise<Record<string, string>> {
  const rows = await ex
    .select({ key: workspaceSettings.key, value: workspaceSettings.value })
    .from(workspaceSettings)
    .where(eq(workspaceSettings.workspaceId, workspaceId));
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export async function setSetting(tx: Tx, workspaceId: number, key: string, value: string): Promise<void> {
  await tx
    .insert(workspaceSettings)
    .values({ workspaceId, key, value })
    .onConflictDoUpdate({
      target: [workspaceSettings.workspaceId, workspaceSettings.key],
      set: { value, updatedAt: sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))` },
    });
}

export async function deleteSetting(tx: Tx, workspaceId: number, key: string): Promise<void> {
  await tx
    .delete(workspaceSettings)
    .where(and(eq(workspaceSettings.workspaceId, workspaceId), eq(workspaceSettings.key, key)));
}
