/**
 * Issue 16 item 3: `npm start` runs the bundled server (dist/server/node.js, scripts/build-server.mjs),
 * rebuilt by scripts/start.mjs whenever a source is newer. A real process on a fresh database file: the
 * bundle finds drizzle/ and migrates, bootstraps, answers /healthz and a tools/call; a stale bundle is
 * rebuilt before it runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { SERVER_BUNDLE, staleReason } from "../../scripts/build-server.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];
const running = new Set<ChildProcess>();

afterAll(() => {
  for (const p of running) p.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "reqlix-bundled-"));
  dirs.push(dir);
  return dir;
}

/** `node scripts/start.mjs` (what `npm start` runs) until it prints its URL. */
async function start(
  db: string,
  env: Record<string, string> = {},
): Promise<{ proc: ChildProcess; url: string; stdout: () => string; stderr: () => string }> {
  const proc = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      REQLIX_DB_URL: `file:${db}`,
      REQLIX_LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(proc);
  proc.on("exit", () => running.delete(proc));
  const out: string[] = [];
  const err: string[] = [];
  proc.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  proc.stderr?.on("data", (b: Buffer) => err.push(b.toString()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const m = /listening on (http:\/\/\S+)/.exec(out.join(""));
    if (m) return { proc, url: m[1] as string, stdout: () => out.join(""), stderr: () => err.join("") };
    if (proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`server did not start (exit ${proc.exitCode}):\n${out.join("")}\n${err.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function stop(proc: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  proc.kill("SIGTERM");
  return exited;
}

async function rpc(
  url: string,
  token: string,
  method: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/api/v1/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("npm start runs the bundled server", () => {
  it("migrates a fresh database, bootstraps, serves /healthz and tools/call, and stops cleanly", async () => {
    const db = join(tempDir(), "data", "reqlix.db");
    const compileCache = join(tempDir(), "compile-cache");
    const server = await start(db, { NODE_COMPILE_CACHE: compileCache });
    // After a start the bundle is current: what ran is what the sources say.
    expect(staleReason()).toBeUndefined();
    const token = /Owner token \(shown only now; store it safely\): (rqx_\w+)/.exec(server.stdout())?.[1];
    expect(token, server.stdout()).toBeDefined();
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: "ok",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });

    const created = await rpc(server.url, token as string, "tools/call", {
      name: "create_epic",
      arguments: { title: "Bundled", description: "Written by the bundled server." },
    });
    const epic = (created.result as { structuredContent: { reference_id: string } }).structuredContent
      .reference_id;
    expect(epic).toBe("EP-001");
    const read = await rpc(server.url, token as string, "tools/call", {
      name: "get_epic",
      arguments: { epic_id: epic },
    });
    expect(read.result).toMatchObject({ structuredContent: { reference_id: "EP-001", title: "Bundled" } });
    expect(await stop(server.proc)).toBe(0);
    expect(server.stderr()).not.toMatch(/error/i);
    // Node's compile cache (Node >= 22.1; the tests run on the devDependency's Node 22) kept the bundle's
    // compiled code for the next start: ~30 ms of CPU of ~330 (bench/startup.ts).
    expect(typeof module.enableCompileCache).toBe("function");
    expect(readdirSync(compileCache, { recursive: true }).length).toBeGreaterThan(1);
  }, 120_000);

  it("rebuilds a bundle older than its sources before running it", async () => {
    const before = statSync(SERVER_BUNDLE).mtimeMs;
    const past = new Date(Date.now() - 3_600_000 * 24 * 365);
    utimesSync(SERVER_BUNDLE, past, past);
    expect(staleReason()).toMatch(/is newer than the bundle/);
    const server = await start(join(tempDir(), "reqlix.db"));
    expect(server.stderr()).toMatch(/building the server bundle \(.* is newer than the bundle\)/);
    expect(statSync(SERVER_BUNDLE).mtimeMs).toBeGreaterThanOrEqual(before);
    expect(staleReason()).toBeUndefined();
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await stop(server.proc)).toBe(0);
  }, 120_000);
});

describe("staleReason", () => {
  it("names a missing bundle and the first input newer than it, and is undefined when the bundle is newer", () => {
    const dir = tempDir();
    const bundle = join(dir, "node.js");
    const input = join(dir, "a.ts");
    writeFileSync(input, "x");
    expect(staleReason(bundle, [input])).toMatch(/does not exist/);
    writeFileSync(bundle, "y");
    utimesSync(input, new Date(1_000_000), new Date(1_000_000));
    expect(staleReason(bundle, [input, join(dir, "gone.ts")])).toBeUndefined();
    utimesSync(input, new Date(), new Date(Date.now() + 60_000));
    expect(staleReason(bundle, [input])).toBe(`${input} is newer than the bundle`);
  });
});
