/**
 * `npm run dev`: the Worker on this machine, offline, with no Cloudflare account.
 *
 *   1. migrate (and on first run bootstrap) the embedded file .data/reqlix-dev.db, printing the token once;
 *   2. serve that file over Hrana-over-HTTP v2 with the local libSQL endpoint;
 *   3. run `wrangler dev` (local mode) with LIBSQL_URL pointing at the endpoint.
 *
 * Env: PORT (Worker port; default 8787, or a free one if taken; a PORT set but taken stops the start with
 * exit 2 before anything runs, as does a taken LIBSQL_DEV_PORT), LIBSQL_DEV_PORT (endpoint port; default a
 * free one), REQLIX_DEV_DB_FILE (default .data/reqlix-dev.db), REQLIX_BOOTSTRAP_TOKEN (token to register on
 * an empty database instead of generating one).
 */
import { DEFAULT_DEV_DB_FILE, prepareDevDatabase } from "./libsql-dev-database.js";
import { startLibsqlDevServer } from "./libsql-dev-server.js";
import { freePort, portIsFree, startWranglerDev } from "./libsql-dev-wrangler.js";

/** A setting the developer must change: one line on stderr, exit 2, before anything was started. */
class SettingError extends Error {}

function portFromEnv(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value.trim() === "") return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new SettingError(`${name} must be a port number from 1 to 65535, got "${value}".`);
  }
  return port;
}

/** An explicitly chosen port must be free now: checked before the database or any process is touched. */
async function requireFree(name: string, port: number | undefined): Promise<void> {
  if (port !== undefined && !(await portIsFree(port))) {
    throw new SettingError(
      `${name} ${port} is already in use on 127.0.0.1. Fix: stop what holds it, set ${name} to a free port, or unset ${name}${name === "PORT" ? " (8787, or a free port if taken)" : " (a free port)"}.`,
    );
  }
}

async function main(): Promise<void> {
  const file = process.env.REQLIX_DEV_DB_FILE || DEFAULT_DEV_DB_FILE;
  const explicitWorkerPort = portFromEnv("PORT");
  const explicitEndpointPort = portFromEnv("LIBSQL_DEV_PORT");
  if (explicitWorkerPort !== undefined && explicitWorkerPort === explicitEndpointPort) {
    throw new SettingError(
      `PORT and LIBSQL_DEV_PORT are both ${explicitWorkerPort}. Fix: give them different ports.`,
    );
  }
  await requireFree("PORT", explicitWorkerPort);
  await requireFree("LIBSQL_DEV_PORT", explicitEndpointPort);
  const endpointPort = explicitEndpointPort ?? 0;

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
  // Chosen only once the endpoint holds its port: a free port probed before could be the very port the
  // endpoint's port 0 is then given, and workerd would fail to bind it.
  const workerPort = explicitWorkerPort ?? ((await portIsFree(8787)) ? 8787 : await freePort());

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
  process.exit(error instanceof SettingError ? 2 : 1);
});
