/**
 * The Node HTTP server around the app (src/node.ts): connection limits, binding before the database is
 * opened, and a drain for shutdown.
 *
 * - Limits (issue item 4): a request's headers and then its whole body must arrive within their timeouts
 *   (Node answers 408 and closes), idle keep-alive connections close after their timeout, and connections
 *   beyond the cap are dropped at accept while the open ones keep working.
 * - `listen` binds before the database is touched, so a bad HOST or a busy PORT stops the start before a
 *   database file is made or an owner token printed. Until `serve` hands over the app, requests get 503.
 * - `drain` (issue item 6): stops accepting, closes idle keep-alive connections at once, answers what is in
 *   flight with `Connection: close` (so an open connection carries no request after the one it was busy
 *   with), and resolves once every connection has closed and every handler has settled.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer, type HttpBindings } from "@hono/node-server";
import { errorBody } from "./json-errors.js";

export interface NodeServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

type Fetch = (request: Request, env: HttpBindings) => Response | Promise<Response>;

export interface NodeServer {
  server: Server;
  /** Binds `host:port`; rejects with a one-line `ListenError` naming HOST or PORT and the fix. */
  listen(host: string, port: number): Promise<AddressInfo>;
  /** Serves `fetch` from now on (before, every request gets 503 "starting"). */
  serve(fetch: Fetch): void;
  /**
   * Stops accepting and drains (see the file comment). After `cutOffMs` the connections still open (a
   * client trickling a body, a long stream) are closed, so the caller can still flush and close.
   */
  drain(cutOffMs: number): Promise<void>;
  /** Told about connections dropped at the cap (at most once per 10 s), for the log. */
  onDrop?: (dropped: number) => void;
}

/** A start-up failure of `listen`: one line naming the variable to change and how. */
export class ListenError extends Error {}

function unavailable(request: Request, message: string): Response {
  const path = new URL(request.url).pathname;
  return new Response(JSON.stringify(errorBody(path, "unavailable", message)), {
    status: 503,
    headers: { "content-type": "application/json", "retry-after": "1", connection: "close" },
  });
}

/** The one line for a bind failure: which variable, what is wrong, what to do. */
export function listenErrorMessage(err: NodeJS.ErrnoException, host: string, port: number): string {
  switch (err.code) {
    case "EADDRINUSE":
      return `PORT ${port} is already in use on ${host}. Fix: stop the other server or set PORT to a free port (PORT=0 picks one).`;
    case "EACCES":
      return `PORT ${port} on ${host} needs privileges this process lacks. Fix: set PORT to 1024 or above (PORT=0 picks a free one).`;
    case "EADDRNOTAVAIL":
      return `HOST "${host}" is not an address of this machine. Fix: set HOST to 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or one of this machine's addresses.`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return `HOST "${host}" does not resolve to an address. Fix: set HOST to an IP address (127.0.0.1, 0.0.0.0, ::1) or a resolvable name such as localhost.`;
    default:
      return `cannot listen on HOST "${host}" PORT ${port}: ${err.code ?? err.message}. Fix: check HOST and PORT.`;
  }
}

export function createNodeServer(limits: NodeServerLimits): NodeServer {
  let app: Fetch | undefined;
  let draining = false;
  let inFlight = 0;
  let settled: (() => void) | undefined;

  const fetch = async (request: Request, env: HttpBindings): Promise<Response> => {
    if (!app) return unavailable(request, "The server is starting; retry in a moment.");
    // A request read after the signal was sent before its client could know: answer it, but close the
    // connection behind it, so each open connection carries at most this one more request.
    const closeAfter = () => {
      if (draining && !env.outgoing.headersSent) env.outgoing.setHeader("Connection", "close");
    };
    closeAfter();
    inFlight++;
    try {
      const response = await app(request, env);
      closeAfter(); // the signal came while the handler ran
      return response;
    } finally {
      inFlight--;
      if (inFlight === 0) settled?.();
    }
  };

  const server = createAdaptorServer({
    fetch: fetch as (request: Request, env: unknown) => Promise<Response>,
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts above only this often (default 30 s): check often enough that a
      // slow client is cut off close to its limit.
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
  }) as Server<typeof IncomingMessage, typeof ServerResponse>;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;

  const node: NodeServer = {
    server,
    listen(host, port) {
      return new Promise((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException) =>
          reject(new ListenError(listenErrorMessage(err, host, port)));
        server.once("error", onError);
        server.listen(port, host, () => {
          server.off("error", onError);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    serve(handler) {
      app = handler;
    },
    drain(cutOffMs) {
      draining = true;
      return new Promise<void>((resolve) => {
        let closed = false;
        const handlersDone = new Promise<void>((r) => {
          settled = r;
          if (inFlight === 0) r();
        });
        // close() stops accepting and closes the connections idle right now; the ones busy now become
        // idle when their response is out and are closed by `Connection: close` (or below).
        server.close(() => {
          closed = true;
        });
        const sweep = setInterval(() => {
          server.closeIdleConnections();
          if (closed) {
            clearInterval(sweep);
            clearTimeout(cutOff);
            void handlersDone.then(resolve);
          }
        }, 25);
        const cutOff = setTimeout(() => server.closeAllConnections(), cutOffMs);
      });
    },
  };

  let dropped = 0;
  let lastDropReport = 0;
  server.on("drop", () => {
    dropped++;
    if (Date.now() - lastDropReport >= 10_000) {
      lastDropReport = Date.now();
      node.onDrop?.(dropped);
      dropped = 0;
    }
  });
  return node;
}
