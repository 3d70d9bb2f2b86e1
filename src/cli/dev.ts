/**
 * `npm run dev`: the Worker on this machine, offline, with no Cloudflare account.
 *
 *   1. migrate (and on first run bootstrap) the embedded file .data/reqlix-dev.db, printing the token once;
 *   2. serve that file over Hrana-over-HTTP v2 with the local libSQL endpoint;
 *   3. run `wrangler dev` (local mode) with LIBSQL_URL pointing at the endpoint.
 *
 * Env: PORT (Worker port; default 8787, or a free one if taken), LIBSQL_DEV_PORT (endpoint port; default a
 * free one), REQLIX_DEV_DB_FILE (default .data/reqlix-dev.db), REQLIX_BOOTSTRAP_TOKEN (token to register on
 * an empty database instead of generating one).
 */
import { DEFAULT_DEV_DB_FILE, prepareDevDatabase } from "./libsql-dev-database.js";
import { startLibsqlDevServer } from "./libsql-dev-server.js";
import { freePort, portIsFree, startWranglerDev } from "./libsql-dev-wrangler.js";

function portFromEnv(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${name} must be a port number from 1 to 65535, got "${value}".`);
  }
  return port;
}

async function main(): Promise<void> {
  const file = process.env.REQLIX_DEV_DB_FILE || DEFAULT_DEV_DB_FILE;
  const workerPort = portFromEnv("PORT") ?? ((await portIsFree(8787)) ? 8787 : await freePort());
  const endpointPort = portFromEnv("LIBSQL_DEV_PORT") ?? 0;

  const boot = await prepareDevDatabase(file, {
    ...(process.env.REQLIX_BOOTSTRAP_TOKEN ? { bootstrapToken: process.env.REQLIX_BOOTSTRAP_TOKEN } : {}),
  });
  if (boot.created) {
    console.log(`Bootstrapped ${file}: workspace "${boot.workspace}", instance owner "${boot.username}".`);
    if (boot.fromEnv) console.log("Registered the token from REQLIX_BOOTSTRAP_TOKEN.");
    else console.log(`Token (shown once, keep it): ${boot.token}`);
  }

  const endpoint = await startLibsqlDevServer({ file, port: endpointPort });
  console.log(`libSQL dev endpoint on ${endpoint.url} (file ${file})`);

  const wrangler = startWranglerDev({
    port: workerPort,
    vars: { LIBSQL_URL: endpoint.url },
    stdio: "inherit",
  });
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await wrangler.stop();
    await endpoint.close();
    process.exit(code);
  };
  process.once("SIGINT", () => void shutdown(0));
  process.once("SIGTERM", () => void shutdown(0));
  wrangler.child.once("exit", (code) => void shutdown(code ?? 1));

  try {
    await wrangler.ready();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await shutdown(1);
    return;
  }
  console.log(
    `\nreqlix Worker (wrangler dev, local) on ${wrangler.url} — try ${wrangler.url}/healthz. Ctrl-C stops.`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
