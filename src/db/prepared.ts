/**
 * Drizzle prepared queries for the hottest reads (issue 16): building a query's SQL was a quarter of a
 * small read's CPU, so a query asked on every request is built once per executor and then only run with
 * new values (`sql.placeholder`). A prepared query belongs to the drizzle session it was made on, hence
 * one per executor: the database handle lives as long as the process; a transaction's goes with it.
 */
import type { Executor } from "./database.js";

export function preparedPer<P>(build: (ex: Executor) => P): (ex: Executor) => P {
  const made = new WeakMap<Executor, P>();
  return (ex) => {
    let prepared = made.get(ex);
    if (prepared === undefined) {
      prepared = build(ex);
      made.set(ex, prepared);
    }
    return prepared;
  };
}
