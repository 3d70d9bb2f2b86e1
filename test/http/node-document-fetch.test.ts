/**
 * Node's client ID metadata document fetch resolves names itself (SSRF through DNS): a public name whose
 * addresses include a private one is refused before any connection, and an allowed name is fetched through
 * the connection pinned to the address that was checked. A real https server on loopback with a certificate
 * for the test's name; the resolver is injected so the name can point anywhere without a DNS server.
 */
import type { LookupAddress } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeDocumentOptions, type Resolver } from "../../src/http/node-document-fetch.js";
import { fetchClientDocument, MAX_DOCUMENT_BYTES } from "../../src/http/oauth-client-document.js";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { authorizeQuery, pkcePair } from "../helpers/oauth-http.js";
import { startTlsServer, type TlsServer } from "../helpers/tls-loopback.js";
import { WebClient } from "../web/web-client.js";

const NAME = "docs.example";
let tls: TlsServer;
let requests = 0;
let port = 0;

beforeAll(async () => {
  tls = await startTlsServer(
    (req, res) => {
      requests++;
      const id = `https://${NAME}:${port}${req.url}`;
      if (req.url === "/redirect.json")
        return void res.writeHead(302, { location: "https://x.example/" }).end();
      if (req.url === "/big.json") {
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(`{"client_id":"${id}","pad":"${"a".repeat(MAX_DOCUMENT_BYTES)}"}`);
      }
      if (req.url === "/slow.json") return void setTimeout(() => res.writeHead(200).end("{}"), 1_500);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: id,
          client_name: "Named doc client",
          redirect_uris: ["https://app.example/callback"],
          token_endpoint_auth_method: "none",
        }),
      );
    },
    [NAME],
  );
  port = Number(new URL(tls.url).port);
});
afterAll(async () => tls?.close());

/** A resolver that answers `addresses` for NAME (and counts its calls), like a hostile DNS server would. */
function answering(addresses: string[]) {
  const calls: string[] = [];
  const lookup: Resolver = (hostname, _options, callback) => {
    calls.push(hostname);
    const all: LookupAddress[] = addresses.map((address) => ({
      address,
      family: address.includes(":") ? 6 : 4,
    }));
    queueMicrotask(() => callback(null, all));
  };
  return { lookup, calls };
}

const documentUrl = () => `https://${NAME}:${port}/client.json`;

describe("Node's metadata document fetch checks every resolved address", () => {
  it("refuses a public name that resolves to a private, loopback or mapped address, and sends nothing", async () => {
    const answers = [
      ["127.0.0.1"],
      ["10.0.0.5"],
      ["::1"],
      ["::ffff:127.0.0.1"],
      ["169.254.169.254"],
      ["93.184.216.34", "127.0.0.1"],
    ];
    for (const addresses of answers) {
      const { lookup, calls } = answering(addresses);
      const before = requests;
      const result = await fetchClientDocument(documentUrl(), nodeDocumentOptions({ lookup, ca: tls.ca }));
      const bad = addresses.at(-1);
      expect(result, addresses.join()).toEqual({
        ok: false,
        error: `A client_id URL must name a public host, not a private or loopback address. ${NAME} resolves to the private address ${bad}.`,
      });
      expect(calls, addresses.join()).toEqual([NAME]);
      expect(requests, addresses.join()).toBe(before);
    }
  });

  it("with loopback allowed still refuses other private addresses", async () => {
    const { lookup } = answering(["10.0.0.5"]);
    const before = requests;
    const result = await fetchClientDocument(
      documentUrl(),
      nodeDocumentOptions({ lookup, ca: tls.ca, allowLoopback: true }),
    );
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining("private address 10.0.0.5") });
    expect(requests).toBe(before);
  });

  it("with loopback allowed, fetches the document through the address it checked (resolved once)", async () => {
    const { lookup, calls } = answering(["127.0.0.1"]);
    const before = requests;
    const result = await fetchClientDocument(
      documentUrl(),
      nodeDocumentOptions({ lookup, ca: tls.ca, allowLoopback: true }),
    );
    expect(result).toMatchObject({ ok: true, metadata: { client_name: "Named doc client" } });
    expect(requests).toBe(before + 1);
    expect(calls).toEqual([NAME]);
  });

  it("keeps the document rules through the pinned connection: no redirects, 16 KiB, the time limit", async () => {
    const cases: [string, string][] = [
      ["/redirect.json", "HTTP 302 (redirects are not followed)"],
      ["/big.json", `larger than ${MAX_DOCUMENT_BYTES} bytes`],
      ["/slow.json", "timed out"],
    ];
    for (const [path, message] of cases) {
      const { lookup } = answering(["127.0.0.1"]);
      const result = await fetchClientDocument(
        `https://${NAME}:${port}${path}`,
        nodeDocumentOptions({ lookup, ca: tls.ca, allowLoopback: true, timeoutMs: 500 }),
      );
      expect(result, path).toMatchObject({ ok: false, error: expect.stringContaining(message) });
    }
  });
});

describe("the authorization page", () => {
  let server: HostedServer;
  beforeAll(async () => {
    const { lookup } = answering(["127.0.0.1"]);
    server = await startHosted({ deps: { oauthDocuments: nodeDocumentOptions({ lookup, ca: tls.ca }) } });
  });
  afterAll(async () => server?.close());

  it("answers 400 naming the private address, without fetching or redirecting", async () => {
    const web = new WebClient(server.url);
    await web.signIn(await server.createToken("dana", "editor"));
    const before = requests;
    const { challenge } = pkcePair();
    const reply = await web.get(
      `/oauth/authorize?${authorizeQuery(
        { client_id: documentUrl(), redirect_uri: "https://app.example/callback" },
        challenge,
      )}`,
    );
    expect(reply.status).toBe(400);
    expect(reply.location).toBeNull();
    expect(reply.text).toContain(`${NAME} resolves to the private address 127.0.0.1.`);
    expect(requests).toBe(before);
  });
});
