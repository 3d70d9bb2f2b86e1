/**
 * Node: applies the generated migrations in drizzle/ (the Worker cannot read files; a deploy step applies
 * them there, see README). Idempotent: drizzle records applied migrations in `__drizzle_migrations`.
 */
import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/libsql/migrator";
import { type Database, isBusyError } from "./database.js";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

const ATTEMPTS = 5;

export async function migrateDatabase(
  database: Database,
  migrationsFolder = MIGRATIONS_FOLDER,
): Promise<void> {
  // Entries migrate before they serve requests; the migrator applies all pending files in one batch, so a
  // failure leaves nothing half-applied. Two processes starting on one new file race: the loser fails
  // (BUSY, or "table already exists") and, on the next attempt, finds the migrations applied.
  for (let attempt = 1; ; attempt++) {
    try {
      await migrate(database.db, { migrationsFolder });
      return;
    } catch (err) {
      if (attempt >= ATTEMPTS) throw err;
      if (isBusyError(err)) await database.client.reconnect(); // DESIGN: never reuse a connection after BUSY
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
