/**
 * What `/mcp` and `/api/v1/mcp` share: the compiled hosted registry (computed once per app, never per
 * request), the deps they read, and the per-request scope (handler context, audit observer, internal-error
 * logging) built from the authenticated caller.
 */
import type { Context } from "hono";
import type { Registry } from "../core/registry.js";
import type { Database } from "../db/client.js";
import type { HostedContext } from "../hosted/context.js";
import { hostedRegistry } from "../hosted/registry.js";
import { type CompiledRegistry, compileRegistries } from "../protocol/compile.js";
import type { Operation, OperationObserver } from "../protocol/operations.js";
import { type AuditSink, auditRow, createAuditSink } from "./audit.js";
import type { AppEnv, Logger, RateLimiter } from "./context.js";
import type { TokenCache } from "./token-cache.js";
import { auditedDatabase } from "./write-audit.js";

/** The part of the app's deps the faces read (AppDeps satisfies it). */
export interface FacesDeps {
  database: Database;
  logger: Logger;
  version?: string;
  clock?: () => Date;
  /** Per token / per IP limit for both faces; none → unlimited. */
  rateLimiter?: RateLimiter;
  /** Where audit rows go; created from `database` when absent (one per app, shared by both faces). */
  audit?: AuditSink;
  /** The registries both faces serve; default: the hosted registry. */
  registries?: Registry<HostedContext>[];
  /**
   * A JSON-schema validator for an SDK server. Unused since `/mcp` runs no SDK `Server`
   * (protocol/streamable-http.ts); kept for an SDK-v2 adapter. On the Worker it must not be ajv (ajv
   * compiles with `new Function`, which workerd forbids).
   */
  jsonSchemaValidator?: import("@modelcontextprotocol/sdk/validation").jsonSchemaValidator;
  /** Node's token cache (AppDeps.tokenCache), emptied when a tool changes credentials. */
  tokenCache?: TokenCache;
}

const compiledCache = new WeakMap<object, CompiledRegistry<HostedContext>>();

/** Both faces of one app serve the same compiled registry, compiled at app build. */
export function compiledFor(deps: FacesDeps): CompiledRegistry<HostedContext> {
  const key: object = deps.registries ?? hostedRegistry;
  let compiled = compiledCache.get(key);
  if (!compiled) {
    compiled = compileRegistries(deps.registries ?? [hostedRegistry]);
    compiledCache.set(key, compiled);
  }
  return compiled;
}

export interface RequestScope {
  requestId: string;
  /** With `op`, the context's database audits `op` inside its first write transaction (write-audit.ts). */
  context(base: Pick<HostedContext, "signal" | "progress" | "logToClient">, op?: Operation): HostedContext;
  observe: OperationObserver;
  /** Logs an unexpected failure with its stack under the request id (the correlation id clients see). */
  logInternal(error: unknown, where: string): void;
}

export function requestScope(
  c: Context<AppEnv>,
  deps: FacesDeps,
  audit: AuditSink,
  channel: "mcp" | "jsonrpc" | "web",
): RequestScope {
  const auth = c.get("auth");
  const requestId = c.get("requestId");
  const clock = deps.clock ?? (() => new Date());
  // On Workers the isolate must stay up until an audit row is written (waitUntil). Node has no execution
  // context, and Hono's getter throws there (an Error with a stack per call): @hono/node-server's env
  // carries `incoming`, so Node never asks.
  const onNode = typeof c.env === "object" && c.env !== null && "incoming" in c.env;
  const waitUntil = (promise: Promise<void>) => {
    if (onNode) return;
    try {
      c.executionCtx.waitUntil(promise);
    } catch {
      // app.request() in tests: no execution context either
    }
  };
  const who = { auth, requestId, channel };
  return {
    requestId,
    context: (base, op) => ({
      ...base,
      auth,
      database: op
        ? auditedDatabase(deps.database, op, (row) =>
            auditRow({ method: op.method, target: op.target, outcome: "ok", ...row }, who),
          )
        : deps.database,
      requestId,
      now: clock,
      credentialsChanged: () => deps.tokenCache?.invalidate(),
    }),
    observe(event) {
      if (event.recorded) {
        // The row committed with the write; a failure after that commit (rare: rendering the result)
        // cannot change what was stored, so it is only logged.
        if (event.outcome === "error") {
          deps.logger.log("warn", "call failed after its write committed", {
            requestId,
            target: event.target,
            errorCode: event.errorCode,
          });
        }
        return;
      }
      waitUntil(audit.record(auditRow(event, who)));
    },
    logInternal(error, where) {
      deps.logger.log("error", "internal error", {
        requestId,
        correlationId: requestId,
        channel,
        where,
        error: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      });
    },
  };
}

const auditCache = new WeakMap<Database, AuditSink>();

/** One audit sink per database, shared by both faces (so one flush covers both). */
export function auditFor(deps: FacesDeps): AuditSink {
  if (deps.audit) return deps.audit;
  let sink = auditCache.get(deps.database);
  if (!sink) {
    sink = createAuditSink({ database: deps.database, logger: deps.logger });
    auditCache.set(deps.database, sink);
  }
  return sink;
}
