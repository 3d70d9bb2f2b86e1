/**
 * Password sign-in on the Worker under `wrangler dev` (issue 12 item 4): argon2id from @noble/hashes runs in
 * workerd (pure JavaScript: workerd would refuse to compile WebAssembly from bytes), the session works,
 * a wrong password is refused. Prints the time of one sign-in on workerd next to one hash on Node, both
 * measured in this run.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/core/password.js";
import { setPasswordOp } from "../../src/db/account-ops.js";
import { addMemberOp } from "../../src/db/admin-ops.js";
import { openDatabase } from "../../src/db/client.js";
import { type StartedWorker, startWorker } from "../helpers/workers.js";
import { launchBrowser, type WebBrowser } from "./browser.js";

let worker: StartedWorker;
let browser: WebBrowser;

beforeAll(async () => {
  const built = spawnSync(process.execPath, [resolve(import.meta.dirname, "../../scripts/build-web.mjs")], {
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`build-web failed: ${built.stderr}`);
  worker = await startWorker();
  // The admin CLI's operation straight on the database file behind the Worker's libSQL endpoint.
  const database = await openDatabase({ url: `file:${worker.dbFile}` });
  try {
    const cli = { actor: { kind: "cli" as const }, now: new Date() };
    await addMemberOp(database, cli, { username: "wanda", role: "editor" });
    await setPasswordOp(database, cli, { username: "wanda", password: "wanda on workers" });
  } finally {
    await database.close();
  }
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
}, 60_000);

describe("password sign-in on the Worker (wrangler dev)", () => {
  it("refuses a wrong password and signs in with the right one in Chromium", async () => {
    const page = await browser.newPage();
    await page.goto(`${worker.url}/signin`);
    await page.fill("#login", "wanda");
    await page.fill("#password", "not wanda's password");
    await Promise.all([page.waitForLoadState("load"), page.press("#password", "Enter")]);
    expect(await page.textContent("[role=alert]")).toContain("wrong username or password");

    await page.fill("#password", "wanda on workers");
    const start = performance.now();
    await Promise.all([page.waitForURL((url) => url.pathname === "/"), page.press("#password", "Enter")]);
    const workerMs = performance.now() - start;
    expect(await page.textContent("header .who")).toContain("wanda");
    expect(await page.textContent("header .who")).toContain("editor");
    await page.goto(`${worker.url}/tree`);
    expect(new URL(page.url()).pathname).toBe("/tree");
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);

    const nodeStart = performance.now();
    await hashPassword("wanda on workers");
    const nodeMs = performance.now() - nodeStart;
    console.log(
      `password sign-in on workerd: ${workerMs.toFixed(0)} ms (whole request); one argon2id hash on Node: ${nodeMs.toFixed(0)} ms`,
    );
  }, 180_000);
});
