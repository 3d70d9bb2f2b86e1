/**
 * An https server on loopback with a self-signed certificate made by openssl for the test, and a `fetch`
 * that trusts exactly that certificate (Node's global fetch reads extra CAs only at process start). For the
 * client ID metadata document tests: the MCP SDK insists on an https client_id URL.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TlsServer {
  url: string;
  ca: string;
  /** A fetch that trusts this server's certificate. */
  fetch: typeof fetch;
  close(): Promise<void>;
}

export async function startTlsServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  /** DNS names the certificate also covers (a test resolver points them at this server). */
  names: string[] = [],
): Promise<TlsServer> {
  const dir = mkdtempSync(join(tmpdir(), "reqlix-tls-"));
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      `subjectAltName=${["IP:127.0.0.1", ...names.map((n) => `DNS:${n}`)].join(",")}`,
    ],
    { stdio: "ignore" },
  );
  const ca = readFileSync(cert, "utf8");
  const server = createServer({ key: readFileSync(key), cert: ca }, handler);
  rmSync(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const trustingFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        url,
        {
          method: init?.method ?? "GET",
          ca,
          headers: Object.fromEntries(new Headers(init?.headers).entries()),
          ...(init?.signal ? { signal: init.signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") headers.set(k, v);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers }));
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
  }) as typeof fetch;
  return {
    url: `https://127.0.0.1:${port}`,
    ca,
    fetch: trustingFetch,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
