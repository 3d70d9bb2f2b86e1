/**
 * Stands in for drizzle-orm's `pg-core/columns/enum.js` in the Worker bundle (wrangler.toml `[alias]`):
 * drizzle's SQL builder asks every query chunk `isPgEnum(chunk)`, which pulls Postgres column code into a
 * SQLite-only bundle. reqlix has no Postgres enum, so the answer is always no.
 */
export function isPgEnum(_value: unknown): boolean {
  return false;
}
