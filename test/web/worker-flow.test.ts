/**
 * The web app's flow once against the Worker under `wrangler dev` (workerd, the bundle `wrangler deploy`
 * would upload, the stylesheet and script served by Workers static assets from public/): the same
 * Chromium flow as on Node (flow.ts), plus the session cookie's reach and the asset headers.
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedWorker, startWorker } from "../helpers/workers.js";
import { launchBrowser, type WebBrowser } from "./browser.js";
import { runFlow, seedFlow } from "./flow.js";

let worker: StartedWorker;
let browser: WebBrowser;

beforeAll(async () => {
  // The script is a build artefact (public/assets/app.js, git-ignored): build it as `npm run build` does.
  const built = spawnSync(process.execPath, [resolve(import.meta.dirname, "../../scripts/build-web.mjs")], {
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`build-web failed: ${built.stderr}`);
  worker = await startWorker();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.close();
}, 60_000);

describe("web app in Chromium against the Worker (wrangler dev)", () => {
  it("serves the assets from [assets] with nosniff, outside the Worker", async () => {
    const css = await fetch(`${worker.url}/assets/app.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    expect(css.headers.get("x-content-type-options")).toBe("nosniff");
    const js = await fetch(`${worker.url}/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    const page = await fetch(`${worker.url}/signin`);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("sign in, browse, filter, search, edit with a conflict, comment, approve, history diff; axe on every page", async () => {
    const seed = await seedFlow(worker.url, worker.token, "Worker");
    await runFlow(browser, worker.url, worker.token, seed, "worker-");
  }, 180_000);
});
