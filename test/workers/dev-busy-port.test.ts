/**
 * `npm run dev` with an explicit PORT (or LIBSQL_DEV_PORT) that another process holds: one line naming the
 * port and the fix, exit 2, before the database is prepared or anything is started.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "reqlix-dev-busy-"));
const servers: Server[] = [];

afterAll(() => {
  for (const s of servers) s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Holds a port on 127.0.0.1 for the test's duration. */
async function busyPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  return address.port;
}

async function runDev(
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/dev.ts"], {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  // An unfixed `npm run dev` goes on to start wrangler: stop it (and its children) rather than hang.
  const killer = setTimeout(() => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }, 20_000);
  const code = await new Promise<number | null>((r) => child.once("close", (c) => r(c)));
  clearTimeout(killer);
  return { code, out, err };
}

describe("npm run dev on a busy port", () => {
  for (const variable of ["PORT", "LIBSQL_DEV_PORT"]) {
    it(`stops at once with one line naming ${variable} when it is taken`, async () => {
      const port = await busyPort();
      const file = join(dir, `${variable}.db`);
      const { code, out, err } = await runDev({ [variable]: String(port), REQLIX_DEV_DB_FILE: file });
      expect(code).toBe(2);
      const lines = err.trimEnd().split("\n");
      expect(lines, err).toHaveLength(1);
      expect(lines[0]).toContain(variable);
      expect(lines[0]).toContain(String(port));
      expect(lines[0]).toMatch(/in use.*Fix:/i);
      expect(out).toBe("");
      expect(existsSync(file)).toBe(false);
    });
  }
});
