/**
 * OAuth 2.1 against the Worker under `wrangler dev` (issue 12 item 5): the same MCP SDK client flow as on
 * Node (discovery from the 401, Dynamic Client Registration, consent in headless Chromium, code exchange
 * with PKCE, /mcp calls, refresh rotation, RFC 7009 revocation), in workerd over the libSQL endpoint, with
 * the bundle `wrangler deploy` would upload. Client ID metadata documents are covered on Node only: workerd
 * cannot be told to trust the test's self-signed loopback certificate.
 */

import { createClient } from "@libsql/client";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizeSdkClient,
  callbackUrl,
  closeCallbackServer,
  connectWith,
  TestOAuthProvider,
} from "../helpers/oauth-client.js";
import { type StartedWorker, startWorker } from "../helpers/workers.js";
import { launchBrowser, type WebBrowser } from "../web/browser.js";

let worker: StartedWorker;
let browser: WebBrowser;

beforeAll(async () => {
  worker = await startWorker();
  browser = await launchBrowser();
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await closeCallbackServer();
}, 60_000);

async function ping(token: string): Promise<Response> {
  return fetch(`${worker.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
}

describe("OAuth with the MCP SDK client against the Worker (wrangler dev)", () => {
  it("discovery → registration → consent in Chromium → token → /mcp calls → refresh → revoke", async () => {
    const provider = new TestOAuthProvider("Worker SDK client", await callbackUrl());
    const page = await browser.newPage();
    const { client } = await authorizeSdkClient(worker.url, provider, page, worker.token, {
      workspace: "default",
      scopes: ["reqlix:read", "reqlix:write"],
    });
    const created = await client.callTool({
      name: "create_epic",
      arguments: { title: "Made on the Worker over OAuth", description: "by the SDK client" },
    });
    expect(created.isError).toBeFalsy();
    await client.close();

    const first = provider.saved;
    expect(await auth(provider, { serverUrl: `${worker.url}/mcp` })).toBe("AUTHORIZED");
    const second = provider.saved;
    expect(second?.refresh_token).not.toBe(first?.refresh_token);
    const again = await connectWith(worker.url, provider);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    await again.close();

    // Only hashes reached the database behind the Worker.
    const file = createClient({ url: `file:${worker.dbFile}` });
    try {
      const rows = await file.execute("SELECT hash FROM oauth_tokens");
      const all = JSON.stringify(rows.rows);
      for (const secret of [first?.access_token, second?.access_token, second?.refresh_token]) {
        expect(all).not.toContain(secret as string);
      }
    } finally {
      file.close();
    }

    const revoked = await fetch(`${worker.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: second?.refresh_token as string,
        client_id: provider.client?.client_id as string,
      }),
    });
    expect(revoked.status).toBe(200);
    const after = await ping(second?.access_token as string);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toBe(
      `Bearer realm="reqlix", resource_metadata="${worker.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  }, 180_000);
});
