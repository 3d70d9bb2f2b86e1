/**
 * An MCP connection over any SDK `Transport` (the companion's stdio, the SDK's in-memory pair in tests):
 * requests go to the one implementation of each method (methods.ts), answers and the request's
 * notifications go back on the transport. No SDK `Server`: the methods, their params checks and their
 * errors are ours, so this face answers exactly as `/mcp` and `/api/v1/mcp` do.
 *
 * Per connection: the log level (`logging/setLevel`) and the requests in flight, so a client's
 * `notifications/cancelled` aborts the handler's signal (and its answer is not sent, as MCP asks).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { BaseContext } from "../core/registry.js";
import type { CompiledRegistry } from "./compile.js";
import { handleMethod, type MethodEnv, type MethodOutcome, type ProtocolSession } from "./methods.js";
import type { Operation, OperationObserver } from "./operations.js";

export interface McpServerConfig<Ctx extends BaseContext> {
  name: string;
  version: string;
  compiled: CompiledRegistry<Ctx>;
  /**
   * Builds the handler context for one request; `op` is the operation it serves (absent for listings), so
   * a face can audit a write inside the write's transaction.
   */
  context(base: BaseContext, op?: Operation): Ctx;
  /** Called for every unexpected failure; returns the text the client reads (default: a generic one). */
  onInternalError?(error: unknown, where: string): string | undefined;
  /** Told once about every tools/call, resources/read and prompts/get, whatever the outcome (audit). */
  observe?: OperationObserver;
}

type RequestId = string | number;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON-RPC response for a method's outcome on an MCP face (a tool's failure is an isError result). */
export function mcpResponse(id: RequestId, outcome: MethodOutcome): JSONRPCMessage {
  if (outcome.ok) return { jsonrpc: "2.0", id, result: outcome.result };
  if (outcome.toolResult) return { jsonrpc: "2.0", id, result: outcome.toolResult };
  const { code, message, data } = outcome.error;
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

export class McpConnection<Ctx extends BaseContext> {
  private transport: Transport | undefined;
  private readonly session: ProtocolSession = {};
  private readonly inFlight = new Map<RequestId, AbortController>();

  constructor(private readonly config: McpServerConfig<Ctx>) {}

  async connect(transport: Transport): Promise<void> {
    this.transport = transport;
    transport.onmessage = (message) => {
      this.receive(message);
    };
    transport.onclose = () => {
      for (const controller of this.inFlight.values()) controller.abort();
      this.inFlight.clear();
    };
    await transport.start();
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }

  private receive(message: JSONRPCMessage): void {
    if (!("method" in message)) return; // a response: this server sends no requests
    if ("id" in message) {
      void this.serve(message.id, message.method, message.params);
      return;
    }
    if (message.method === "notifications/cancelled" && isObject(message.params)) {
      const requestId = message.params.requestId as RequestId;
      this.inFlight.get(requestId)?.abort(message.params.reason);
    }
    // notifications/initialized and the rest need nothing from this server.
  }

  private async serve(id: RequestId, method: string, params: unknown): Promise<void> {
    const transport = this.transport;
    if (!transport) return;
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    const { config } = this;
    const env: MethodEnv<Ctx> = {
      compiled: config.compiled,
      serverInfo: { name: config.name, version: config.version },
      context: config.context,
      ...(config.observe ? { observe: config.observe } : {}),
      onInternalError: (error, where) => config.onInternalError?.(error, where),
      signal: controller.signal,
      session: this.session,
      notify: (n) => transport.send({ jsonrpc: "2.0", ...n }, { relatedRequestId: id }),
    };
    const outcome = await handleMethod(method, params, env);
    this.inFlight.delete(id);
    if (controller.signal.aborted) return; // cancelled: no answer (MCP, cancellation)
    await transport.send(mcpResponse(id, outcome)).catch((error: unknown) => {
      transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
    });
  }
}

/** A connection serving the compiled registry; `connect(transport)` to start it. */
export function createMcpServer<Ctx extends BaseContext>(config: McpServerConfig<Ctx>): McpConnection<Ctx> {
  return new McpConnection(config);
}
