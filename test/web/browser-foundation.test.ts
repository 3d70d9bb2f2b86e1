/** The browser harness itself, on the sign-in page and the home page: Chromium, axe, screenshots, cookies. */
import { describe, expect, it } from "vitest";
import { screenshot, seriousViolations, signInPage, webAndBrowser } from "./browser.js";

const web = webAndBrowser(60_000);

describe("web app in Chromium: sign-in", () => {
  it("signs in with a token, shows the home page, and the session cookie is not readable by scripts", async () => {
    const page = await web.browser.newPage();
    await page.goto(`${web.server.url}/`);
    expect(new URL(page.url()).pathname).toBe("/signin");
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "signin");
    await signInPage(page, web.server.url, web.server.ownerToken);
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
