/**
 * The body of a face's POST as text (issue 16: reading it was several µs of a small read on Node).
 *
 * On Node a small request arrives in one packet with its headers, and the route runs in the microtasks
 * after the HTTP parser's body callback: all the declared bytes are already buffered in the
 * `IncomingMessage` (none can follow), and the parser ends the message right after. Taking the bytes with
 * one synchronous `read()` and waiting for that end skips what @hono/node-server's `text()` sets up for a
 * body still on its way (a promise, four listeners, `data` events in flowing mode, their ticks). The answer
 * still goes out only once the message has ended, as before (a response sent while its request is open
 * would have @hono/node-server drain it behind timers). Anything else — a body still arriving, a chunked
 * or undeclared one (whose size the body limit counts as it streams), a Worker, a test's `app.request()`
 * — is read by `c.req.text()` as before. The decoding is the same either way
 * (`TextDecoder`: UTF-8, invalid bytes replaced, a leading BOM dropped).
 */
import type { Context } from "hono";
import type { AppEnv } from "./context.js";

/** The part of Node's `IncomingMessage` this reads. */
interface BufferedIncoming {
  readableDidRead: boolean;
  readableLength: number;
  readableEncoding: string | null;
  readableEnded: boolean;
  read(): Buffer | null;
  resume(): unknown;
  once(event: "end" | "close", listener: () => void): unknown;
}

const decoder = new TextDecoder();

export function requestText(c: Context<AppEnv>): Promise<string> {
  const incoming = (c.env as { incoming?: BufferedIncoming } | undefined)?.incoming;
  if (incoming !== undefined && !incoming.readableDidRead) {
    const declared = c.req.header("content-length");
    // Only a declared length, all of it buffered (the body limit checked that length before the route).
    if (
      declared !== undefined &&
      incoming.readableEncoding === null &&
      c.req.header("transfer-encoding") === undefined &&
      incoming.readableLength === Number(declared)
    ) {
      const bytes = incoming.read();
      const text = bytes === null ? "" : decoder.decode(bytes);
      if (incoming.readableEnded) return Promise.resolve(text);
      // Answer once the parser has ended the message, as the streaming read does: the response then never
      // goes out with its request still open (@hono/node-server would drain it behind timers).
      return new Promise((resolve) => {
        const done = () => resolve(text);
        incoming.once("end", done);
        incoming.once("close", done);
        incoming.resume();
      });
    }
  }
  return c.req.text();
}
