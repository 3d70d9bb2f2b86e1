/**
 * Sign-in with GitHub on the Worker under `wrangler dev` (issue 12 item 4): the same code with workerd's
 * fetch, configured by `--var` bindings as a deployment would be (REQLIX_GITHUB_*), against the GitHub
 * stand-in (github-stand-in.ts) and driven in Chromium: a member signs in, an email of no member is
 * refused, and no access token reaches the Worker's output.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../../src/db/client.js";
import { type StartedWorker, startWorker } from "../helpers/workers.js";
import { launchBrowser, type WebBrowser } from "./browser.js";
import { GitHubStandIn, signInThroughGitHub } from "./github-stand-in.js";
import { accountCounts, invitedMember } from "./upstream-helpers.js";

let github: GitHubStandIn;
let worker: StartedWorker;
let browser: WebBrowser;

beforeAll(async () => {
  const built = spawnSync(process.execPath, [resolve(import.meta.dirname, "../../scripts/build-web.mjs")], {
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`build-web failed: ${built.stderr}`);
  github = await new GitHubStandIn(
    {
      clientId: "Iv1.workertest",
      clientSecret: "worker-github-secret",
      callbackUrl: () => `${worker.url}/signin/github/callback`,
    },
    [
      {
        id: 4242,
        login: "wanda-gh",
        emails: [{ email: "wanda@example.com", primary: true, verified: true }],
      },
      {
        id: 4243,
        login: "stranger",
        emails: [{ email: "stranger@example.com", primary: true, verified: true }],
      },
    ],
  ).start();
  worker = await startWorker({
    vars: {
      REQLIX_GITHUB_CLIENT_ID: "Iv1.workertest",
      REQLIX_GITHUB_CLIENT_SECRET: "worker-github-secret",
      REQLIX_GITHUB_URL: github.url,
      REQLIX_GITHUB_ALLOW_HTTP: "true",
    },
  });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await github?.close();
}, 60_000);

/** The admin CLI's way, straight on the database file behind the Worker's libSQL endpoint. */
async function onDatabase<T>(work: (s: { database: Database }) => Promise<T>): Promise<T> {
  const database = await openDatabase({ url: `file:${worker.dbFile}` });
  try {
    return await work({ database });
  } finally {
    await database.close();
  }
}

describe("sign-in with GitHub on the Worker (wrangler dev)", () => {
  it("a member signs in with GitHub; an email of no member is refused and creates nothing", async () => {
    await onDatabase((s) =>
      invitedMember(s, { email: "wanda@example.com", username: "wanda", role: "editor" }),
    );
    const page = await browser.newPage();
    await signInThroughGitHub(page, { appUrl: worker.url, githubUrl: github.url, login: "wanda-gh" });
    expect(new URL(page.url()).pathname).toBe("/tree");
    expect(await page.textContent("header .who")).toContain("wanda");
    expect(github.tokenRequests.at(-1)?.form.code_verifier).toMatch(/^[\w-]{43,128}$/);

    const before = await onDatabase((s) => accountCounts(s));
    const stranger = await browser.newPage();
    await signInThroughGitHub(stranger, { appUrl: worker.url, githubUrl: github.url, login: "stranger" });
    expect(await stranger.textContent("main h1")).toBe("Sign-in refused");
    expect(await stranger.textContent("main")).toContain(
      "No reqlix member has the email stranger@example.com",
    );
    expect(await onDatabase((s) => accountCounts(s))).toEqual(before);

    for (const token of github.issuedTokens) expect(worker.output()).not.toContain(token);
  }, 180_000);
});
