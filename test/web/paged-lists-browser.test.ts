/**
 * The paged lists in Chromium: My tokens' "Next page" and home's "More suspect links" are links a click or
 * the keyboard follows to the rest, with no script error and no serious axe violation.
 */
import { describe, expect, it } from "vitest";
import { seedHierarchy, toolHttp } from "../helpers/rpc-http.js";
import { pushTraces, snapshotBody } from "../helpers/traces.js";
import { screenshot, seriousViolations, signInPage, webAndBrowser } from "./browser.js";

const web = webAndBrowser(120_000);

describe("paged lists in the browser", () => {
  it("My tokens: Next page shows the older tokens", async () => {
    const token = await web.server.createToken("ria", "viewer");
    for (let i = 0; i < 21; i++)
      await toolHttp(web.server.url, token, "create_my_token", { name: `key ${i}` });
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, token, "/tokens");
    const rows = () =>
      page.$$eval("main table tbody tr td:first-child", (tds) => tds.map((td) => td.textContent));
    const first = await rows();
    expect(first).toHaveLength(20);
    expect(await page.textContent("main")).toContain("Showing the newest 20 tokens");
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all([page.waitForURL(/\/tokens\?cursor=/), page.click("a[rel=next] >> text=Next page")]);
    const second = await rows();
    expect(second).toEqual(["key 0", "test viewer (this session)"]);
    expect(new Set([...first, ...second]).size).toBe(22);
    expect(await page.$("a[rel=next]")).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
    await screenshot(page, "tokens-next-page");
  });

  it("home: More suspect links, reached with the keyboard, shows the rest", async () => {
    const seeded = await seedHierarchy(web.server.url, web.server.ownerToken, 1, "Browser");
    const r1 = seeded.requirements[0] as string;
    const citations = Array.from({ length: 22 }, (_, i) => ({
      id: r1,
      revision: 1,
      file: "a.ts",
      line: i + 1,
    }));
    expect(
      (await pushTraces(web.server, snapshotBody({ repository: "acme/b", citations }))).status,
    ).toBeLessThan(300);
    await toolHttp(web.server.url, web.server.ownerToken, "update_requirement", {
      requirement_id: r1,
      description: "v2",
    });
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, web.server.ownerToken, "/");
    const items = () =>
      page.$$eval("section[aria-labelledby=suspects] li", (lis) => lis.map((li) => li.textContent));
    const first = await items();
    expect(first).toHaveLength(20);
    expect(await seriousViolations(page)).toEqual([]);
    await page.focus("text=More suspect links");
    await Promise.all([page.waitForURL(/\/\?suspects=.*#suspects$/), page.keyboard.press("Enter")]);
    const second = await items();
    expect(second).toHaveLength(3);
    expect(new Set([...first, ...second]).size).toBe(23);
    expect(await page.$("text=More suspect links")).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
    await screenshot(page, "home-more-suspects");
  });
});
