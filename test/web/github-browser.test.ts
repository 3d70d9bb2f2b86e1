/**
 * Sign-in with GitHub (issue 12 item 4) against a GitHub stand-in (github-stand-in.ts: GitHub's documented
 * OAuth-app endpoints and REST answers, as GitHub Enterprise Server lays them out) driven in Chromium: the
 * code flow with state and PKCE S256, the account's verified primary email from `GET /user/emails`, and the
 * same rule as OpenID Connect (an existing member by that email, or the invitation being accepted). Refused
 * and creating nothing: consent denied, another state, a wrong PKCE verifier, an unverified primary email
 * (a verified secondary one does not count), an email of no member, GitHub failing. The client secret and
 * the access tokens never reach the logs or the database.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/cli/libsql-dev-wrangler.js";
import type { HostedServer } from "../helpers/hosted.js";
import { launchBrowser, seriousViolations, type WebBrowser, type WebPage } from "./browser.js";
import { GitHubStandIn, signInThroughGitHub } from "./github-stand-in.js";
import { accountCounts, everyStoredValue, invitedMember, inviteLink } from "./upstream-helpers.js";
import { startWebServer, WebClient } from "./web-client.js";

const CLIENT_ID = "Iv1.reqlixtest0000";
const CLIENT_SECRET = "github-client-secret-0123456789abcdef";

let github: GitHubStandIn;
let server: HostedServer;
let browser: WebBrowser;
/** The origin the stand-in's OAuth app is registered with, when not the main server's. */
let callbackOrigin: string | undefined;

beforeAll(async () => {
  github = await new GitHubStandIn(
    {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      callbackUrl: () => `${callbackOrigin ?? server.url}/signin/github/callback`,
    },
    [
      {
        id: 583231,
        login: "olga-gh",
        emails: [{ email: "olga@example.com", primary: true, verified: true }],
      },
      // Olga's address, unverified: refused.
      {
        id: 700001,
        login: "mallory",
        emails: [{ email: "olga@example.com", primary: true, verified: false }],
      },
      // Olga's address verified but not primary: only the primary counts.
      {
        id: 700002,
        login: "secondary",
        emails: [
          { email: "secondary@example.com", primary: true, verified: true },
          { email: "olga@example.com", primary: false, verified: true },
        ],
      },
      {
        id: 700003,
        login: "stranger",
        emails: [{ email: "stranger@example.com", primary: true, verified: true }],
      },
      {
        id: 700004,
        login: "newbie-gh",
        emails: [{ email: "Newbie@Example.com", primary: true, verified: true }],
      },
    ],
  ).start();
  server = await startWebServer({
    deps: {
      github: {
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        baseUrl: github.url,
        apiUrl: `${github.url}/api/v3`,
        label: "GitHub",
        allowHttp: true,
      },
      // Both kinds of provider at once: one button each (this issuer is never contacted here).
      oidc: {
        issuer: "https://accounts.google.com",
        clientId: "reqlix.apps.googleusercontent.com",
        clientSecret: "google-client-secret",
        label: "Google",
        allowHttp: false,
      },
    },
  });
  await invitedMember(server, { email: "olga@example.com", username: "olga", role: "editor" });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await github?.close();
});

/** From reqlix's sign-in page (or an invitation page already open) through GitHub's consent, back. */
function githubSignIn(
  page: WebPage,
  login: string,
  options: { next?: string; start?: string; decision?: "Authorize" | "Cancel" } = {},
): Promise<void> {
  return signInThroughGitHub(page, { appUrl: server.url, githubUrl: github.url, login, ...options });
}

async function expectRefused(page: WebPage, text: string): Promise<void> {
  expect(new URL(page.url()).pathname).toBe("/signin/github/callback");
  expect(await page.textContent("main h1")).toBe("Sign-in refused");
  expect(await page.textContent("main")).toContain(text);
  await page.goto(`${server.url}/`);
  expect(new URL(page.url()).pathname).toBe("/signin");
}

describe("sign-in with GitHub in Chromium", () => {
  it("the sign-in page offers GitHub and the OpenID provider; a member with that verified primary email signs in", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/signin`);
    const buttons = await page.locator(".oidc-signin a").allTextContents();
    expect(buttons).toEqual(["Sign in with Google", "Sign in with GitHub"]);
    expect(await seriousViolations(page)).toEqual([]);
    await githubSignIn(page, "olga-gh", { next: "/tree" });
    expect(new URL(page.url()).pathname).toBe("/tree");
    expect(await page.textContent("header .who")).toContain("olga");
    expect(await page.textContent("header .who")).toContain("editor");
    // What reqlix asked GitHub for, and how.
    const authorize = github.authorizeRequests.at(-1) as URLSearchParams;
    expect(authorize.get("client_id")).toBe(CLIENT_ID);
    expect(authorize.get("redirect_uri")).toBe(`${server.url}/signin/github/callback`);
    expect(authorize.get("scope")).toBe("read:user user:email");
    expect(authorize.get("code_challenge_method")).toBe("S256");
    expect(authorize.get("state")).toMatch(/^[\w-]{40,}$/);
    const token = github.tokenRequests.at(-1);
    expect(token?.accept).toContain("application/json");
    expect(token?.form.code_verifier).toMatch(/^[\w-]{43,128}$/);
    expect(
      createHash("sha256")
        .update(token?.form.code_verifier ?? "")
        .digest("base64url"),
    ).toBe(authorize.get("code_challenge"));
    expect(token?.form.redirect_uri).toBe(`${server.url}/signin/github/callback`);
    const session = await server.database.client.execute(
      "SELECT method FROM session_tokens ORDER BY token_id DESC LIMIT 1",
    );
    expect(session.rows[0]?.method).toBe("github");
  }, 120_000);

  it("an unverified primary email, a verified secondary one, or an email of no member is refused, and creates nothing", async () => {
    const before = await accountCounts(server);
    for (const [login, text] of [
      ["mallory", "did not give a verified primary email address"],
      ["secondary", "No reqlix member has the email secondary@example.com"],
      ["stranger", "No reqlix member has the email stranger@example.com"],
    ] as const) {
      const page = await browser.newPage();
      await githubSignIn(page, login);
      await expectRefused(page, text);
    }
    expect(await accountCounts(server)).toEqual(before);
  }, 120_000);

  it("consent denied on GitHub, or GitHub failing at the token endpoint or the API: a clear page, nothing created", async () => {
    const before = await accountCounts(server);
    const denied = await browser.newPage();
    await githubSignIn(denied, "olga-gh", { decision: "Cancel" });
    await expectRefused(denied, "You did not allow reqlix on GitHub");
    expect(server.logs.join("\n")).toContain('"upstreamError":"access_denied"');
    for (const failing of ["token", "api"] as const) {
      github.failing = failing;
      try {
        const page = await browser.newPage();
        await githubSignIn(page, "olga-gh");
        await expectRefused(page, "GitHub could not be reached or failed: try again in a moment.");
      } finally {
        github.failing = undefined;
      }
    }
    expect(await accountCounts(server)).toEqual(before);
  }, 120_000);

  it("an invitation accepted with GitHub: a new member with the invited role and GitHub's verified email", async () => {
    const invitePath = await inviteLink(server, "someone-else@example.com", "viewer");
    const page = await browser.newPage();
    await page.goto(`${server.url}${invitePath}`);
    await githubSignIn(page, "newbie-gh", { start: "Join with GitHub" });
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.textContent("header .who")).toContain("viewer");
    const rows = await server.database.client.execute(
      "SELECT username, email, password_hash FROM users JOIN user_credentials ON user_id = users.id WHERE email = 'newbie@example.com'",
    );
    // The username comes from the verified email, never from the GitHub login.
    expect(rows.rows).toEqual([
      expect.objectContaining({ username: "Newbie", email: "newbie@example.com", password_hash: null }),
    ]);
    const again = await browser.newPage();
    await again.goto(`${server.url}${invitePath}`);
    expect(await again.textContent("main")).toContain("already used");
    const later = await browser.newPage();
    await githubSignIn(later, "newbie-gh", { next: "/tree" });
    expect(new URL(later.url()).pathname).toBe("/tree");
  }, 120_000);

  it("a callback this browser did not start, with another state, or with a verifier GitHub refuses: refused before any session", async () => {
    const client = new WebClient(server.url);
    const none = await client.get("/signin/github/callback?code=abc&state=xyz");
    expect(none.status).toBe(400);
    expect(none.text).toContain("not started here");

    // Another state: refused by the library before any token request.
    const requests = github.tokenRequests.length;
    await client.get("/signin/github?next=/");
    const forged = await client.get("/signin/github/callback?code=abc&state=forged");
    expect(forged.status).toBe(400);
    expect(forged.text).toContain("GitHub did not confirm the sign-in");
    expect(github.tokenRequests.length).toBe(requests);

    // A real code, but the verifier in this browser's cookie is not the one the challenge was made of:
    // GitHub answers 200 with `error: bad_verification_code`, and reqlix refuses.
    const start = await client.get("/signin/github?next=/");
    const authorize = new URL(start.location as string);
    const pending = JSON.parse(Buffer.from(client.cookies.get("rqx_github") ?? "", "base64url").toString());
    client.cookies.set(
      "rqx_github",
      Buffer.from(JSON.stringify({ ...pending, verifier: "x".repeat(64) })).toString("base64url"),
    );
    const consent = await fetch(`${github.url}/login/oauth/authorize`, {
      method: "POST",
      body: new URLSearchParams({
        ...Object.fromEntries(authorize.searchParams),
        login: "olga-gh",
        decision: "authorize",
      }),
      redirect: "manual",
    });
    const back = new URL(consent.headers.get("location") as string);
    const wrongVerifier = await client.get(`${back.pathname}${back.search}`);
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.text).toContain("GitHub did not confirm the sign-in");
    expect(github.tokenRequests.at(-1)?.form.code_verifier).toBe("x".repeat(64));
    expect(server.logs.join("\n")).toContain("the token endpoint refused the code: bad_verification_code");
    expect(client.cookies.has("rqx_session")).toBe(false);
  });

  it("GitHub's API unreachable (connection refused): a clear page, no session", async () => {
    const closedPort = await freePort();
    const cut = await startWebServer({
      deps: {
        github: {
          clientId: CLIENT_ID,
          clientSecret: CLIENT_SECRET,
          baseUrl: github.url,
          apiUrl: `http://127.0.0.1:${closedPort}/api/v3`,
          label: "GitHub",
          allowHttp: true,
        },
      },
    });
    callbackOrigin = cut.url;
    try {
      const before = await accountCounts(cut);
      const page = await browser.newPage();
      await signInThroughGitHub(page, { appUrl: cut.url, githubUrl: github.url, login: "olga-gh" });
      expect(await page.textContent("main h1")).toBe("Sign-in refused");
      expect(await page.textContent("main")).toContain(
        "GitHub could not be reached or failed: try again in a moment.",
      );
      expect(cut.logs.join("\n")).toMatch(/upstream sign-in refused.*GET \/user: /);
      expect(await accountCounts(cut)).toEqual(before);
    } finally {
      callbackOrigin = undefined;
      await cut.close();
    }
  });

  it("the client secret and GitHub's access tokens are in no log line and no database row", async () => {
    expect(github.issuedTokens.length).toBeGreaterThan(2);
    const logs = server.logs.join("\n");
    const stored = await everyStoredValue(server);
    expect(logs).toContain("upstream sign-in refused");
    for (const secret of [CLIENT_SECRET, ...github.issuedTokens]) {
      expect(logs).not.toContain(secret);
      expect(stored).not.toContain(secret);
    }
  });
});
