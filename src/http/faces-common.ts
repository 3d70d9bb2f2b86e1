/**
 * What `/mcp` and `/api/v1/mcp` share: the compiled hosted registry (computed once per app, never per
 * request), the deps they read, and the per-request scope (handler context, audit observer, internal-error
 * logging) built from the authenticated caller.
 */
import type { Context } from "hono";
import { DomainError } from "../core/errors.js";
import { scopesAllowWrites } from "../core/oauth.js";
import type { BaseContext, Registry } from "../core/registry.js";
import type { Database } from "../db/client.js";
import type { HostedContext } from "../hosted/context.js";
import { hostedRegistry } from "../hosted/registry.js";
import { type CompiledRegistry, compileRegistries } from "../protocol/compile.js";
import type { Operation, OperationObserver } from "../protocol/operations.js";
import { parseToolsets, type ToolScope } from "../protocol/tool-selection.js";
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
  /**
   * The toolsets of a connection that names none (`REQLIX_DEFAULT_TOOLSETS`; names, `default`, `all`);
   * absent: the registry's default ones. An unknown name fails when the app is built.
   */
  defaultToolsets?: string;
  /**
   * The secret (≥ 32 bytes) the `requestState` of MCP 2026-07-28 multi-round-trip requests is signed with,
   * through a derived key (protocol/request-state.ts): `REQLIX_STATE_SECRET`, on the Worker else derived
   * from its database token. Absent: a random key per process or isolate, so a state dies with it.
   */
  requestStateSecret?: string;
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
  context(base: BaseContext, op?: Operation): HostedContext;
  observe: OperationObserver;
  /** Logs an unexpected failure with its stack under the request id (the correlation id clients see). */
  logInternal(error: unknown, where: string): void;
}

const systemClock = () => new Date();

export function requestScope(
  c: Context<AppEnv>,
  deps: FacesDeps,
  audit: AuditSink,
  channel: "mcp" | "jsonrpc" | "web",
): RequestScope {
  const auth = c.get("auth");
  const requestId = c.get("requestId");
  const clock = deps.clock ?? systemClock;
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
  const credentialsChanged = () => deps.tokenCache?.invalidate();
  return {
    requestId,
    // The face's fields, then the base's (signal, progress, …: BaseContext and HostedContext name no field
    // alike). Not `{ ...base, auth, … }`: V8 builds a spread followed by named properties on a slow path
    // (DefineNamedOwnIC misses: ~5 µs of a read through /api/v1/mcp in a profile of bench/faces-read.ts).
    context: (base, op) =>
      Object.assign(
        {
          auth,
          database: op
            ? auditedDatabase(deps.database, op, (row) =>
                auditRow({ method: op.method, target: op.target, outcome: "ok", ...row }, who),
              )
            : deps.database,
          requestId,
          now: clock,
          credentialsChanged,
        },
        base,
      ),
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

/**
 * The connection's tool scope (protocol/tool-selection.ts) from its request: toolsets from `?toolsets=` or
 * `X-MCP-Toolsets` (both may be given only when they agree), read-only from the `/readonly` path or
 * `X-MCP-Readonly`, the caller's role and whether its credential may write (OAuth scopes). Throws a DomainError (invalid_input) naming what to fix.
 */
export function toolScopeOf(
  c: Context<AppEnv>,
  compiled: CompiledRegistry<HostedContext>,
  defaults: readonly string[],
  readOnlyPath: boolean,
): ToolScope {
  const query = c.req.query("toolsets");
  const header = c.req.header("x-mcp-toolsets");
  const fromQuery = query === undefined ? undefined : parseToolsets(compiled.toolsets, query);
  const fromHeader = header === undefined ? undefined : parseToolsets(compiled.toolsets, header);
  if (fromQuery && fromHeader && fromQuery.join(",") !== fromHeader.join(",")) {
    throw DomainError.invalid(
      `The toolsets are given twice and differ: ?toolsets=${query} and X-MCP-Toolsets: ${header}. Give them once.`,
      [{ field: "toolsets", message: "the query parameter and the header differ" }],
    );
  }
  const auth = c.get("auth");
  const toolsets = fromQuery ?? fromHeader ?? defaults;
  const readOnly = readOnlyPath || readOnlyHeader(c.req.header("x-mcp-readonly"));
  // The effective role: an OAuth token's is already capped by its scopes (http/auth.ts).
  const role = auth.role;
  const mayWrite = scopesAllowWrites(auth.oauthScopes);
  if (toolsets !== defaults) return { toolsets, readOnly, role, mayWrite };
  // A connection on the default toolsets (most of them) gets one frozen scope per mode, role and write
  // scope, so the protocol core finds its remembered selection by the object (tool-selection.ts).
  let byMode = defaultScopes.get(defaults);
  if (!byMode) {
    byMode = new Map();
    defaultScopes.set(defaults, byMode);
  }
  const key = `${readOnly}|${role}|${mayWrite}`;
  let scope = byMode.get(key);
  if (!scope) {
    scope = Object.freeze({ toolsets: defaults, readOnly, role, mayWrite });
    byMode.set(key, scope);
  }
  return scope;
}

const defaultScopes = new WeakMap<readonly string[], Map<string, ToolScope>>();

/** The toolsets of a connection that names none; throws at app build for an unknown name. */
export function defaultToolsetsFor(deps: FacesDeps, compiled: CompiledRegistry<HostedContext>): string[] {
  try {
    return parseToolsets(compiled.toolsets, deps.defaultToolsets);
  } catch (error) {
    throw new Error(`REQLIX_DEFAULT_TOOLSETS: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A request whose scope cannot be read (unknown toolset, bad header): 400 with a JSON-RPC error, id null. */
export function scopeRefused(c: Context<AppEnv>, error: unknown): Response {
  if (!(error instanceof DomainError)) throw error;
  const data = error.details.errors ? { errors: error.details.errors } : undefined;
  return c.json(
    { jsonrpc: "2.0", id: null, error: { code: -32602, message: error.message, ...(data ? { data } : {}) } },
    400,
  );
}

function readOnlyHeader(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === "" || v === "false" || v === "0") return false;
  if (v === "true" || v === "1") return true;
  throw DomainError.invalid(`X-MCP-Readonly must be true or false, not "${value}".`, [
    { field: "X-MCP-Readonly", message: "expected true or false" },
  ]);
}
