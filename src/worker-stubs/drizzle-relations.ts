/**
 * Stands in for drizzle-orm's relational-query layer in the Worker bundle (wrangler.toml `[alias]`:
 * `relations.js` as drizzle's SQLite dialect and libSQL driver import it, and `sqlite-core/query-builders/
 * query.js`). That layer serves `db.query.*` over a relational schema; reqlix builds its database without
 * one (db/database.ts) and queries with the query builder only, so none of it runs. Every entry point
 * throws, naming the alias, should that ever change.
 */
function notInTheWorker(): never {
  throw new Error(
    "drizzle's relational queries (db.query.*) are not bundled into the Worker (wrangler.toml [alias], " +
      "src/worker-stubs/drizzle-relations.ts)",
  );
}

export class One {}
export class Many {}
export class RelationalQueryBuilder {
  constructor() {
    notInTheWorker();
  }
}
export const getOperators = notInTheWorker;
export const getOrderByOperators = notInTheWorker;
export const normalizeRelation = notInTheWorker;
export const createTableRelationsHelpers = notInTheWorker;
export const extractTablesRelationalConfig = notInTheWorker;
