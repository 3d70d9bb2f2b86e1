/**
 * The web app's user flow in Chromium, over any running server (Node in browser-flow.test.ts, the Worker
 * under wrangler dev in worker-flow.test.ts): sign in, browse, filter, search, edit with a conflict,
 * comment, approve, view a history diff; axe on every page; a screenshot of each page.
 */
import { expect } from "vitest";
import { toolHttp } from "../helpers/rpc-http.js";
import { screenshot, seriousViolations, signInPage, type WebBrowser, type WebPage } from "./browser.js";

export interface FlowSeed {
  epic: string;
  story: string;
  requirements: string[];
}

/** One epic, one story, three requirements (REQ b depends on REQ a) through the tools over HTTP. */
export async function seedFlow(baseUrl: string, token: string, label: string): Promise<FlowSeed> {
  const epic = await toolHttp(baseUrl, token, "create_epic", {
    title: `${label} checkout`,
    description: "## Goal\n\nCustomers pay **fast**.\n\n- card\n- invoice",
  });
  const story = await toolHttp(baseUrl, token, "create_user_story", {
    epic_id: epic.reference_id,
    title: `${label} as a shopper I pay by card`,
  });
  const requirements: string[] = [];
  for (const [i, title] of [
    "Card payment succeeds",
    "Card payment is idempotent",
    "Receipt is mailed",
  ].entries()) {
    const r = await toolHttp(baseUrl, token, "create_requirement", {
      user_story_id: story.reference_id,
      title: `${label} ${title}`,
      description: `The system **must** handle ${title.toLowerCase()}.`,
      type: i === 2 ? "Non-Functional" : "Functional",
      priority: i + 1,
    });
    requirements.push(r.reference_id as string);
  }
  await toolHttp(baseUrl, token, "create_relationship", {
    source_requirement_id: requirements[1],
    target_requirement_id: requirements[0],
    relationship_type: "depends_on",
  });
  await toolHttp(baseUrl, token, "create_acceptance_criteria", {
    user_story_id: story.reference_id,
    description: "Given a valid card, when paying, then the order is paid",
  });
  return { epic: epic.reference_id as string, story: story.reference_id as string, requirements };
}

async function check(page: WebPage, name: string): Promise<void> {
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
  await screenshot(page, name);
  expect(page.scriptErrors, page.scriptErrors.join("\n")).toEqual([]);
}

export async function runFlow(
  browser: WebBrowser,
  baseUrl: string,
  token: string,
  seed: FlowSeed,
  prefix: string,
): Promise<void> {
  const [r1, r2, r3] = seed.requirements as [string, string, string];
  const page = await browser.newPage();
  await page.goto(`${baseUrl}/`);
  await check(page, `${prefix}signin`);
  await signInPage(page, baseUrl, token);
  await check(page, `${prefix}home`);
  expect(await page.textContent("#counts + *")).toContain("Requirements");

  // Browse: the tree of the epic, then filter by priority and type.
  await page.click("nav >> text=Requirements");
  // The deferred script attaches the submit-on-change handler: choose only once the page has loaded
  // (a loaded machine chose before it ran, and nothing submitted).
  await page.waitForURL(/\/tree/, { waitUntil: "load" });
  await page.selectOption("#f-epic", seed.epic);
  await page.waitForURL(/epic=/); // the script submits the filter form on change
  expect(await page.locator(".tree").textContent()).toContain(r3);
  await check(page, `${prefix}tree`);
  await page.selectOption("#f-type", "Non-Functional");
  await page.waitForURL(/type=Non-Functional/);
  const filtered = (await page.locator(".tree").textContent()) as string;
  expect(filtered).toContain(r3);
  expect(filtered).not.toContain(r1);

  // Search.
  await page.click("nav >> text=Search");
  await page.fill("#q", "idempotent");
  await page.press("#q", "Enter");
  await page.waitForURL(/q=idempotent/);
  expect(await page.locator(".results").textContent()).toContain(r2);
  await check(page, `${prefix}search`);

  // The requirement page: markdown, relationships, history.
  await page.click(`.results a:has-text("${r2}")`);
  await page.waitForURL(new RegExp(`/requirements/${r2}$`));
  expect(await page.innerHTML(".markdown")).toContain("<strong>must</strong>");
  expect(await page.locator("#outgoing + *").textContent()).toContain(r1);
  await check(page, `${prefix}requirement`);

  // Edit with a conflict: someone else changes it while the form is open.
  await page.click("text=Edit");
  await page.fill("#f-title", "Edited in the browser");
  await check(page, `${prefix}edit`);
  await toolHttp(baseUrl, token, "update_requirement", {
    requirement_id: r2,
    description: "Changed meanwhile",
  });
  await page.click("button:has-text('Save')");
  expect(await page.textContent("[role=alert]")).toContain("changed since you opened this form");
  expect(await page.locator("ins").first().textContent()).toContain("Changed meanwhile");
  expect(await page.inputValue("#f-title")).toBe("Edited in the browser");
  await check(page, `${prefix}conflict`);
  // The description field still holds the text the form was opened with: take the current one, then save.
  await page.fill("#f-description", "Changed meanwhile");
  await page.click("button:has-text('Save')");
  await page.waitForURL(new RegExp(`/requirements/${r2}$`));
  expect(await page.textContent("h1")).toContain("Edited in the browser");

  // Comment and approve.
  await page.fill("#comment-text", "Ship it *now*");
  await page.click("button:has-text('Comment')");
  await page.waitForURL(/#comments$/);
  expect(await page.innerHTML("#comments ~ *, section[aria-labelledby=comments]")).toContain("<em>now</em>");
  await page.click("button:has-text('Approve')");
  await page.waitForURL(/#approvals$/);
  expect(await page.locator("section[aria-labelledby=approvals]").textContent()).toContain("approved");

  // History diff between revision 1 and the latest.
  await page.selectOption("#h-from", "1");
  await page.click("button:has-text('Compare')");
  await page.waitForURL(/from=1/);
  expect(await page.locator("#diff").textContent()).toContain("Edited in the browser");
  await check(page, `${prefix}history-diff`);

  // Story and epic pages.
  await page.goto(`${baseUrl}/stories/${seed.story}`);
  await check(page, `${prefix}story`);
  await page.goto(`${baseUrl}/epics/${seed.epic}`);
  expect(await page.innerHTML(".markdown")).toContain("<strong>fast</strong>");
  await check(page, `${prefix}epic`);
  await page.goto(`${baseUrl}/epics/new`);
  await check(page, `${prefix}epic-new`);
}
