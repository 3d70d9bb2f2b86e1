/**
 * Client ID Metadata Documents end to end (issue 12 items 3, 5): the MCP SDK client names itself by an https
 * URL (its `clientMetadataUrl`), served by this test on loopback with a self-signed certificate; the server
 * fetches and checks the document, the consent page names the client and where its metadata lives, and
 * the SDK completes the flow without registering. The document's own rules (SSRF, size, time, self-naming)
 * are in test/http/oauth-client-document.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import {
  authorizeSdkClient,
  callbackUrl,
  closeCallbackServer,
  TestOAuthProvider,
} from "../helpers/oauth-client.js";
import { startTlsServer, type TlsServer } from "../helpers/tls-loopback.js";
import { launchBrowser, type WebBrowser } from "./browser.js";
import { startWebServer } from "./web-client.js";

let server: HostedServer;
let browser: WebBrowser;
let documents: TlsServer;
let fetched = 0;
let documentBody = "";

beforeAll(async () => {
  documents = await startTlsServer((req, res) => {
    fetched++;
    if (req.url !== "/client.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(documentBody);
  });
  server = await startWebServer({
    deps: { oauthDocuments: { allowLoopback: true, fetch: documents.fetch } },
  });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await documents?.close();
  await closeCallbackServer();
});

describe("client ID metadata documents with the MCP SDK client", () => {
  it("authorizes a client known only by its https metadata URL, without registration", async () => {
    const clientId = `${documents.url}/client.json`;
    const callback = await callbackUrl();
    documentBody = JSON.stringify({
      client_id: clientId,
      client_name: "Metadata Document Client",
      redirect_uris: [callback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    const provider = new TestOAuthProvider("Metadata Document Client", callback, {
      clientMetadataUrl: clientId,
    });
    const registrationsBefore = await server.database.client.execute(
      "SELECT count(*) AS n FROM oauth_clients WHERE source = 'registration'",
    );
    const page = await browser.newPage();
    const { client } = await authorizeSdkClient(
      server.url,
      provider,
      page,
      await server.createToken("cim", "editor"),
      {
        workspace: "default",
        scopes: ["reqlix:read", "reqlix:write"],
      },
    );
    expect(provider.client?.client_id).toBe(clientId);
    expect(fetched).toBeGreaterThan(0);
    const epic = await client.callTool({
      name: "create_epic",
      arguments: { title: "Via CIMD", description: "x" },
    });
    expect(epic.isError).toBeFalsy();
    await client.close();
    const rows = await server.database.client.execute({
      sql: "SELECT source, name FROM oauth_clients WHERE client_id = ?",
      args: [clientId],
    });
    expect(rows.rows[0]).toMatchObject({ source: "metadata_document", name: "Metadata Document Client" });
    const registrationsAfter = await server.database.client.execute(
      "SELECT count(*) AS n FROM oauth_clients WHERE source = 'registration'",
    );
    expect(registrationsAfter.rows[0]?.n).toBe(registrationsBefore.rows[0]?.n);
  });
});
