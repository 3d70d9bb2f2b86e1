/** The browser harness itself, on the sign-in page and the home page: Chromium, axe, screenshots, cookies. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import { launchBrowser, screenshot, seriousViolations, signInPage, type WebBrowser } from "./browser.js";
import { startWebServer } from "./web-client.js";

let server: HostedServer;
let browser: WebBrowser;

beforeAll(async () => {
  server = await startWebServer();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("web app in Chromium: sign-in", () => {
  it("signs in with a token, shows the home page, and the session cookie is not readable by scripts", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe("/signin");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "signin");
    await signInPage(page, server.url, server.ownerToken);
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.textContent("h1")).toContain("Workspace default");
    expect(await page.evaluate("document.cookie")).not.toContain("rqx_session");
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === "rqx_session")?.httpOnly).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "home");
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
  });
});
