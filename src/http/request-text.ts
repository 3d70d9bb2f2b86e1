/**
 * The body of a face's POST as text (issue 16: reading it was several µs of a small read on Node).
 *
 * On Node a small request arrives in one packet with its headers, so by the time the route runs the HTTP
 * parser has already buffered the whole body in the `IncomingMessage` (the route runs in the microtasks
 * after the parser's body callback, before it marks the message complete: all the declared bytes are
 * there, none can follow). Taking that buffer with one synchronous `read()` skips what @hono/node-server's `text()` sets up to wait for a body still
 * on its way (a promise, four listeners, flowing mode and their ticks). Anything else — a body still
 * arriving, a chunked or undeclared one (whose size the body limit counts as it streams), a Worker, a
 * test's `app.request()` — is read by `c.req.text()` as before. The decoding is the same either way
 * (`TextDecoder`: UTF-8, invalid bytes replaced, a leading BOM dropped).
 */
import type { Context } from "hono";
import type { AppEnv } from "./context.js";

/** The part of Node's `IncomingMessage` this reads. */
interface BufferedIncoming {
  readableDidRead: boolean;
  readableLength: number;
  readableEncoding: string | null;
  read(): Buffer | null;
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
      return Promise.resolve(bytes === null ? "" : decoder.decode(bytes));
    }
  }
  return c.req.text();
}
