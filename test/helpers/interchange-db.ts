/**
 * The database the db-level interchange tests import into and export from: a migrated, bootstrapped libSQL
 * file (two connections can hold it, as on a server), and its default workspace's owner as the caller.
 */
import { bootstrap } from "../../src/db/bootstrap.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import type { InterchangeCaller } from "../../src/db/interchange-ops.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";

export async function openInterchangeDatabase(
  path: string,
  now: Date,
): Promise<{ database: Database; caller: InterchangeCaller }> {
  const database = await openDatabase({ url: `file:${path}` });
  await migrateDatabase(database);
  await bootstrap(database);
  const ws = await database.read((db) => findWorkspaceBySlug(db, "default"));
  if (!ws) throw new Error("no workspace");
  return {
    database,
    caller: { workspaceId: ws.id, workspaceSlug: ws.slug, role: "admin", userId: 1, channel: "test", now },
  };
}
