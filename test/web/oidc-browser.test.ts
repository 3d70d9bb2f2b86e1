/**
 * Upstream OpenID Connect sign-in (issue 12 item 4) against a real OpenID provider (oidc-provider, on a
 * free port in this process) driven in Chromium: code flow with PKCE, state and nonce; a user with that
 * verified email signs in; an unverified or unknown email and a callback this browser did not start are
 * refused, and nothing is created.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import { launchBrowser, seriousViolations, type WebBrowser, type WebPage } from "./browser.js";
import { accountCounts, invitedMember, inviteLink } from "./upstream-helpers.js";
import { startWebServer, WebClient } from "./web-client.js";

let provider: Server;
let server: HostedServer;
let browser: WebBrowser;
/** What the provider says about each login name typed on its form. */
const ACCOUNTS: Record<string, { email: string; verified: boolean }> = {
  olga: { email: "olga@example.com", verified: true },
  mallory: { email: "olga.unverified@example.com", verified: false },
  stranger: { email: "stranger@example.com", verified: true },
  newbie: { email: "Newbie@Example.com", verified: true },
};

beforeAll(async () => {
  provider = createServer();
  await new Promise<void>((done) => provider.listen(0, "127.0.0.1", done));
  const issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  server = await startWebServer({
    deps: {
      oidc: {
        issuer,
        clientId: "reqlix",
        clientSecret: "reqlix-client-secret",
        label: "Test IdP",
        allowHttp: true,
      },
    },
  });
  const op = new Provider(issuer, {
    clients: [
      {
        client_id: "reqlix",
        client_secret: "reqlix-client-secret",
        redirect_uris: [`${server.url}/signin/oidc/callback`],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({
        sub: id,
        ...(ACCOUNTS[id] ? { email: ACCOUNTS[id].email, email_verified: ACCOUNTS[id].verified } : {}),
      }),
    }),
    features: { devInteractions: { enabled: true } },
  });
  provider.on("request", op.callback());
  // olga is a member (she accepted an invitation, which recorded her email).
  await invitedMember(server, { email: "olga@example.com", username: "olga", role: "editor" });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise<void>((done) => {
    provider.closeAllConnections();
    provider.close(() => done());
  });
});

/** From reqlix's sign-in page through the provider's login and consent forms, back to reqlix. */
async function upstreamSignIn(page: WebPage, login: string, next = "/tree", start = "Sign in with Test IdP") {
  if (start === "Sign in with Test IdP")
    await page.goto(`${server.url}/signin?next=${encodeURIComponent(next)}`);
  await Promise.all([page.waitForURL((u) => !u.href.startsWith(server.url)), page.click(`text=${start}`)]);
  await page.fill("input[name=login]", login);
  await page.fill("input[name=password]", "anything");
  await Promise.all([page.waitForLoadState("load"), page.click("button:has-text('Sign-in')")]);
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(server.url)),
    page.click("button:has-text('Continue')"),
  ]);
}

describe("upstream OpenID Connect sign-in in Chromium", () => {
  it("offers the provider on the sign-in page; a member with that verified email signs in and lands on next", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/signin`);
    expect(await page.textContent("main")).toContain("Sign in with Test IdP");
    expect(await seriousViolations(page)).toEqual([]);
    await upstreamSignIn(page, "olga", "/tree");
    expect(new URL(page.url()).pathname).toBe("/tree");
    expect(await page.textContent("header .who")).toContain("olga");
    expect(await page.textContent("header .who")).toContain("editor");
  }, 120_000);

  it("an unverified email or an email of no member is refused, and creates nobody", async () => {
    const before = await accountCounts(server);
    for (const login of ["mallory", "stranger"]) {
      const page = await browser.newPage();
      await upstreamSignIn(page, login);
      expect(new URL(page.url()).pathname).toBe("/signin/oidc/callback");
      expect(await page.textContent("main h1")).toBe("Sign-in refused");
      expect(await page.textContent("main")).toContain(
        login === "mallory" ? "verified email" : "No reqlix member",
      );
      await page.goto(`${server.url}/`);
      expect(new URL(page.url()).pathname).toBe("/signin");
    }
    expect(await accountCounts(server)).toEqual(before);
  }, 120_000);

  it("an invitation accepted with the provider: a new member with the invited role and the verified email", async () => {
    const invitePath = await inviteLink(server, "someone-else@example.com", "viewer");
    const page = await browser.newPage();
    await page.goto(`${server.url}${invitePath}`);
    await upstreamSignIn(page, "newbie", "/", "Join with Test IdP");
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.textContent("header .who")).toContain("Newbie");
    expect(await page.textContent("header .who")).toContain("viewer");
    const rows = await server.database.client.execute(
      "SELECT username, email, password_hash FROM users JOIN user_credentials ON user_id = users.id WHERE email = 'newbie@example.com'",
    );
    expect(rows.rows).toEqual([
      expect.objectContaining({ username: "Newbie", email: "newbie@example.com", password_hash: null }),
    ]);
    // Used up: a second acceptance is refused.
    const again = await browser.newPage();
    await again.goto(`${server.url}${invitePath}`);
    expect(await again.textContent("main")).toContain("already used");
    // Later, the provider alone signs her in.
    const later = await browser.newPage();
    await upstreamSignIn(later, "newbie", "/tree");
    expect(new URL(later.url()).pathname).toBe("/tree");
  }, 120_000);

  it("a callback this browser did not start (no state cookie) or with another state is refused", async () => {
    const client = new WebClient(server.url);
    const none = await client.get("/signin/oidc/callback?code=abc&state=xyz");
    expect(none.status).toBe(400);
    expect(none.text).toContain("not started here");
    // A real start, then a callback carrying another state: the library refuses it before any token request.
    const start = await client.get("/signin/oidc?next=/");
    expect(start.status).toBe(303);
    const authorize = new URL(start.location as string);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("nonce")).toMatch(/.{20,}/);
    const forged = await client.get("/signin/oidc/callback?code=abc&state=forged");
    expect(forged.status).toBe(400);
    expect(forged.text).toContain("did not confirm");
    expect(client.cookies.has("rqx_session")).toBe(false);
  });
});
