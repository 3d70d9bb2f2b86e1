/**
 * My tokens in Chromium: create a token (shown once, selectable, no script error, axe clean), the secret is
 * gone after a reload and on a later visit, revoke it with the keyboard-reachable button.
 */
import { describe, expect, it } from "vitest";
import { rpcHttp } from "../helpers/rpc-http.js";
import { screenshot, seriousViolations, signInPage, webAndBrowser } from "./browser.js";

const web = webAndBrowser(120_000);

describe("my tokens page", () => {
  it("creates a token shown once, not after a reload, and revokes it", async () => {
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, await web.server.createToken("nina", "viewer"), "/");
    await Promise.all([page.waitForURL(/\/tokens$/), page.click("nav >> text=My tokens")]);
    expect(await page.textContent("main h1")).toBe("My tokens");
    expect(await seriousViolations(page)).toEqual([]);

    await page.fill("#f-name", "CI <b>pipeline</b>");
    await page.fill("#f-expires", "30");
    await Promise.all([page.waitForLoadState("load"), page.click("text=Create token")]);
    const secret = await page.inputValue("#new-token");
    expect(secret).toMatch(/^rqx_[A-Za-z0-9]{32,}$/);
    expect(await page.textContent("main")).toContain("shown this once only");
    expect(await page.textContent("main table")).toContain("CI <b>pipeline</b>");
    expect(await seriousViolations(page)).toEqual([]);
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
    await screenshot(page, "tokens-created");
    // The token works.
    expect(
      (await rpcHttp(web.server.url, secret, "tools/call", { name: "list_epics", arguments: {} })).status,
    ).toBe(200);

    await page.reload();
    expect(await page.content()).not.toContain(secret);
    // The reload did not post the form again (app.js turns the entry into a GET): still one such token.
    const names = await page.$$eval("main table tbody tr td:first-child", (tds) =>
      tds.map((td) => td.textContent),
    );
    expect(names.filter((n) => n?.startsWith("CI <b>pipeline</b>"))).toHaveLength(1);
    await page.goto(`${web.server.url}/tokens`);
    expect(await page.content()).not.toContain(secret);
    expect(await page.$("#new-token")).toBeNull();
    await screenshot(page, "tokens");

    await Promise.all([
      page.waitForURL(/\/tokens$/),
      page.click("button[aria-label='Revoke: CI <b>pipeline</b>']"),
    ]);
    expect(await page.textContent("main table")).toContain("revoked");
    expect(
      (await rpcHttp(web.server.url, secret, "tools/call", { name: "list_epics", arguments: {} })).status,
    ).toBe(401);
    expect(await seriousViolations(page)).toEqual([]);
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
  });
});
