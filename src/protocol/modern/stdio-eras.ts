/**
 * Both protocol eras on one stdio connection, decided by its first message: a request carrying MCP
 * 2026-07-28's envelope (`_meta["io.modelcontextprotocol/protocolVersion"]`, e.g. a `server/discover` probe)
 * pins the connection to the SDK v2's `serveStdio` (2026-07-28 only, over the registry adapter of
 * server.ts); anything else (`initialize`) pins it to the 2025 connection (mcp-server.ts), which answers
 * as before. A dual-era client's probe therefore succeeds at once instead of failing and falling back.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { BaseContext } from "../../core/registry.js";
import type { McpConnection } from "../mcp-server.js";
import { createModernServer, type ModernServerConfig, NO_INPUT_VALIDATION } from "./server.js";

const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/** True when the message claims a 2026-07-28-era envelope. */
export function claimsModernEnvelope(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_KEY in meta;
}

/**
 * The transport handed to the chosen era: it writes to the real one and is fed the messages read from it,
 * the first one included (held until the era's side has started and set its handler).
 */
class Relay implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private started = false;
  private readonly held: JSONRPCMessage[] = [];

  constructor(private readonly real: Transport) {}

  async start(): Promise<void> {
    this.started = true;
    for (const message of this.held.splice(0)) this.onmessage?.(message);
  }

  deliver(message: JSONRPCMessage): void {
    if (this.started && this.onmessage) this.onmessage(message);
    else this.held.push(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.real.send(message);
  }

  async close(): Promise<void> {
    await this.real.close();
  }
}

export interface BothErasOptions<Ctx extends BaseContext> {
  /** The 2025 connection (initialize, ping, logging/setLevel …). */
  legacy: McpConnection<Ctx>;
  /** What the 2026-07-28 server is built from: the same compiled registry and context. */
  modern: ModernServerConfig<Ctx>;
  onerror?: (error: Error) => void;
}

export interface BothErasConnection {
  /** Which era the connection took (undefined before its first message). */
  era(): "legacy" | "modern" | undefined;
  close(): Promise<void>;
}

export async function serveBothEras<Ctx extends BaseContext>(
  transport: Transport,
  options: BothErasOptions<Ctx>,
): Promise<BothErasConnection> {
  const relay = new Relay(transport);
  let era: "legacy" | "modern" | undefined;
  let closeModern: (() => Promise<void>) | undefined;
  transport.onerror = (error) => (relay.onerror ?? options.onerror)?.(error);
  transport.onclose = () => relay.onclose?.();
  transport.onmessage = (message) => {
    if (era === undefined) {
      era = claimsModernEnvelope(message) ? "modern" : "legacy";
      if (era === "modern") {
        const handle = serveStdio(
          () => createModernServer({ jsonSchemaValidator: NO_INPUT_VALIDATION, ...options.modern }),
          { transport: relay, legacy: "reject", ...(options.onerror ? { onerror: options.onerror } : {}) },
        );
        closeModern = () => handle.close();
      } else {
        options.legacy.connect(relay).catch((error: unknown) => {
          options.onerror?.(error instanceof Error ? error : new Error(String(error)));
        });
      }
    }
    relay.deliver(message);
  };
  await transport.start();
  return {
    era: () => era,
    async close() {
      if (closeModern) await closeModern();
      else if (era === "legacy") await options.legacy.close();
      else await transport.close();
    },
  };
}
