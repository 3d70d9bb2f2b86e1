/**
 * An MCP SDK OAuth client (the SDK's own `auth()` and `OAuthClientProvider` with the Streamable HTTP
 * transport) whose "user agent" is headless Chromium: the authorization URL is opened in a page, the user
 * signs in by pasting a token on the sign-in page, reads and answers the consent page, and is sent back to
 * the client's callback, a listener on loopback (startCallbackServer). Used against Node and the
 * Worker alike (test/web/oauth-browser.test.ts, test/workers/oauth-worker.test.ts).
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { expect } from "vitest";
import type { WebPage } from "../web/browser.js";

/**
 * The client's redirect URI: a real listener on loopback, as a native MCP client has (RFC 8252). It answers
 * every callback with a short page and keeps the last query.
 */
export async function startCallbackServer(): Promise<{
  url: string;
  last(): URLSearchParams | undefined;
  close(): Promise<void>;
}> {
  let last: URLSearchParams | undefined;
  const server = createServer((req, res) => {
    last = new URL(req.url ?? "/", "http://127.0.0.1").searchParams;
    res.writeHead(200, { "content-type": "text/plain" }).end("callback reached");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    last: () => last,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let callbackServer: Awaited<ReturnType<typeof startCallbackServer>> | undefined;

/** The callback listener shared by a test file's clients (started on first use; closeCallbackServer ends it). */
export async function callbackUrl(): Promise<string> {
  callbackServer ??= await startCallbackServer();
  return callbackServer.url;
}

export async function closeCallbackServer(): Promise<void> {
  await callbackServer?.close();
  callbackServer = undefined;
}

export class TestOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  lastState = "";
  readonly clientMetadataUrl?: string;

  constructor(
    readonly name: string,
    readonly callback: string,
    options: { clientMetadataUrl?: string; scope?: string } = {},
  ) {
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
    this.metadata = {
      client_name: name,
      redirect_uris: [callback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(options.scope ? { scope: options.scope } : {}),
    };
  }

  readonly metadata: OAuthClientMetadata;
  get redirectUrl(): string {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return this.metadata;
  }
  state(): string {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Connects an SDK client to `<base>/mcp` with `provider` (throws UnauthorizedError when it must authorize). */
export async function connectWith(base: string, provider: OAuthClientProvider): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/**
 * Opens the authorization URL in `page`, signs in with `token` when asked, checks the consent page names
 * `expect.client`, the workspace and the scopes, and presses Allow (or Deny). Returns the callback's query.
 */
export async function consentInBrowser(
  page: WebPage,
  authorizationUrl: URL,
  token: string,
  want: {
    client: string;
    callback: string;
    workspace: string;
    scopes: string[];
    decision?: "Allow" | "Deny";
  },
): Promise<URLSearchParams> {
  await page.goto(authorizationUrl.toString());
  if (new URL(page.url()).pathname === "/signin") {
    await page.fill("#token", token);
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/oauth/authorize"),
      page.press("#token", "Enter"),
    ]);
  }
  const consent = (await page.textContent("main")) ?? "";
  expect(consent).toContain(want.client);
  expect(consent).toContain(want.workspace);
  for (const scope of want.scopes) expect(consent).toContain(scope);
  await Promise.all([
    page.waitForURL((url) => url.toString().startsWith(want.callback)),
    page.click(`button:has-text("${want.decision ?? "Allow"}")`),
  ]);
  return new URL(page.url()).searchParams;
}

/** The whole SDK flow up to a connected client: discovery, registration or CIMD, consent, code exchange. */
export async function authorizeSdkClient(
  base: string,
  provider: TestOAuthProvider,
  page: WebPage,
  token: string,
  want: { workspace: string; scopes: string[] },
): Promise<{ client: Client; callback: URLSearchParams }> {
  const first = await auth(provider, { serverUrl: `${base}/mcp` });
  expect(first).toBe("REDIRECT");
  const url = provider.authorizationUrl as URL;
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  const callback = await consentInBrowser(page, url, token, {
    client: provider.name,
    callback: provider.callback,
    ...want,
  });
  expect(callback.get("state")).toBe(provider.lastState);
  expect(callback.get("iss")).toBe(base);
  const code = callback.get("code");
  if (!code) throw new Error(`no code: ${callback.toString()}`);
  expect(await auth(provider, { serverUrl: `${base}/mcp`, authorizationCode: code })).toBe("AUTHORIZED");
  return { client: await connectWith(base, provider), callback };
}
