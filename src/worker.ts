/**
 * Cloudflare Workers entry: builds the app's dependencies from the Worker's bindings and hands requests to
 * the same Hono app that runs on Node. Thin on purpose (DESIGN: entries are thin).
 *
 * Only runtime-neutral modules may be imported from here: `@libsql/client/http` (HTTP, no native code; the
 * `/web` entry would add the WebSocket client, which the Worker never uses),
 * `db/database.ts` (not `db/client.ts`, which opens files), and no `node:` module. `npm run build:worker`
 * bundles this file the way `wrangler deploy` does and fails if something node-only slips in.
 *
 * Migrations do not run here (the migrator reads drizzle/ from disk): apply them before deploying, see the
 * README ("workers" section).
 */

import { createClient } from "@libsql/client/http";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import type { Hono } from "hono";
// A named import (no `with { type: "json" }`, which allows only the default): the bundler keeps the version
// and drops the rest of package.json.
import { version } from "../package.json";
import { type CreateAppDeps, createApp } from "./app.js";
import { githubConfigFromEnv } from "./core/github-config.js";
import { oidcConfigFromEnv } from "./core/oidc-config.js";
import { recordAudit } from "./db/audit.repo.js";
import { type Database, databaseFromClient } from "./db/database.js";
import type { AuditSink } from "./http/audit.js";
import type { AppEnv, Logger } from "./http/context.js";
import { createJsonLogger } from "./http/logger.js";
import { parseAdminRateLimit, parseRateLimit } from "./http/rate-limit.js";
import { MemoryRateLimiter } from "./http/rate-limit-memory.js";
import { type RateLimitBinding, workersRateLimiter } from "./http/rate-limit-workers.js";

/** The Worker's bindings (wrangler.toml `[vars]`, secrets, `[[ratelimits]]`). */
export interface Env {
  /** libSQL over HTTP: Turso (`libsql://…`), a self-hosted sqld (`https://…`), or `npm run dev`'s endpoint. */
  LIBSQL_URL?: string;
  /** Secret (`wrangler secret put LIBSQL_AUTH_TOKEN`): the database's auth token, if it needs one. */
  LIBSQL_AUTH_TOKEN?: string;
  /** Comma-separated browser origins allowed on /mcp and /api/v1/mcp besides localhost. */
  REQLIX_ALLOWED_ORIGINS?: string;
  /** Requests per minute per token when there is no RATE_LIMITER binding (counted per isolate). */
  REQLIX_RATE_LIMIT?: string;
  /** Workers Rate Limiting binding (`[[ratelimits]]` in wrangler.toml); its limit and period live there. */
  RATE_LIMITER?: RateLimit;
  /** Optional second `[[ratelimits]]` binding for the admin API; without it RATE_LIMITER counts admin keys. */
  ADMIN_RATE_LIMITER?: RateLimit;
  /** Admin API requests per minute per token when there is no rate-limit binding (counted per isolate). */
  REQLIX_ADMIN_RATE_LIMIT?: string;
  /** Toolsets of an MCP connection that names none (default: the registry's default toolsets). */
  REQLIX_DEFAULT_TOOLSETS?: string;
  /** The public origin, the OAuth issuer, when a proxy hides it (default: the request's origin). */
  REQLIX_PUBLIC_URL?: string;
  /**
   * Secret (`wrangler secret put REQLIX_STATE_SECRET`, ≥ 32 characters): signs the requestState of MCP
   * 2026-07-28 multi-round-trip requests, which any isolate must verify. Unset: derived from
   * LIBSQL_AUTH_TOKEN (a secret every isolate shares); with neither (local dev), a key per isolate.
   */
  REQLIX_STATE_SECRET?: string;
  /** Upstream OpenID Connect sign-in (core/oidc-config.ts); the client secret as a `wrangler secret`. */
  REQLIX_OIDC_ISSUER?: string;
  REQLIX_OIDC_CLIENT_ID?: string;
  REQLIX_OIDC_CLIENT_SECRET?: string;
  REQLIX_OIDC_LABEL?: string;
  /** Sign-in with GitHub (core/github-config.ts); the client secret as a `wrangler secret`. */
  REQLIX_GITHUB_CLIENT_ID?: string;
  REQLIX_GITHUB_CLIENT_SECRET?: string;
  /** GitHub Enterprise Server's URL (default https://github.com). */
  REQLIX_GITHUB_URL?: string;
}

/** Period of the `[[ratelimits]]` binding in wrangler.toml, in seconds (Retry-After when refused). */
const RATE_LIMIT_PERIOD_SECONDS = 60;

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * Audit rows written by the request that produced them (the faces hand the promise to `waitUntil`). The
 * shared group-commit sink of Node must not be used here: a batch started by one request would carry
 * other requests' rows, and workerd cancels that work as hung once the first request is done, leaving its
 * write transaction open on the database until the server expires it.
 */
function requestScopedAuditSink(database: Database, logger: Logger): AuditSink {
  return {
    async record(event) {
      try {
        await database.write((tx) => recordAudit(tx, event));
      } catch (error) {
        logger.log("error", "audit row could not be written", {
          requestId: event.requestId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    },
    async flush() {},
  };
}

/**
 * The SDK server validates JSON schemas only for the answers to its push-style elicitation
 * (`Server.elicitInput`), which reqlix never calls: tool arguments are checked by our zod schemas
 * (protocol/compile.ts), and the answers to a handler's questions (`input_required`) by the protocol core
 * (protocol/input-answers.ts). So the Worker carries no JSON-schema validator (the cfworker one was ~6 KiB
 * gzip of its budget); should the SDK ever be asked to validate, this says so instead of validating nothing.
 */
export const noSchemaValidation: jsonSchemaValidator = {
  getValidator() {
    throw new Error("No JSON-schema validator in the Worker (src/worker.ts noSchemaValidation)");
  },
};

/**
 * The request-state secret: REQLIX_STATE_SECRET, else the database token under a label of its own (the
 * key is HKDF-derived from it with a purpose label, so the token itself never signs anything).
 */
function requestStateSecretOf(env: Env): { requestStateSecret?: string } {
  const own = env.REQLIX_STATE_SECRET?.trim();
  if (own) {
    if (own.length < 32)
      throw new Error("REQLIX_STATE_SECRET must be at least 32 characters (openssl rand -hex 32).");
    return { requestStateSecret: own };
  }
  const token = env.LIBSQL_AUTH_TOKEN?.trim();
  return token ? { requestStateSecret: `reqlix request state from LIBSQL_AUTH_TOKEN\u0000${token}` } : {};
}

/** Checks the bindings and builds what `createApp` needs; throws a message that says which binding to fix. */
export function workerDeps(env: Env): CreateAppDeps {
  const url = env.LIBSQL_URL?.trim();
  if (!url) {
    throw new Error(
      "LIBSQL_URL is not set: give the Worker the database URL (libsql://… for Turso, https://… for sqld) " +
        "with `wrangler secret put LIBSQL_URL` or [vars] in wrangler.toml; `npm run dev` sets it for local work.",
    );
  }
  if (!/^(libsql|https?):\/\//i.test(url)) {
    throw new Error(
      `LIBSQL_URL must be a libsql://, https:// or http:// URL (a Worker cannot open files), got "${url}".`,
    );
  }
  // Settings first: a bad one is refused before a database client exists.
  const oidc = oidcConfigFromEnv(env as unknown as Record<string, string | undefined>);
  const github = githubConfigFromEnv(env as unknown as Record<string, string | undefined>);
  const logger = createJsonLogger();
  const client = createClient({
    url,
    ...(env.LIBSQL_AUTH_TOKEN ? { authToken: env.LIBSQL_AUTH_TOKEN } : {}),
  });
  const rateLimiter = env.RATE_LIMITER
    ? workersRateLimiter(env.RATE_LIMITER satisfies RateLimitBinding, RATE_LIMIT_PERIOD_SECONDS)
    : new MemoryRateLimiter({ limit: parseRateLimit(env.REQLIX_RATE_LIMIT) });
  // The admin API's keys (`admin:token:N`) are a bucket of their own even when they share the binding.
  const adminBinding = env.ADMIN_RATE_LIMITER ?? env.RATE_LIMITER;
  const adminRateLimiter = adminBinding
    ? workersRateLimiter(adminBinding satisfies RateLimitBinding, RATE_LIMIT_PERIOD_SECONDS)
    : new MemoryRateLimiter({ limit: parseAdminRateLimit(env.REQLIX_ADMIN_RATE_LIMIT) });
  // No in-isolate write queue: a promise chain shared by requests makes one request continue in another's
  // I/O context, and workerd cancels it as hung once that request has finished (seen with audit rows
  // written in waitUntil). The database server orders writes itself; the embedded-file bug that needs the
  // queue (libsql-client-ts#352) does not exist over HTTP.
  const database = databaseFromClient(client, { serializeWrites: false });
  return {
    ...(oidc ? { oidc } : {}),
    ...(github ? { github } : {}),
    database,
    logger,
    audit: requestScopedAuditSink(database, logger),
    version,
    allowedOrigins: list(env.REQLIX_ALLOWED_ORIGINS),
    ...(env.REQLIX_DEFAULT_TOOLSETS ? { defaultToolsets: env.REQLIX_DEFAULT_TOOLSETS } : {}),
    ...(env.REQLIX_PUBLIC_URL?.trim() ? { publicUrl: env.REQLIX_PUBLIC_URL.trim() } : {}),
    ...requestStateSecretOf(env),
    rateLimiter,
    adminRateLimiter,
    // The SDK's default validator (ajv) compiles with `new Function`, which workerd forbids (DESIGN).
    jsonSchemaValidator: noSchemaValidation,
  };
}

// One app per isolate: bindings do not change within an isolate, and building the app (registry schemas,
// the libSQL client) per request would waste the CPU a Worker is billed for.
let cached: Hono<AppEnv> | undefined;

function app(env: Env): Hono<AppEnv> {
  cached ??= createApp(workerDeps(env));
  return cached;
}

/**
 * Reads to the end a request body the app answered without reading (a 401, 403 or 413 is decided from the
 * headers alone). Under `wrangler dev` the request reaches this Worker from wrangler's proxy Worker over a
 * pooled workerd connection; a response that leaves body bytes unread can break that connection, and the
 * proxy's next request on it fails before reaching us: wrangler answers it with its own 503 "Your worker
 * restarted mid-request" (workers-sdk#5095). `wrangler dev` normally injects a middleware doing exactly
 * this, but only into bundles it builds for dev, so the pre-built bundle the tests run (the one `wrangler
 * deploy` uploads) has to do it itself. On Cloudflare it costs the read of a body the client sent anyway.
 */
export async function drainUnreadBody(request: Request): Promise<void> {
  const body = request.body;
  // Locked: a reader (hono's streaming body limit) owns the stream and settles it itself.
  if (body === null || request.bodyUsed || body.locked) return;
  try {
    const reader = body.getReader();
    while (!(await reader.read()).done) {
      // discard
    }
  } catch {
    // The client went away mid-body: nothing left to drain.
  }
}

/** Hands a request to the app, then drains what it left unread: the fetch of every Worker entry (tests too). */
export async function serve(
  instance: Hono<AppEnv>,
  request: Request,
  env: Env,
  ctx: ExecutionContext,
): Promise<Response> {
  try {
    return await instance.fetch(request, env, ctx);
  } finally {
    await drainUnreadBody(request);
  }
}

export default {
  async fetch(request, env, ctx) {
    let instance: Hono<AppEnv>;
    try {
      instance = app(env);
    } catch (error) {
      // A misconfigured Worker says what to fix instead of an opaque 500 (the message names no secret).
      const message = error instanceof Error ? error.message : String(error);
      console.error(JSON.stringify({ level: "error", msg: "worker configuration", error: message }));
      await drainUnreadBody(request);
      return Response.json({ error: "misconfigured", message }, { status: 500 });
    }
    return serve(instance, request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
