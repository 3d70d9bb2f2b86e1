/**
 * Fetching client ID metadata documents safely (issue 12): https only (loopback only when allowed), no
 * private or loopback literal addresses, no redirects followed, 16 KiB and a time limit, JSON only, the
 * document must name itself, and its redirect URIs pass the same checks as a registration. Real https
 * servers on loopback; the unreachable-address cases never open a socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  documentUrlProblem,
  fetchClientDocument,
  MAX_DOCUMENT_BYTES,
} from "../../src/http/oauth-client-document.js";
import { startTlsServer, type TlsServer } from "../helpers/tls-loopback.js";

let tls: TlsServer;
const docs = new Map<
  string,
  { status?: number; type?: string; body: string; delayMs?: number; location?: string }
>();

beforeAll(async () => {
  tls = await startTlsServer((req, res) => {
    const doc = docs.get(req.url ?? "");
    if (!doc) return void res.writeHead(404).end();
    setTimeout(() => {
      res
        .writeHead(doc.status ?? 200, {
          "content-type": doc.type ?? "application/json",
          ...(doc.location ? { location: doc.location } : {}),
        })
        .end(doc.body);
    }, doc.delayMs ?? 0);
  });
});
afterAll(async () => tls?.close());

function serve(path: string, doc: Record<string, unknown> | string, extra = {}) {
  docs.set(path, { body: typeof doc === "string" ? doc : JSON.stringify(doc), ...extra });
  return `${tls.url}${path}`;
}

const valid = (id: string) => ({
  client_id: id,
  client_name: "Doc client",
  redirect_uris: ["https://app.example/callback"],
  token_endpoint_auth_method: "none",
});

describe("client ID metadata document fetching", () => {
  it("refuses URLs that are not https or that name a private or loopback address", () => {
    expect(documentUrlProblem("http://app.example/client.json")).toContain("https");
    for (const host of [
      "127.0.0.1",
      "10.0.0.5",
      "192.168.1.1",
      "172.16.0.1",
      "169.254.169.254",
      "[::1]",
      "localhost",
    ]) {
      expect(documentUrlProblem(`https://${host}/client.json`), host).toMatch(/public host|https/);
    }
    expect(documentUrlProblem("https://user:pw@app.example/client.json")).toContain("credentials");
    expect(documentUrlProblem("https://app.example/")).toContain("path");
    expect(documentUrlProblem("https://app.example/client.json")).toBeUndefined();
    expect(documentUrlProblem("https://127.0.0.1:8443/client.json", { allowLoopback: true })).toBeUndefined();
  });

  it("accepts a valid document that names itself", async () => {
    const url = `${tls.url}/ok.json`;
    serve("/ok.json", valid(url));
    const result = await fetchClientDocument(url, { allowLoopback: true, fetch: tls.fetch });
    expect(result).toMatchObject({ ok: true, metadata: { client_name: "Doc client" } });
  });

  it("refuses what is not a safe, self-naming, small JSON document", async () => {
    const cases: [string, Record<string, unknown> | string, object, string][] = [
      ["/other-id.json", valid("https://elsewhere.example/client.json"), {}, "name its own URL"],
      ["/not-json.json", "{nope", {}, "not JSON"],
      ["/html.json", "<html></html>", { type: "text/html" }, "application/json"],
      ["/redirect.json", "", { status: 302, location: "https://evil.example/x.json" }, "HTTP 302"],
      ["/big.json", `{"client_id":"x","pad":"${"a".repeat(MAX_DOCUMENT_BYTES)}"}`, {}, "larger than"],
      ["/secret.json", { token_endpoint_auth_method: "client_secret_basic" }, {}, '"none"'],
      ["/js.json", { redirect_uris: ["javascript:alert(1)"] }, {}, "javascript"],
      ["/slow.json", {}, { delayMs: 1_500 }, "timed out"],
    ];
    for (const [path, doc, extra, message] of cases) {
      const url = `${tls.url}${path}`;
      const body = typeof doc === "string" ? doc : { ...valid(url), ...doc };
      serve(path, body, extra);
      const result = await fetchClientDocument(url, {
        allowLoopback: true,
        fetch: tls.fetch,
        timeoutMs: 500,
      });
      expect(result.ok, path).toBe(false);
      if (!result.ok) expect(result.error, path).toContain(message);
    }
  });

  it("without the loopback allowance (production), never fetches a loopback URL", async () => {
    const url = serve("/prod.json", valid(`${tls.url}/prod.json`));
    const result = await fetchClientDocument(url, { fetch: tls.fetch });
    expect(result).toEqual({
      ok: false,
      error: "A client_id URL must name a public host, not a private or loopback address.",
    });
  });
});
