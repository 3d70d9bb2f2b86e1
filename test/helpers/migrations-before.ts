/**
 * A database as it was before a migration: a copy of drizzle/ whose journal stops just before it, for the
 * tests of a migration that rewrites or fills in data written earlier.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "../../src/db/migrate.js";

/** The migrations before `tag` (e.g. `0008_change_control`), copied into `dir`: pass it to migrateDatabase. */
export function migrationsBefore(dir: string, tag: string): string {
  const before = join(dir, `drizzle-before-${tag}`);
  cpSync(MIGRATIONS_FOLDER, before, { recursive: true });
  const journalPath = join(before, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((e) => e.tag === tag);
  if (cut <= 0) throw new Error(`drizzle/meta/_journal.json has no migration ${tag} after the first`);
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(journalPath, JSON.stringify(journal));
  return before;
}
