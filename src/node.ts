/**
 * Node entry (`npm start`): the embedded default. Reads the environment, opens the database
 * (REQLIX_DB_URL, default file:.data/reqlix.db), applies migrations, bootstraps an empty database, serves
 * the app on HOST:PORT and shuts down cleanly on SIGINT/SIGTERM (in-flight requests finish, audit rows
 * flushed, database closed). Configuration, HOST and PORT are checked before the database is touched.
 */

import { readFileSync } from "node:fs";
import { createApp } from "./app.js";
import { isDomainError } from "./core/errors.js";
import { githubConfigFromEnv } from "./core/github-config.js";
import { oidcConfigFromEnv } from "./core/oidc-config.js";
import { displayDbUrl, parseServerConfig } from "./core/server-config.js";
import { bootstrap } from "./db/bootstrap.js";
import { type Database, normalizeDbUrl, openDatabase } from "./db/client.js";
import { describeDatabaseError } from "./db/database-errors.js";
import { migrateDatabase } from "./db/migrate.js";
import { hostedRegistry } from "./hosted/registry.js";
import { createAuditSink } from "./http/audit.js";
import { createJsonLogger } from "./http/logger.js";
import { nodeDocumentOptions } from "./http/node-document-fetch.js";
import { createNodeServer, ListenError } from "./http/node-server.js";
import { parseAdminRateLimit, parseRateLimit } from "./http/rate-limit.js";
import { MemoryRateLimiter } from "./http/rate-limit-memory.js";
import { TokenCache } from "./http/token-cache.js";
import { parseToolsets } from "./protocol/tool-selection.js";
import { nodeAssets } from "./web/node-assets.js";

/** Set by the bundle (scripts/build-server.mjs); under tsx the version is read from package.json. */
declare const __REQLIX_VERSION__: string | undefined;

/** Last resort: a shutdown that has not finished by then exits 1 (the drain cuts connections off sooner). */
const SHUTDOWN_GRACE_MS = 10_000;
/** Connections still open this long after the signal (a trickling upload) are closed, then we flush. */
const DRAIN_CUT_OFF_MS = 5_000;

/** REQLIX_DEFAULT_TOOLSETS names toolsets of the hosted registry (the same check createApp makes, earlier). */
function checkDefaultToolsets(value: string | undefined): void {
  try {
    parseToolsets(hostedRegistry.toolsets ?? [], value);
  } catch (err) {
    throw new Error(`REQLIX_DEFAULT_TOOLSETS: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function fail(message: string, code = 1): never {
  process.stderr.write(`reqlix: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  // 1. Every setting, before anything is bound, opened or created.
  let config: ReturnType<typeof parseServerConfig>;
  let rateLimit: number;
  let adminRateLimit: number;
  let oidc: ReturnType<typeof oidcConfigFromEnv>;
  let github: ReturnType<typeof githubConfigFromEnv>;
  try {
    config = parseServerConfig(process.env);
    oidc = oidcConfigFromEnv(process.env);
    github = githubConfigFromEnv(process.env);
    rateLimit = parseRateLimit(config.REQLIX_RATE_LIMIT);
    adminRateLimit = parseAdminRateLimit(config.REQLIX_ADMIN_RATE_LIMIT);
    normalizeDbUrl(config.REQLIX_DB_URL);
    checkDefaultToolsets(config.REQLIX_DEFAULT_TOOLSETS);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), 2);
  }
  const version =
    typeof __REQLIX_VERSION__ === "string"
      ? __REQLIX_VERSION__
      : (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
          .version;
  const logger = createJsonLogger({ level: config.REQLIX_LOG_LEVEL });

  // 2. HOST and PORT, by binding them: a bad HOST or a busy PORT stops here, before a database file is
  // made or an owner token printed. Requests that arrive before step 4 get 503 "starting".
  const http = createNodeServer({
    headersTimeoutMs: config.REQLIX_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQLIX_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.REQLIX_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: config.REQLIX_MAX_CONNECTIONS,
  });
  http.onDrop = (dropped) =>
    logger.log("warn", "connection limit reached: new connections dropped", {
      dropped,
      limit: config.REQLIX_MAX_CONNECTIONS,
    });
  let address: Awaited<ReturnType<typeof http.listen>>;
  try {
    // `[::1]` is how a URL writes an IPv6 address; listen() wants it bare.
    address = await http.listen(config.HOST.replace(/^\[(.*)\]$/, "$1"), config.PORT);
  } catch (err) {
    fail(err instanceof ListenError ? err.message : String(err), 2);
  }
  // After the bind, a server error (e.g. out of file descriptors at accept) is logged, not fatal.
  http.server.on("error", (err) => logger.log("error", "http server error", { error: err }));

  // 3. The database: opened, proven writable, migrated. Each failure is one line naming cause and fix.
  const shownUrl = displayDbUrl(config.REQLIX_DB_URL);
  let database: Database | undefined;
  try {
    database = await openDatabase({
      url: config.REQLIX_DB_URL,
      ...(config.REQLIX_DB_AUTH_TOKEN ? { authToken: config.REQLIX_DB_AUTH_TOKEN } : {}),
      onBusy: (attempt) => logger.log("warn", "database busy: reconnected, retrying the write", { attempt }),
    });
    await database.probeWrite();
    await migrateDatabase(database);
  } catch (err) {
    if (isDomainError(err)) fail(err.message, 2);
    fail(describeDatabaseError(err, shownUrl), 1);
  }
  const db = database;
  const boot = await bootstrap(db, {
    ...(config.REQLIX_BOOTSTRAP_TOKEN ? { token: config.REQLIX_BOOTSTRAP_TOKEN } : {}),
  });
  if (boot.created) {
    // Printed once, on purpose, and never through the logger (which would redact it anyway).
    const lines = [
      `Created workspace "${boot.workspace}" and the instance owner "${boot.username}" (admin).`,
      boot.fromEnv
        ? "Registered REQLIX_BOOTSTRAP_TOKEN as the owner's token."
        : `Owner token (shown only now; store it safely): ${boot.token}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  }

  // 4. Serve.
  const audit = createAuditSink({ database: db, logger, flushDelayMs: config.REQLIX_AUDIT_FLUSH_MS });
  const app = createApp({
    database: db,
    logger,
    version,
    audit,
    allowedOrigins: config.REQLIX_ALLOWED_ORIGINS,
    // DNS rebinding targets servers on loopback: there, insist on a local (or explicitly allowed) Host.
    ...(config.loopback || config.REQLIX_ALLOWED_HOSTS.length > 0
      ? { allowedHosts: config.REQLIX_ALLOWED_HOSTS }
      : {}),
    rateLimiter: new MemoryRateLimiter({ limit: rateLimit }),
    adminRateLimiter: new MemoryRateLimiter({ limit: adminRateLimit }),
    trustedProxies: config.REQLIX_TRUSTED_PROXIES,
    ...(config.REQLIX_DEFAULT_TOOLSETS ? { defaultToolsets: config.REQLIX_DEFAULT_TOOLSETS } : {}),
    ...(config.REQLIX_PUBLIC_URL ? { publicUrl: config.REQLIX_PUBLIC_URL } : {}),
    ...(config.REQLIX_STATE_SECRET ? { requestStateSecret: config.REQLIX_STATE_SECRET } : {}),
    assets: nodeAssets(),
    // Client ID metadata documents: every resolved address checked, the connection pinned to it (SSRF).
    oauthDocuments: nodeDocumentOptions(),
    ...(oidc ? { oidc } : {}),
    ...(github ? { github } : {}),
    // One process serves this database's admin API: revocations and role changes made through it empty the
    // cache at once; the admin CLI's are seen within the cache's 2 s (token-cache.ts).
    tokenCache: new TokenCache(),
  });
  http.serve((request, env) => app.fetch(request, env));
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log("info", "shutting down", { signal });
    const force = setTimeout(() => fail("shutdown took too long; exiting", 1), SHUTDOWN_GRACE_MS);
    force.unref();
    try {
      // Stop accepting, answer what is in flight with Connection: close, wait for every handler; then the
      // audit rows still queued, then the database (which first waits for queued writes).
      await http.drain(DRAIN_CUT_OFF_MS);
      await audit.flush();
      await db.close();
      logger.log("info", "stopped", { signal });
      process.exit(0);
    } catch (err) {
      fail(`error while closing: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  // Before the line that tells a supervisor the server is up: a SIGTERM sent on reading it must find the
  // handler installed, not the default action (which kills the process without draining).
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  process.stdout.write(
    `reqlix ${version} listening on http://${host}:${address.port} (database ${shownUrl})\n`,
  );
}

main().catch((err) => {
  if (isDomainError(err)) fail(err.message, 2);
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
