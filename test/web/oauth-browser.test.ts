/**
 * OAuth 2.1 end to end against the Node server (issue 12 items 3 and 5): the MCP SDK client's own OAuth
 * support (auth() with an OAuthClientProvider, the Streamable HTTP transport) runs discovery (RFC 9728 from
 * the 401's WWW-Authenticate, RFC 8414), Dynamic Client Registration, the authorization request with PKCE
 * S256, the consent page in headless Chromium (sign-in by pasted token, axe-clean), the code exchange, MCP
 * calls, refresh-token rotation and RFC 7009 revocation; the Connected apps page lists and revokes.
 */
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { afterAll, describe, expect, it } from "vitest";
import {
  authorizeSdkClient,
  callbackUrl,
  closeCallbackServer,
  connectWith,
  TestOAuthProvider,
} from "../helpers/oauth-client.js";
import { screenshot, seriousViolations, webAndBrowser } from "./browser.js";

const web = webAndBrowser(120_000);
afterAll(async () => {
  await closeCallbackServer();
});

async function mcpStatus(token: string): Promise<Response> {
  return fetch(`${web.server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
}

describe("OAuth with the MCP SDK client against Node", () => {
  it("discovery → registration → consent in Chromium → token → /mcp calls → refresh → revoke", async () => {
    const token = await web.server.createToken("olga", "editor");
    const provider = new TestOAuthProvider("Olga's SDK client", await callbackUrl());
    const page = await web.browser.newPage();
    // Before authorizing, the SDK is sent to the metadata by the 401.
    const anonymous = await fetch(`${web.server.url}/mcp`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(
      `Bearer realm="reqlix", resource_metadata="${web.server.url}/.well-known/oauth-protected-resource/mcp"`,
    );

    const { client } = await authorizeSdkClient(web.server.url, provider, page, token, {
      workspace: "default",
      scopes: ["reqlix:read", "reqlix:write"],
    });
    expect(provider.client?.client_id).toMatch(/^rqcl_/);
    const first = provider.saved;
    expect(first?.access_token).toMatch(/^rqa_/);
    expect(first?.refresh_token).toMatch(/^rqr_/);
    expect(first?.scope).toBe("reqlix:read reqlix:write");

    const tools = await client.listTools();
    expect(tools.tools.some((t) => t.name === "create_epic")).toBe(true);
    const created = await client.callTool({
      name: "create_epic",
      arguments: { title: "Made over OAuth", description: "by the SDK client" },
    });
    expect(created.isError).toBeFalsy();
    await client.close();
    // The audit trail names the user, through the grant's principal token.
    const audit = await web.server.database.client.execute(
      "SELECT u.username, t.name FROM audit_events a JOIN users u ON u.id = a.user_id JOIN tokens t ON t.id = a.token_id WHERE a.target = 'create_epic' ORDER BY a.id DESC LIMIT 1",
    );
    expect(audit.rows[0]?.username).toBe("olga");
    expect(audit.rows[0]?.name).toBe("OAuth: Olga's SDK client");

    // Refresh: the SDK rotates the refresh token; the new access token works.
    expect(await auth(provider, { serverUrl: `${web.server.url}/mcp` })).toBe("AUTHORIZED");
    const second = provider.saved;
    expect(second?.access_token).not.toBe(first?.access_token);
    expect(second?.refresh_token).not.toBe(first?.refresh_token);
    const again = await connectWith(web.server.url, provider);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    await again.close();

    // Revoke (RFC 7009) the refresh token: the whole grant ends, its access tokens with it.
    const revoked = await fetch(`${web.server.url}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: second?.refresh_token as string,
        token_type_hint: "refresh_token",
        client_id: provider.client?.client_id as string,
      }),
    });
    expect(revoked.status).toBe(200);
    const after = await mcpStatus(second?.access_token as string);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("resource_metadata=");
    expect(((await after.json()) as { error: { message: string } }).error.message).toContain("revoked");
  });

  it("the consent page is accessible, and Connected apps lists the client and revokes it", async () => {
    const token = await web.server.createToken("paul", "viewer");
    const provider = new TestOAuthProvider("Paul's <b>assistant</b>", await callbackUrl(), {
      scope: "reqlix:read",
    });
    const page = await web.browser.newPage();
    const first = await auth(provider, { serverUrl: `${web.server.url}/mcp` });
    expect(first).toBe("REDIRECT");
    // Sign in first, then look at the consent page itself.
    await page.goto(`${web.server.url}/signin`);
    await page.fill("#token", token);
    await Promise.all([page.waitForURL(`${web.server.url}/`), page.press("#token", "Enter")]);
    await page.goto((provider.authorizationUrl as URL).toString());
    expect(await page.textContent("h1")).toContain("Paul's <b>assistant</b>");
    expect(await page.textContent("main")).toContain("viewer");
    expect(await seriousViolations(page)).toEqual([]);
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
    await screenshot(page, "oauth-consent");

    const { client } = await authorizeSdkClient(web.server.url, provider, page, token, {
      workspace: "default",
      scopes: ["reqlix:read"],
    });
    await client.close();
    await Promise.all([
      page.waitForURL(/authorized-clients$/),
      page.goto(`${web.server.url}/authorized-clients`),
    ]);
    expect(await page.textContent("main table")).toContain("Paul's <b>assistant</b>");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "oauth-connected-apps");
    await Promise.all([
      page.waitForURL(/authorized-clients$/),
      page.click("button[aria-label='Revoke: Paul\\'s <b>assistant</b>']"),
    ]);
    expect(await page.textContent("main")).toContain("No application is connected");
    expect((await mcpStatus(provider.saved?.access_token as string)).status).toBe(401);
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
  });
});
