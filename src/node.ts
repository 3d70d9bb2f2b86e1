/**
 * Node entry (`npm start`): the embedded default. Reads the environment, opens the database
 * (REQLIX_DB_URL, default file:.data/reqlix.db), applies migrations, bootstraps an empty database, serves
 * the app on HOST:PORT and shuts down cleanly on SIGINT/SIGTERM (in-flight requests finish, audit rows
 * flushed, database closed).
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";
import { isDomainError } from "./core/errors.js";
import { displayDbUrl, parseServerConfig } from "./core/server-config.js";
import { bootstrap } from "./db/bootstrap.js";
import { openDatabase } from "./db/client.js";
import { migrateDatabase } from "./db/migrate.js";
import { createAuditSink } from "./http/audit.js";
import { createJsonLogger } from "./http/logger.js";
import { parseAdminRateLimit, parseRateLimit } from "./http/rate-limit.js";
import { MemoryRateLimiter } from "./http/rate-limit-memory.js";

const SHUTDOWN_GRACE_MS = 10_000;

function fail(message: string, code = 1): never {
  process.stderr.write(`reqlix: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let config: ReturnType<typeof parseServerConfig>;
  let rateLimit: number;
  let adminRateLimit: number;
  try {
    config = parseServerConfig(process.env);
    rateLimit = parseRateLimit(config.REQLIX_RATE_LIMIT);
    adminRateLimit = parseAdminRateLimit(config.REQLIX_ADMIN_RATE_LIMIT);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), 2);
  }
  const version = (
    JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
  const logger = createJsonLogger({ level: config.REQLIX_LOG_LEVEL });

  const database = await openDatabase({
    url: config.REQLIX_DB_URL,
    ...(config.REQLIX_DB_AUTH_TOKEN ? { authToken: config.REQLIX_DB_AUTH_TOKEN } : {}),
    onBusy: (attempt) => logger.log("warn", "database busy: reconnected, retrying the write", { attempt }),
  });
  await migrateDatabase(database);
  const boot = await bootstrap(database, {
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

  const audit = createAuditSink({ database, logger });
  const app = createApp({
    database,
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
  });

  const server = serve(
    { fetch: app.fetch, hostname: config.HOST, port: config.PORT },
    (info: AddressInfo) => {
      const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
      process.stdout.write(
        `reqlix ${version} listening on http://${host}:${info.port} (database ${displayDbUrl(config.REQLIX_DB_URL)})\n`,
      );
    },
  );
  server.on("error", (err) => fail(`cannot listen on ${config.HOST}:${config.PORT}: ${err.message}`));

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log("info", "shutting down", { signal });
    const force = setTimeout(() => fail("shutdown took too long; exiting", 1), SHUTDOWN_GRACE_MS);
    force.unref();
    // close() stops accepting, lets in-flight requests finish and drops idle keep-alive connections.
    server.close(async () => {
      try {
        await audit.flush();
        await database.close();
        logger.log("info", "stopped", { signal });
        process.exit(0);
      } catch (err) {
        fail(`error while closing: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err) => {
  if (isDomainError(err)) fail(err.message, 2);
  fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
});
