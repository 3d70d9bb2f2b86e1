/**
 * The conformance suite's authorization-server scenarios (issue 12 item 5): `conformance authorization`
 * (first released in 0.2.0-alpha, the release the
 * server suite runs too) against the Node server:
 * `authorization-server-metadata-endpoint` (RFC 8414, CIMD support advertised) and
 * `authorization-code-grant`, whose authorization URL the CLI prints for a person to open: here headless
 * Chromium signs in and allows, and the CLI's own callback listener receives the code and exchanges it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/cli/libsql-dev-wrangler.js";
import { assertNode22, type Check } from "../helpers/conformance.js";
import type { HostedServer } from "../helpers/hosted.js";
import { registerClient } from "../helpers/oauth-http.js";
import { launchBrowser, type WebBrowser } from "../web/browser.js";
import { startWebServer } from "../web/web-client.js";

const CLI = resolve(
  import.meta.dirname,
  "../../node_modules/@modelcontextprotocol/conformance/dist/index.js",
);

let server: HostedServer;
let browser: WebBrowser;
let out: string;

beforeAll(async () => {
  assertNode22();
  server = await startWebServer();
  browser = await launchBrowser();
  out = await mkdtemp(join(tmpdir(), "reqlix-conformance-as-"));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await rm(out, { recursive: true, force: true });
});

async function checksOf(dir: string): Promise<Map<string, Check[]>> {
  const found = new Map<string, Check[]>();
  for (const entry of await readdir(dir)) {
    const scenario = /^authorization-server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1];
    if (!scenario) continue;
    found.set(scenario, JSON.parse(await readFile(join(dir, entry, "checks.json"), "utf8")) as Check[]);
  }
  return found;
}

describe("conformance: authorization server scenarios against Node", () => {
  it("passes authorization-server-metadata-endpoint and authorization-code-grant", async () => {
    const port = await freePort();
    const token = await server.createToken("conformance-as", "editor");
    const client = await registerClient(server.url, `http://127.0.0.1:${port}/callback`);
    const args = [CLI, "authorization", "--url", server.url, "--client-id", client.client_id];
    args.push("--resource", `${server.url}/mcp`, "--port", String(port), "-o", out);
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    let consent: Promise<void> | undefined;
    const consentTo = async (url: string) => {
      const page = await browser.newPage();
      await page.goto(url);
      await page.fill("#token", token);
      await Promise.all([
        page.waitForURL((u) => u.pathname === "/oauth/authorize"),
        page.press("#token", "Enter"),
      ]);
      await page.click('button:has-text("Allow")');
    };
    child.stderr.on("data", (d) => {
      output += d;
    });
    child.stdout.on("data", (d) => {
      output += d;
      const url = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(output)?.[1];
      if (url && !consent) consent = consentTo(url);
    });
    const exitCode = await new Promise<number | null>((done) => child.on("exit", done));
    await consent;
    const checks = await checksOf(out);
    expect([...checks.keys()].sort(), output).toEqual([
      "authorization-code-grant",
      "authorization-server-metadata-endpoint",
    ]);
    for (const [scenario, list] of checks) {
      const bad = list.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      expect(bad, `${scenario}: ${JSON.stringify(bad)}`).toEqual([]);
    }
    expect(output).toContain("Total: 3 passed, 0 failed");
    expect(exitCode, output).toBe(0);
  }, 120_000);
});
