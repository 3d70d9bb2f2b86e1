/**
 * A small local HTTP proxy that adds `Authorization: Bearer <token>` to every request and forwards it
 * unchanged otherwise: Host and Origin stay as the client sent them (so DNS-rebinding checks see the real
 * values), bodies and responses stream through (SSE included). Used to run clients that cannot send
 * headers of their own (the MCP conformance suite) against the real auth middleware.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface AuthProxy {
  /** `http://localhost:<port>`: the conformance suite requires a localhost URL. */
  url: string;
  port: number;
  /** Requests forwarded so far (method and path), for assertions and debugging. */
  seen: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

export interface AuthProxyOptions {
  /** Where to forward: e.g. `http://127.0.0.1:8787`. */
  target: string;
  /** The bearer token to add; `undefined` forwards without one. */
  token: string | undefined;
}

export async function startAuthProxy(options: AuthProxyOptions): Promise<AuthProxy> {
  const target = new URL(options.target);
  const seen: AuthProxy["seen"] = [];

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    // Keep every header the client sent, Host and Origin included; only add the token.
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = value;
    }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const entry = { method: req.method ?? "GET", path: req.url ?? "/", status: 0 };
    seen.push(entry);
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        setHost: false,
      },
      (up) => {
        entry.status = up.statusCode ?? 0;
        res.writeHead(up.statusCode ?? 502, up.rawHeaders as unknown as Record<string, string>);
        res.flushHeaders();
        up.pipe(res);
      },
    );
    upstream.on("error", (error) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: upstream failed: ${error.message}`);
    });
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  };

  const server: Server = createServer(forward);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
