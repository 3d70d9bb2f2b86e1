/**
 * Node: applies the generated migrations in drizzle/ (the Worker cannot read files; a deploy step applies
 * them there, see README). Idempotent: drizzle records applied migrations in `__drizzle_migrations`.
 */
import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/libsql/migrator";
import type { Database } from "./database.js";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

export async function migrateDatabase(
  database: Database,
  migrationsFolder = MIGRATIONS_FOLDER,
): Promise<void> {
  // Entries migrate before they serve requests; the migrator applies all pending files in one batch.
  await migrate(database.db, { migrationsFolder });
}
