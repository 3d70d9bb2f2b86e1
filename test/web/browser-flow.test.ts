/**
 * The web app in Chromium on Node: the whole user flow (flow.ts), keyboard-only navigation, phone width,
 * XSS payloads in every text field with no script running, and the session cookie out of scripts' reach.
 */
import { describe, expect, it } from "vitest";
import { toolHttp } from "../helpers/rpc-http.js";
import { screenshot, seriousViolations, signInPage, tabOrder, webAndBrowser } from "./browser.js";
import { runFlow, seedFlow } from "./flow.js";

const web = webAndBrowser(60_000);

describe("web app in Chromium (Node)", () => {
  it("sign in, browse, filter, search, edit with a conflict, comment, approve, history diff; axe on every page", async () => {
    const seed = await seedFlow(web.server.url, web.server.ownerToken, "Flow");
    await runFlow(web.browser, web.server.url, web.server.ownerToken, seed, "node-");
  }, 120_000);

  it("works with the keyboard alone", async () => {
    const seed = await seedFlow(web.server.url, web.server.ownerToken, "Keys");
    const page = await web.browser.newPage();
    await page.goto(`${web.server.url}/signin`);
    // The first Tab stop is the skip link; after the brand link the password form (login, password, its
    // button), then the token field.
    const first = await tabOrder(page, 6);
    expect(first[0]).toContain("Skip to content");
    expect(first[2]).toContain("input#login");
    expect(first[3]).toContain("input#password");
    expect(first[5]).toContain("input#token");
    await page.keyboard.type(web.server.ownerToken);
    await Promise.all([page.waitForURL((u) => u.pathname === "/"), page.keyboard.press("Enter")]);
    // Skip link → main; the focused element is visibly outlined.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await page.evaluate("document.activeElement.id")).toBe("main");
    // Reach "Search" in the navigation by Tab, open it with Enter, type, submit with Enter.
    await page.goto(`${web.server.url}/`);
    let found = false;
    for (let i = 0; i < 12 && !found; i++) {
      await page.keyboard.press("Tab");
      found = ((await page.evaluate("document.activeElement.textContent")) as string).trim() === "Search";
    }
    expect(found).toBe(true);
    const outline = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle");
    expect(outline).not.toBe("none");
    await Promise.all([page.waitForURL(/\/search$/), page.keyboard.press("Enter")]);
    await page.keyboard.press("/"); // the script focuses the search box
    await page.keyboard.type("Keys idempotent");
    await Promise.all([page.waitForURL(/q=Keys/), page.keyboard.press("Enter")]);
    // Tab to the first result and open it.
    let onResult = false;
    for (let i = 0; i < 20 && !onResult; i++) {
      await page.keyboard.press("Tab");
      onResult = (
        (await page.evaluate("document.activeElement.getAttribute('href') || ''")) as string
      ).startsWith("/requirements/");
    }
    expect(onResult).toBe(true);
    await Promise.all([page.waitForURL(/\/requirements\/REQ-/), page.keyboard.press("Enter")]);
    expect(await page.textContent("h1")).toContain(seed.requirements[1]);
  }, 60_000);

  it("is usable at phone width: no sideways scrolling, navigation reachable", async () => {
    const seed = await seedFlow(web.server.url, web.server.ownerToken, "Phone");
    const page = await web.browser.newPage({ phone: true });
    await signInPage(page, web.server.url, web.server.ownerToken);
    for (const [name, path] of [
      ["phone-home", "/"],
      ["phone-tree", `/tree?epic=${seed.epic}`],
      ["phone-requirement", `/requirements/${seed.requirements[0]}`],
    ] as const) {
      await page.goto(`${web.server.url}${path}`);
      const overflow = (await page.evaluate(
        "document.documentElement.scrollWidth - window.innerWidth",
      )) as number;
      expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      expect(await page.isVisible("nav >> text=Search")).toBe(true);
      await screenshot(page, name);
    }
  }, 60_000);

  it("runs no script from XSS payloads stored in every text field", async () => {
    const x = (field: string) =>
      `<script>window.__xss=(window.__xss||[]).concat("${field}")</script><img src=x onerror="window.__xss=(window.__xss||[]).concat('${field}')"><svg onload="window.__xss=1"> [link](javascript:window.__xss=1) "'><iframe srcdoc="<script>parent.__xss=1</script>">`;
    const admin = web.server.ownerToken;
    // Type names are restricted to letters, digits and a few marks by create_requirement_type: no payload fits.
    const epic = await toolHttp(web.server.url, admin, "create_epic", {
      title: x("epic title").slice(0, 200),
      description: x("epic description"),
    });
    const story = await toolHttp(web.server.url, admin, "create_user_story", {
      epic_id: epic.reference_id,
      title: x("story title").slice(0, 200),
      description: x("story description"),
    });
    const req = await toolHttp(web.server.url, admin, "create_requirement", {
      user_story_id: story.reference_id,
      title: x("req title").slice(0, 200),
      description: x("req description"),
      type: "Functional",
      priority: 2,
      change_note: x("change note"),
    });
    const other = await toolHttp(web.server.url, admin, "create_requirement", {
      user_story_id: story.reference_id,
      title: x("req2 title").slice(0, 200),
      type: "Functional",
      priority: 3,
    });
    await toolHttp(web.server.url, admin, "create_relationship", {
      source_requirement_id: other.reference_id,
      target_requirement_id: req.reference_id,
      relationship_type: "relates_to",
    });
    await toolHttp(web.server.url, admin, "create_acceptance_criteria", {
      user_story_id: story.reference_id,
      title: x("ac title").slice(0, 200),
      description: x("ac description"),
    });
    await toolHttp(web.server.url, admin, "update_requirement", {
      requirement_id: req.reference_id,
      description: x("req description 2"),
      change_note: x("change note 2"),
    });
    await toolHttp(web.server.url, admin, "add_comment", { id: req.reference_id, text: x("comment") });
    const current = await toolHttp(web.server.url, admin, "get_requirement", {
      requirement_id: req.reference_id,
    });
    await toolHttp(web.server.url, admin, "request_changes", {
      id: req.reference_id,
      revision: current.revision,
      comment: x("verdict"),
    });
    await toolHttp(web.server.url, admin, "create_baseline", {
      name: "xss baseline",
      description: x("baseline"),
    });

    const page = await web.browser.newPage();
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await signInPage(page, web.server.url, web.server.ownerToken);
    const r = req.reference_id as string;
    const pages = [
      "/",
      `/tree?epic=${epic.reference_id}`,
      `/epics/${epic.reference_id}`,
      `/stories/${story.reference_id}`,
      `/requirements/${r}`,
      `/requirements/${r}?from=1&to=2`,
      `/requirements/${other.reference_id}`,
      `/requirements/${r}/edit`,
      `/search?q=${encodeURIComponent(x("query"))}`,
      `/search?q=script`,
      `/?baseline=${encodeURIComponent(x("notice"))}`,
    ];
    for (const path of pages) {
      await page.goto(`${web.server.url}${path}`);
      expect(await page.evaluate("window.__xss"), `script ran on ${path}`).toBeUndefined();
      const injected = (await page.evaluate(
        "document.querySelectorAll('script:not([src]), img[src=x], svg[onload], iframe, [onerror], [onload], a[href^=javascript]').length",
      )) as number;
      expect(injected, `markup injected on ${path}`).toBe(0);
      expect(await page.content()).toContain("&lt;script&gt;");
    }
    expect(violations, "a CSP violation means markup got through escaping").toEqual([]);
    await screenshot(page, "xss-requirement");
  }, 120_000);

  it("every page passes axe for the viewer role too (no edit forms)", async () => {
    const seed = await seedFlow(web.server.url, web.server.ownerToken, "Viewer");
    const token = await web.server.createToken("browser-viewer", "viewer");
    const page = await web.browser.newPage();
    await signInPage(page, web.server.url, token);
    for (const path of [
      "/",
      `/tree?epic=${seed.epic}`,
      `/requirements/${seed.requirements[0]}`,
      "/search?q=card",
    ]) {
      await page.goto(`${web.server.url}${path}`);
      expect(await seriousViolations(page), path).toEqual([]);
      expect(await page.locator("text=Edit").count()).toBe(0);
    }
  }, 60_000);
});
