/**
 * The Node side on a remote libSQL URL (http:// with an auth token), as with Turso or sqld: the admin CLI
 * migrates and bootstraps over HTTP (the deploy step for Workers), and the app serves from it. The remote
 * here is the project's local libSQL endpoint (Hrana over HTTP) on a temp file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { runAdmin } from "../../src/cli/admin-commands.js";
import { type LibsqlDevServer, startLibsqlDevServer } from "../../src/cli/libsql-dev-server.js";
import { openDatabase } from "../../src/db/client.js";
import { createJsonLogger } from "../../src/http/logger.js";

const DB_TOKEN = "remote-db-secret-0123456789";
let dir: string;
let remote: LibsqlDevServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "reqlix-remote-"));
  remote = await startLibsqlDevServer({
    file: join(dir, "remote.db"),
    port: 0,
    host: "127.0.0.1",
    authToken: DB_TOKEN,
  });
});
afterAll(async () => {
  await remote.close();
  rmSync(dir, { recursive: true, force: true });
});

async function admin(env: Record<string, string>, ...args: string[]) {
  let out = "";
  let err = "";
  const code = await runAdmin(args, {
    env,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

describe("REQLIX_DB_URL=http://… with REQLIX_DB_AUTH_TOKEN", () => {
  it("admin migrate + bootstrap over HTTP, then the app serves and writes there", async () => {
    const env = { REQLIX_DB_URL: remote.url, REQLIX_DB_AUTH_TOKEN: DB_TOKEN };
    const migrated = await admin(env, "migrate");
    expect(migrated.err).toBe("");
    expect(migrated.code).toBe(0);
    expect((await admin(env, "migrate")).code).toBe(0); // idempotent over HTTP too
    const boot = await admin(env, "bootstrap");
    expect(boot.code).toBe(0);
    const token = (JSON.parse(boot.out) as { token: string }).token;

    const database = await openDatabase({ url: remote.url, authToken: DB_TOKEN });
    const app = createApp({ database, logger: createJsonLogger({ write: () => {} }), version: "remote" });
    expect((await app.request("/healthz")).status).toBe(200);
    const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const writes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        app.request("/api/v1/admin/members", {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ username: `remote-${i}`, role: "viewer" }),
        }),
      ),
    );
    expect(writes.map((r) => r.status)).toEqual(Array(8).fill(201));
    const rows = await database.client.execute(
      "SELECT count(*) AS n FROM users WHERE username LIKE 'remote-%'",
    );
    expect(Number(rows.rows[0]?.n)).toBe(8);
    await database.close();
  });

  it("a wrong database token fails with a clear message and exit code 1", async () => {
    const res = await admin({ REQLIX_DB_URL: remote.url, REQLIX_DB_AUTH_TOKEN: "wrong" }, "token-list");
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/token-list failed on http:\/\/127\.0\.0\.1:\d+/);
    expect(res.err).not.toContain(DB_TOKEN);
  });
});
