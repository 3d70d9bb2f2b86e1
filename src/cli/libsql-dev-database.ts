/**
 * Prepares the embedded file behind the local libSQL endpoint, the way `npm start` prepares its own: apply
 * pending migrations (a Worker cannot: the migrator reads drizzle/ from disk) and bootstrap an empty
 * database. Done before the endpoint opens the file, so nothing else holds it meanwhile.
 */
import { resolve } from "node:path";
import { type BootstrapResult, bootstrap } from "../db/bootstrap.js";
import { openDatabase } from "../db/client.js";
import { migrateDatabase } from "../db/migrate.js";

export const DEFAULT_DEV_DB_FILE = ".data/reqlix-dev.db";

export async function prepareDevDatabase(
  file: string,
  options: { bootstrapToken?: string } = {},
): Promise<BootstrapResult> {
  const database = await openDatabase({ url: `file:${resolve(file)}` });
  try {
    await migrateDatabase(database);
    return await bootstrap(database, options.bootstrapToken ? { token: options.bootstrapToken } : {});
  } finally {
    await database.close();
  }
}
