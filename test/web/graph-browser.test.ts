/**
 * The traceability graph page in Chromium (issue 13): the SVG has every requirement and relationship,
 * suspect links are marked, a click on a node opens its requirement, keyboard focus reaches nodes and
 * highlights neighbours, pan and zoom move the view, axe finds nothing serious. Without JavaScript the same
 * page lists the requirements and relationships.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { toolHttp } from "../helpers/rpc-http.js";
import { screenshot, seriousViolations, signInPage, type WebPage, webAndBrowser } from "./browser.js";

const web = webAndBrowser(120_000);
let viewerToken: string;

const req = (n: number) => `REQ-${String(n).padStart(3, "0")}`;

beforeAll(async () => {
  const editor = await web.server.createToken("erin", "editor");
  viewerToken = await web.server.createToken("vic", "viewer");
  const call = (name: string, args: Record<string, unknown>) => toolHttp(web.server.url, editor, name, args);
  await call("create_epic", { title: "Checkout" }); // EP-001
  await call("create_epic", { title: "Accounts" }); // EP-002
  await call("create_user_story", { epic_id: "EP-001", title: "Pay" }); // US-001
  await call("create_user_story", { epic_id: "EP-002", title: "Sign up" }); // US-002
  // REQ-001..006 in EP-001 (REQ-002's title is hostile), REQ-007 in EP-002.
  const titles = [
    "Card payment",
    '<img src=x onerror="alert(1)">',
    "Receipt",
    "Refund",
    "Audit",
    "Unrelated",
  ];
  for (const title of titles) {
    await call("create_requirement", { user_story_id: "US-001", title, type: "Functional", priority: 2 });
  }
  await call("create_requirement", {
    user_story_id: "US-002",
    title: "Account exists",
    type: "Functional",
    priority: 3,
  });
  for (const [source, target, type] of [
    [1, 2, "depends_on"],
    [1, 2, "relates_to"],
    [2, 3, "derives_from"],
    [4, 1, "blocks"],
    [5, 4, "conflicts_with"],
    [1, 7, "depends_on"],
  ] as const) {
    await call("create_relationship", {
      source_requirement_id: req(source),
      target_requirement_id: req(target),
      relationship_type: type,
    });
  }
  await call("update_requirement", { requirement_id: "REQ-003", description: "Changed since linked." });
}, 120_000);

async function openGraph(page: WebPage): Promise<void> {
  await signInPage(page, web.server.url, viewerToken, "/epics/EP-001/graph");
  await page.waitForSelector("[data-graph-canvas][data-state=ready]");
}

describe("traceability graph in Chromium", () => {
  it("draws every requirement and relationship, marks suspect links, and passes axe", async () => {
    const page = await web.browser.newPage();
    await openGraph(page);
    const nodes = await page.$$eval("svg.graph-svg a.node", (els) =>
      els.map((e) => e.getAttribute("data-id")),
    );
    expect(nodes).toEqual(["REQ-001", "REQ-002", "REQ-003", "REQ-004", "REQ-005", "REQ-006", "REQ-007"]);
    expect(await page.getAttribute('a.node[data-id="REQ-007"]', "class")).toContain("external");
    expect(await page.getAttribute('a.node[data-id="REQ-001"]', "href")).toBe("/requirements/REQ-001");
    const edges = await page.$$eval("svg.graph-svg g.edge", (els) =>
      els.map((e) => `${e.querySelector("title")?.textContent} [${e.getAttribute("class")}]`),
    );
    expect(edges).toEqual([
      "REQ-001 depends_on REQ-002 [edge rel-depends-on]",
      "REQ-001 relates_to REQ-002 [edge rel-relates-to]",
      "REQ-002 derives_from REQ-003 (suspect: target changed) [edge rel-derives-from suspect]",
      "REQ-004 blocks REQ-001 [edge rel-blocks]",
      "REQ-005 conflicts_with REQ-004 [edge rel-conflicts-with]",
      "REQ-001 depends_on REQ-007 [edge rel-depends-on]",
    ]);
    expect(await page.$$eval("g.edge.suspect .suspect-mark", (els) => els.length)).toBe(1);
    // Every edge is a drawn path with an arrowhead; every node has a box and its reference.
    expect(
      await page.$$eval("g.edge path", (els) =>
        els.every((e) => (e as SVGPathElement).getTotalLength() > 10),
      ),
    ).toBe(true);
    expect(await page.textContent('a.node[data-id="REQ-002"] .node-title')).toBe('<img src=x onerror="ale…');
    expect(await page.$$eval("img", (els) => els.length)).toBe(0);
    // The lists stay in the page, collapsed, as the text alternative.
    expect(await page.getAttribute("[data-graph-lists]", "open")).toBeNull();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "graph");
    expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
    const timing = await page.getAttribute("[data-graph-canvas]", "data-paint-ms");
    expect(Number(timing)).toBeGreaterThan(0);
  });

  it("a click on a node opens its requirement page", async () => {
    const page = await web.browser.newPage();
    await openGraph(page);
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/requirements/REQ-004"),
      page.click('a.node[data-id="REQ-004"]'),
    ]);
    expect(new URL(page.url()).pathname).toBe("/requirements/REQ-004");
  });

  it("keyboard: Tab reaches the graph and its nodes, focus highlights the neighbours, keys pan and zoom", async () => {
    const page = await web.browser.newPage();
    await openGraph(page);
    await page.focus("svg.graph-svg");
    const transform = () => page.getAttribute("g.graph-viewport", "transform");
    const before = await transform();
    await page.keyboard.press("ArrowLeft");
    const panned = await transform();
    expect(panned).not.toBe(before);
    await page.keyboard.press("+");
    expect(await transform()).not.toBe(panned);
    await page.keyboard.press("0");
    expect(await transform()).toBe(before);
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.getAttribute('data-id')")).toBe("REQ-001");
    expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe(
      "REQ-001 Card payment",
    );
    expect(await page.evaluate("document.activeElement.querySelector('title').textContent")).toBe(
      "REQ-001 Card payment (Draft, 4 relationships)",
    );
    const near = await page.$$eval("svg.graph-svg.focusing .near", (els) =>
      els.map((e) => e.getAttribute("data-id")),
    );
    // REQ-001 itself, its neighbours REQ-002, REQ-004, REQ-007, and its four edges.
    expect(near.filter((id) => id?.startsWith("REQ")).sort()).toEqual([
      "REQ-001",
      "REQ-002",
      "REQ-004",
      "REQ-007",
    ]);
    expect(near.filter((id) => id?.startsWith("e")).sort()).toEqual(["e0", "e1", "e3", "e5"]);
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.getAttribute('data-id')")).toBe("REQ-002");
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/requirements/REQ-002"),
      page.keyboard.press("Enter"),
    ]);
  });

  it("pointer: wheel zooms, dragging pans and does not follow the link under it", async () => {
    const page = await web.browser.newPage();
    await openGraph(page);
    const transform = () => page.getAttribute("g.graph-viewport", "transform");
    const box = await page.locator("svg.graph-svg").boundingBox();
    if (!box) throw new Error("no graph box");
    const before = await transform();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -400);
    await expect.poll(transform).not.toBe(before);
    const zoomed = await transform();
    const node = await page.locator('a.node[data-id="REQ-001"]').boundingBox();
    if (!node) throw new Error("no node box");
    await page.mouse.move(node.x + 10, node.y + 10);
    await page.mouse.down();
    await page.mouse.move(node.x + 60, node.y + 40, { steps: 5 });
    await page.mouse.up();
    expect(await transform()).not.toBe(zoomed);
    expect(new URL(page.url()).pathname).toBe("/epics/EP-001/graph");
  });

  it("without JavaScript the page lists the requirements and relationships, suspect ones marked", async () => {
    // The app's script is not served (as when scripts are off); the test's own probes still run.
    const page = await web.browser.newPage();
    await page.route("**/assets/app.js", (route) => route.abort());
    await signInPage(page, web.server.url, viewerToken, "/epics/EP-001/graph");
    expect(await page.$$("svg")).toHaveLength(0);
    expect(await page.isVisible("[data-graph-canvas]")).toBe(false);
    const items = await page.$$eval("[data-graph-nodes] li a", (els) =>
      els.filter((a) => a.getAttribute("href")?.startsWith("/requirements/")).map((a) => a.textContent),
    );
    expect(items).toEqual([
      "REQ-001 Card payment",
      'REQ-002 <img src=x onerror="alert(1)">',
      "REQ-003 Receipt",
      "REQ-004 Refund",
      "REQ-005 Audit",
      "REQ-006 Unrelated",
      "REQ-007 Account exists",
    ]);
    const rows = await page.$$eval("[data-graph-edges] tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim()).join(" | ")),
    );
    expect(rows).toEqual([
      "REQ-001 | depends_on | REQ-002 | ",
      "REQ-001 | relates_to | REQ-002 | ",
      "REQ-002 | derives_from | REQ-003 | suspect target changed",
      "REQ-004 | blocks | REQ-001 | ",
      "REQ-005 | conflicts_with | REQ-004 | ",
      "REQ-001 | depends_on | REQ-007 | ",
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "graph-no-js");
  });

  it("phone width: the graph fits the screen and axe passes", async () => {
    const page = await web.browser.newPage({ phone: true });
    await openGraph(page);
    const width = await page.evaluate("document.documentElement.scrollWidth");
    expect(width).toBeLessThanOrEqual(375);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "graph-phone");
  });
});
