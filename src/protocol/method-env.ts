/**
 * What an MCP method runs with (`MethodEnv`), what it answers (`MethodOutcome`), and the handler's base
 * context built from it: `env` is what differs per request or connection — the compiled registry, the
 * handler context factory, the observer, the internal-error log, the correlation id, the abort signal, a way
 * to send notifications (progress, log messages; absent where the face has no stream) and the connection's
 * `session` (its log level; absent on the plain JSON-RPC face, which then has no logging/setLevel).
 */
import { LoggingLevelSchema } from "@modelcontextprotocol/core";
import type { LoggingLevel } from "@modelcontextprotocol/server";
import type { BaseContext, ContentItem } from "../core/registry.js";
import type { CompiledRegistry } from "./compile.js";
import type { InputExchange } from "./input-exchange.js";
import type { Operation, OperationObserver } from "./operations.js";
import type { RpcError } from "./rpc-errors.js";
import type { ToolScope } from "./tool-selection.js";

export type Result = Record<string, unknown>;

/** A tool result with `isError`: how MCP faces show a tool's failure. */
export interface ToolErrorResult extends Result {
  isError: true;
  content: ContentItem[];
}

export type MethodOutcome =
  | { ok: true; result: Result }
  | { ok: false; error: RpcError; toolResult?: ToolErrorResult };

/** Per connection (stdio, in-memory) or per request (`/mcp`): what `logging/setLevel` set. */
export interface ProtocolSession {
  logLevel?: LoggingLevel;
}

export type ServerNotification = {
  method: "notifications/progress" | "notifications/message";
  params: Record<string, unknown>;
};

export interface MethodEnv<Ctx extends BaseContext> {
  compiled: CompiledRegistry<Ctx>;
  serverInfo: { name: string; version: string };
  /** Builds the handler context; `op` is the operation it serves (absent for listings): see operations.ts. */
  context(base: BaseContext, op?: Operation): Ctx;
  /** Told once about every tools/call, resources/read and prompts/get, whatever the outcome (audit). */
  observe?: OperationObserver;
  /**
   * Logs a failure that is not a DomainError (or is `internal`/`unavailable`). Returns the text the client
   * reads, or undefined for the standard one (`Internal error (request id …)`).
   */
  onInternalError(error: unknown, where: string): string | undefined;
  /** The request id: in internal-error messages and as `data.correlation_id`. */
  correlationId?: string;
  signal: AbortSignal;
  /** Sends a notification tied to this request; absent where the face cannot (no stream). */
  notify?(notification: ServerNotification): Promise<void>;
  /** Present on MCP faces: enables logging/setLevel and the `logging` capability. */
  session?: ProtocolSession;
  /**
   * The connection's toolsets, read-only mode, role and write scope (tool-selection.ts): what tools/list
   * lists and tools/call may run. Absent: every tool (the companion, the web app).
   */
  toolScope?: ToolScope;
  /**
   * Present where the face can carry input requests (MCP 2026-07-28): the request's client capabilities,
   * answers and state (input-exchange.ts). Absent: the context has no `input`, so `askClient` refuses (`cannotAsk`).
   */
  input?: InputExchange;
}

const SEVERITY = new Map<LoggingLevel, number>(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** What a handler's log and progress calls do where the face has no stream to send them on. */
const nowhere = async () => {};

export function baseContext<Ctx extends BaseContext>(env: MethodEnv<Ctx>, params: unknown): BaseContext {
  const notify = env.notify;
  if (!notify) return { signal: env.signal, logToClient: nowhere, progress: nowhere };
  const meta = isPlainObject(params) && isPlainObject(params._meta) ? params._meta : undefined;
  const token = meta?.progressToken as string | number | undefined;
  return {
    signal: env.signal,
    async logToClient(level, data, logger) {
      // Without a setLevel the client gets every message (as the SDK's own sendLoggingMessage does).
      const min = env.session?.logLevel;
      if (min !== undefined && (SEVERITY.get(level) ?? 0) < (SEVERITY.get(min) ?? 0)) return;
      await notify({
        method: "notifications/message",
        params: { level, data, ...(logger === undefined ? {} : { logger }) },
      });
    },
    async progress(progress, total, message) {
      if (token === undefined) return;
      await notify({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      });
    },
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
