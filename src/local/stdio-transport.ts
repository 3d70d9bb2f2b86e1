/**
 * The companion's stdio transport: the SDK's `StdioServerTransport` framing (one JSON-RPC message per line)
 * plus the JSON-RPC 2.0 answers the SDK leaves out. The SDK drops a line that is not JSON, or not a JSON-RPC
 * message, without a word; a client then waits forever. Here such a line gets `-32700 Parse error` or
 * `-32600 Invalid Request` (knowledge-docsets REQ-8; DESIGN's error table), with the request's id when
 * one can be read, else `null`.
 */
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, ProtocolErrorCode } from "@modelcontextprotocol/server";

/** Same default as the SDK: a single line larger than this closes the connection. */
const MAX_BUFFER_BYTES = 10 * 1024 * 1024;

function idOf(value: unknown): string | number | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

export class JsonRpcStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private buffer: Buffer | undefined;
  private started = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const index = this.buffer.indexOf(10); // "\n"
      if (index === -1) break;
      const line = this.buffer.toString("utf8", 0, index).replace(/\r$/, "");
      this.buffer = this.buffer.subarray(index + 1);
      this.handleLine(line);
    }
    if (this.buffer.length > MAX_BUFFER_BYTES) {
      this.buffer = undefined;
      this.onerror?.(new Error(`a message exceeded ${MAX_BUFFER_BYTES} bytes; closing`));
      this.close().catch(() => {});
    }
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  private handleLine(line: string): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.reply(
        null,
        ProtocolErrorCode.ParseError,
        `Parse error: the line is not valid JSON (${(error as Error).message}). Send one JSON-RPC 2.0 message per line.`,
      );
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.reply(
        idOf(value),
        ProtocolErrorCode.InvalidRequest,
        'Invalid Request: expected a JSON-RPC 2.0 message ({"jsonrpc":"2.0","id":…,"method":…}).',
      );
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private reply(id: string | number | null, code: number, message: string): void {
    // JSON-RPC 2.0 §5: id is null when it could not be read from the request.
    this.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("JsonRpcStdioServerTransport already started");
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.buffer = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}
