/**
 * The browser harness of the web app tests: Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) driven
 * by playwright-core — no browser download. Reusable by every web test (the graph, baselines, audit pages):
 *
 *   const browser = await launchBrowser();             // one per test file
 *   const page = await browser.newPage();              // a fresh context: own cookies, phone or desktop
 *   await signInPage(page, server.url, token);
 *   await expectAccessible(page, "home");              // axe-core: no serious or critical violation
 *   await screenshot(page, "home");                    // test/web/screenshots/<name>.png (git-ignored)
 *   expect(page.scriptErrors).toEqual([]);             // page errors and CSP violations seen so far
 *   await browser.close();
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import { startWebServer } from "./web-client.js";

export const SCREENSHOT_DIR = resolve(import.meta.dirname, "screenshots");
const AXE_SOURCE = readFileSync(
  resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js"),
  "utf8",
);

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(path)) {
    throw new Error(
      `Chromium not found at ${path}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
  }
  return path;
}

export interface WebPage extends Page {
  /** Uncaught page errors, console errors and CSP violations, as text, in order. */
  scriptErrors: string[];
}

export interface WebBrowser {
  browser: Browser;
  newPage(options?: { phone?: boolean }): Promise<WebPage>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<WebBrowser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext(
        options.phone
          ? { viewport: { width: 375, height: 740 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true }
          : { viewport: { width: 1280, height: 900 } },
      );
      contexts.push(context);
      const page = (await context.newPage()) as WebPage;
      page.scriptErrors = [];
      page.on("pageerror", (error) => page.scriptErrors.push(`pageerror: ${error.message}`));
      page.on("console", (message) => {
        if (message.type() !== "error") return;
        // A page answered with its error status on purpose (a 409 conflict, a 404) is not a script error.
        if (message.text().startsWith("Failed to load resource") && message.location().url === page.url())
          return;
        page.scriptErrors.push(`console: ${message.text()}`);
      });
      page.setDefaultTimeout(15_000);
      return page;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
    },
  };
}

/** Signs in through the form, as a person would: paste the token, press Enter. */
export async function signInPage(page: Page, baseUrl: string, token: string, next = "/"): Promise<void> {
  await page.goto(`${baseUrl}/signin?next=${encodeURIComponent(next)}`);
  await page.fill("#token", token);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.startsWith("/signin")),
    page.press("#token", "Enter"),
  ]);
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core on the page (injected through the DevTools protocol, so the page's CSP does not block it)
 * and returns the serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => ({ target: n.target })) })))",
  )) as AxeViolation[];
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The names of the elements focused by pressing Tab `count` times (tag, id/name, text), for keyboard tests. */
export async function tabOrder(page: Page, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) {
    await page.keyboard.press("Tab");
    seen.push(
      (await page.evaluate(
        "(() => { const e = document.activeElement; if (!e) return ''; return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('name') ? '[' + e.getAttribute('name') + ']' : '') + ' ' + (e.textContent || '').trim().slice(0, 40); })()",
      )) as string,
    );
  }
  return seen;
}

/**
 * A web server and Chromium for one test file: started before its tests (within `timeoutMs`), closed after
 * them. Read `server` and `browser` inside the tests, once they are set.
 */
export function webAndBrowser(timeoutMs: number): { server: HostedServer; browser: WebBrowser } {
  const env = {} as { server: HostedServer; browser: WebBrowser };
  beforeAll(async () => {
    env.server = await startWebServer();
    env.browser = await launchBrowser();
  }, timeoutMs);
  afterAll(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}
