/**
 * `npm run dev` as a developer runs it: a real process that migrates and bootstraps the embedded file,
 * starts the local libSQL endpoint and `wrangler dev`, serves authenticated requests, and on Ctrl-C
 * (SIGINT) stops everything it started. Run twice on one file: the bootstrap is not repeated.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/cli/libsql-dev-wrangler.js";
import { generateToken } from "../../src/core/tokens.js";
import { tempDir } from "../helpers/companion.js";

const root = resolve(import.meta.dirname, "../..");
let dir: Awaited<ReturnType<typeof tempDir>>;
const token = generateToken();

interface DevRun {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

async function startDev(dbFile: string): Promise<DevRun> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/dev.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), REQLIX_DEV_DB_FILE: dbFile, REQLIX_BOOTSTRAP_TOKEN: token },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => {
    output += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    output += c.toString("utf8");
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const run = { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
  const deadline = Date.now() + 150_000;
  while (!output.includes("Ctrl-C stops")) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited early:\n${output}`);
    if (Date.now() > deadline) {
      await stopDev(run);
      throw new Error(`npm run dev did not get ready:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return run;
}

async function stopDev(run: DevRun): Promise<number | null> {
  run.child.kill("SIGINT");
  const killer = setTimeout(() => {
    try {
      if (run.child.pid) process.kill(-run.child.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }, 20_000);
  const code = await run.exited;
  clearTimeout(killer);
  return code;
}

beforeAll(async () => {
  dir = await tempDir("reqlix-dev-cmd-");
});

afterAll(async () => {
  await dir?.cleanup();
});

describe("npm run dev", () => {
  it("serves the Worker over the embedded file, and Ctrl-C stops wrangler, workerd and the endpoint", async () => {
    const dbFile = join(dir.path, "dev.db");
    const first = await startDev(dbFile);
    try {
      expect(first.output()).toContain(`Bootstrapped ${dbFile}`);
      expect(first.output()).toContain("Registered the token from REQLIX_BOOTSTRAP_TOKEN.");
      expect(first.output()).not.toContain(token);
      const health = await fetch(`${first.url}/healthz`);
      expect(health.status).toBe(200);
      const ping = await fetch(`${first.url}/api/v1/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    } finally {
      expect(await stopDev(first)).toBe(0);
    }
    await expect(fetch(`${first.url}/healthz`, { signal: AbortSignal.timeout(3_000) })).rejects.toThrow();

    // Same file again: migrations are already applied and the bootstrap is not repeated.
    const second = await startDev(dbFile);
    try {
      expect(second.output()).not.toContain("Bootstrapped");
      const ping = await fetch(`${second.url}/api/v1/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
      });
      expect(ping.status).toBe(200);
    } finally {
      expect(await stopDev(second)).toBe(0);
    }
  }, 400_000);
});
