/**
 * `npm start` as a real process on a real database file: first start bootstraps and prints the owner
 * token once; a restart on the same file keeps the data and does not bootstrap again; SIGTERM stops it
 * cleanly; REQLIX_BOOTSTRAP_TOKEN is registered instead of a generated token; bad configuration stops the
 * start with a message naming the variable.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateToken } from "../../src/core/tokens.js";

const ROOT = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];
const running = new Set<ChildProcess>();

afterAll(() => {
  for (const p of running) signalGroup(p, "SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "reqlix-node-"));
  dirs.push(dir);
  return `file:${join(dir, "data", "reqlix.db")}`;
}

/**
 * Signals the whole process group, as a terminal's Ctrl+C or a container stop does: npm runs the script
 * through `sh -c`, and signalling npm alone would leave the server behind.
 */
function signalGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    // already gone
  }
}

interface Started {
  proc: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when npm and the server have exited (their stdout is closed), with npm's exit code. */
  exit: Promise<number | null>;
}

function npmStart(env: Record<string, string>): {
  proc: ChildProcess;
  out: string[];
  err: string[];
  exit: Promise<number | null>;
} {
  const proc = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", REQLIX_LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, signalled as a whole
  });
  running.add(proc);
  const out: string[] = [];
  const err: string[] = [];
  proc.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  proc.stderr?.on("data", (b: Buffer) => err.push(b.toString()));
  const exit = new Promise<number | null>((resolve) =>
    proc.on("close", (code) => {
      running.delete(proc);
      resolve(code);
    }),
  );
  return { proc, out, err, exit };
}

async function start(env: Record<string, string>): Promise<Started> {
  const { proc, out, err, exit } = npmStart(env);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(out.join(""));
    if (m) return { proc, url: m[1] as string, stdout: () => out.join(""), stderr: () => err.join(""), exit };
    if (proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`server did not start (exit ${proc.exitCode}):\n${out.join("")}\n${err.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGTERM, then waits for the exit; resolves true when the server shut down gracefully. */
async function stop(s: Started): Promise<boolean> {
  signalGroup(s.proc, "SIGTERM");
  await s.exit;
  return /"msg":"stopped"/.test(s.stdout()) && !/took too long/.test(s.stderr());
}

const json = { "Content-Type": "application/json" };

describe("npm start", () => {
  it("bootstraps once, keeps data across a restart on the same database, and stops cleanly on SIGTERM", async () => {
    const REQLIX_DB_URL = tempDb();
    const first = await start({ REQLIX_DB_URL });
    const token = /Owner token[^:]*: (rqx_[A-Za-z0-9]+)/.exec(first.stdout())?.[1];
    expect(token).toBeDefined();
    expect(first.stdout()).toMatch(/Created workspace "default" and the instance owner "admin"/);
    const health = await fetch(`${first.url}/healthz`);
    expect(await health.json()).toMatchObject({ status: "ok", version: expect.any(String) });
    const auth = { Authorization: `Bearer ${token}` };
    const member = await fetch(`${first.url}/api/v1/admin/members`, {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify({ username: "alice", role: "editor" }),
    });
    expect(member.status).toBe(201);
    // The token was printed on purpose; the JSON log lines never hold it.
    const logLines = first
      .stdout()
      .split("\n")
      .filter((l) => l.startsWith("{"));
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toContain(token);

    expect(await stop(first)).toBe(true);

    const second = await start({ REQLIX_DB_URL });
    expect(second.stdout()).not.toMatch(/Owner token|Created workspace/);
    expect(second.stdout()).not.toMatch(/rqx_/);
    const list = await fetch(`${second.url}/api/v1/admin/tokens`, { headers: auth });
    expect(list.status).toBe(200);
    const tokens = ((await list.json()) as { tokens: { name: string }[] }).tokens;
    expect(tokens.map((t) => t.name)).toEqual(["bootstrap"]);
    // alice's membership survived the restart: a token can be made for her in `default`.
    const created = await fetch(`${second.url}/api/v1/admin/tokens`, {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify({ username: "alice", name: "after restart" }),
    });
    expect(created.status).toBe(201);
    expect(await stop(second)).toBe(true);
  });

  it("finishes in-flight requests on SIGTERM", async () => {
    const s = await start({ REQLIX_DB_URL: tempDb() });
    const pending = Array.from({ length: 20 }, () => fetch(`${s.url}/healthz`).then((r) => r.status));
    await new Promise((r) => setTimeout(r, 5));
    const stopped = stop(s);
    const statuses = await Promise.allSettled(pending);
    // Requests the server accepted are answered in full; none is cut off with a 5xx.
    const answered = statuses
      .filter((x) => x.status === "fulfilled")
      .map((x) => (x as PromiseFulfilledResult<number>).value);
    expect(answered.every((code) => code === 200)).toBe(true);
    expect(answered.length).toBeGreaterThan(0);
    expect(await stopped).toBe(true);
  });

  it("registers REQLIX_BOOTSTRAP_TOKEN instead of printing a generated token", async () => {
    const token = generateToken();
    const s = await start({ REQLIX_DB_URL: tempDb(), REQLIX_BOOTSTRAP_TOKEN: token });
    expect(s.stdout()).toMatch(/Registered REQLIX_BOOTSTRAP_TOKEN/);
    expect(s.stdout()).not.toContain(token);
    expect(s.stdout()).not.toMatch(/Owner token/);
    const res = await fetch(`${s.url}/api/v1/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, ...json },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(res.status).toBe(200);
    expect(await stop(s)).toBe(true);
  });

  it("refuses bad configuration with a message naming the variable", async () => {
    const badPort = npmStart({ REQLIX_DB_URL: tempDb(), PORT: "eighty" });
    const badToken = npmStart({ REQLIX_DB_URL: tempDb(), REQLIX_BOOTSTRAP_TOKEN: "rqx_tooshort" });
    expect(await badPort.exit).not.toBe(0);
    expect(badPort.err.join("")).toMatch(/PORT/);
    expect(await badToken.exit).not.toBe(0);
    expect(badToken.err.join("")).toMatch(/REQLIX_BOOTSTRAP_TOKEN/);
    expect(badToken.err.join("")).not.toContain("rqx_tooshort");
  });
});
