/**
 * The baselines, docsets and audit-log pages in Chromium: what they show, the baseline diff, the docset
 * search, the audit filters, admins only for the audit log, hostile text shown as text, axe on every page.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toolHttp } from "../helpers/rpc-http.js";
import { screenshot, seriousViolations, signInPage, type WebPage, webAndBrowser } from "./browser.js";

const web = webAndBrowser(120_000);
let viewerToken: string;
const XSS = '<img src=x onerror="window.__xss=1">';

beforeAll(async () => {
  const owner = (name: string, args: Record<string, unknown>) =>
    toolHttp(web.server.url, web.server.ownerToken, name, args);
  const editor = await web.server.createToken("erin", "editor");
  viewerToken = await web.server.createToken("vic", "viewer");
  const edit = (name: string, args: Record<string, unknown>) => toolHttp(web.server.url, editor, name, args);
  await edit("create_epic", { title: "Checkout" });
  await edit("create_user_story", { epic_id: "EP-001", title: "Pay" });
  await edit("create_requirement", {
    user_story_id: "US-001",
    title: "Card payment",
    description: "Accept cards.",
    type: "Functional",
    priority: 2,
  });
  await edit("create_baseline", { name: "v1", description: `First ${XSS}`, epic_id: "EP-001" });
  await edit("update_requirement", { requirement_id: "REQ-001", description: "Accept cards and wallets." });
  await edit("create_requirement", {
    user_story_id: "US-001",
    title: "Receipt",
    type: "Functional",
    priority: 3,
  });
  await edit("create_baseline", { name: "v2", epic_id: "EP-001" });
  await owner("register_docset", { name: "react", version: "18.2", aliases: ["reactjs"], description: XSS });
  await owner("upload_docset_pages", {
    docset: "react",
    pages: [
      { path: "reference/use-effect.md", content: "# useEffect\n\nuseEffect synchronizes a component." },
      { path: "learn/hooks.md", content: `# Hooks ${XSS}\n\nHooks let you use state.` },
    ],
  });
}, 120_000);

async function check(page: WebPage, name: string): Promise<void> {
  expect(await seriousViolations(page), name).toEqual([]);
  expect(await page.evaluate("window.__xss")).toBeUndefined();
  expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
  await screenshot(page, name);
}

describe("baselines pages", () => {
  it("lists baselines, shows one as it was, and the diff with now and between two baselines", async () => {
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, viewerToken, "/baselines");
    const rows = await page.$$eval("main table tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent?.trim())),
    );
    expect(rows).toEqual([
      ["v1", "epic EP-001", "3"], // the epic, its story, its requirement
      ["v2", "epic EP-001", "4"],
    ]);
    expect(await page.textContent("main table tbody tr td:nth-child(6)")).toBe(`First ${XSS}`);
    await check(page, "baselines");

    await Promise.all([
      page.waitForURL(/\/baselines\/v1$/),
      page.click("main table a[href='/baselines/v1']"),
    ]);
    const frozen = await page.$$eval("main table tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim()).join(" | ")),
    );
    expect(frozen).toContain("requirement | REQ-001 | 1 | Card payment");
    expect(frozen).not.toContain("requirement | REQ-002 | 1 | Receipt");
    await check(page, "baseline");

    await Promise.all([
      page.waitForURL(/\/baseline-diff\?from=v1$/),
      page.click("text=What changed since this baseline"),
    ]);
    expect(await page.textContent("main h1")).toBe("Changes from baseline v1 to now");
    expect(await page.textContent("main")).toContain("1 changed, 1 added, 0 removed.");
    // The description's word diff: what was added is marked, the rest shown as it was.
    const added = await page.$$eval("main .diff ins", (els) => els.map((e) => e.textContent).join(""));
    expect(added).toContain("wallets");
    expect(await page.textContent("main .diff")).toBe("Accept cards and wallets.");
    await check(page, "baseline-diff");

    // The compare form: v1 against v2.
    await page.selectOption("select[name=to]", "v2");
    await Promise.all([page.waitForURL(/to=v2/), page.click("main form button[type=submit]")]);
    expect(await page.textContent("main h1")).toBe("Changes from baseline v1 to baseline v2");
    expect(await page.textContent("main")).toContain("1 changed, 1 added, 0 removed.");
    await check(page, "baseline-diff-two");
  });

  it("an unknown baseline is a 404 page", async () => {
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, viewerToken, "/");
    const reply = await page.goto(`${web.server.url}/baselines/nope`);
    expect(reply?.status()).toBe(404);
  });
});

describe("docsets pages", () => {
  it("lists docsets and one docset's pages; search shows matching pages with their snippets", async () => {
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, viewerToken, "/docsets");
    expect(await page.textContent("main table tbody")).toContain("react");
    await check(page, "docsets");
    await Promise.all([page.waitForURL(/\/docsets\/react$/), page.click("main table a")]);
    const paths = await page.$$eval("main table tbody tr td:first-child", (tds) =>
      tds.map((td) => td.textContent),
    );
    expect(paths).toEqual(["learn/hooks.md", "reference/use-effect.md"]);
    expect(await page.textContent("main table")).toContain(`Hooks ${XSS}`);
    await page.fill("input[name=q]", "useEffect");
    await Promise.all([page.waitForURL(/q=useEffect/), page.press("input[name=q]", "Enter")]);
    expect(await page.textContent("main ol li strong")).toBe("useEffect");
    expect(await page.$$eval("main ol li mark", (els) => els.length)).toBeGreaterThan(0);
    await check(page, "docset");
  });
});

describe("audit log page", () => {
  it("admins see the trail and filter it by user; the navigation offers it to admins only", async () => {
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, web.server.ownerToken, "/audit");
    expect(await page.textContent("main h1")).toBe("Audit log");
    const users = async () =>
      page.$$eval("main table tbody tr td:nth-child(2)", (tds) =>
        tds.map((td) => td.textContent?.split(" ")[0]),
      );
    expect(await users()).toContain("erin");
    await page.fill("input[name=user]", "erin");
    await page.fill("input[name=tool]", "create_baseline");
    await Promise.all([page.waitForURL(/user=erin/), page.click("main form button[type=submit]")]);
    expect(await users()).toEqual(["erin", "erin"]);
    expect(
      await page.$$eval("main table tbody tr td:nth-child(4) code", (els) => els.map((e) => e.textContent)),
    ).toEqual(["create_baseline", "create_baseline"]);
    await check(page, "audit");

    const viewer = await web.browser.newPage();
    await signInPage(viewer, web.server.url, viewerToken, "/");
    expect(await viewer.$$("nav a[href='/audit']")).toHaveLength(0);
    const refused = await viewer.goto(`${web.server.url}/audit`);
    expect(refused?.status()).toBe(403);
    expect(await viewer.textContent("main")).toContain("needs the admin role");
  });
});
