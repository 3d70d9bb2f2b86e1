/**
 * `npm start` refuses to start, in one line naming the cause and the fix, when its configuration or its
 * database cannot work: a bad HOST (checked before the database is touched), a database folder that
 * cannot be created, a folder where no file can be created, a read-only database file, an unreachable
 * database server. No stack trace, no owner token. `/healthz` answers 503 with the reason when the
 * database cannot be written.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { freePort } from "../../src/cli/libsql-dev-wrangler.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import { createJsonLogger } from "../../src/http/logger.js";
import {
  cleanupNodeProcesses,
  type NodeProcess,
  spawnNode,
  startNode,
  tempDir,
} from "../helpers/node-process.js";

const immutable: string[] = [];

afterAll(() => {
  for (const f of immutable) execFileSync("chattr", ["-i", f]);
  cleanupNodeProcesses();
});

/**
 * Makes a database file read-only for this process and its children. Root ignores file modes, so there
 * the file is made immutable (chattr +i: every open for writing fails with EPERM, as for a user without
 * write permission); anyone else gets the plain permission bits.
 */
function makeReadOnly(file: string): void {
  if (process.getuid?.() === 0) {
    execFileSync("chattr", ["+i", file]);
    immutable.push(file);
  } else {
    chmodSync(file, 0o444);
  }
}

/** Exactly one line on stderr, matching `pattern`; no stack trace; nothing about tokens on stdout. */
async function expectRefused(p: NodeProcess, pattern: RegExp, code: number): Promise<string> {
  expect(await p.exit).toBe(code);
  const lines = p.stderr().trimEnd().split("\n");
  expect(lines, p.stderr()).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(p.stderr()).not.toMatch(/\n\s+at |Error:|ConnectionFailed|Failed query/);
  expect(p.stdout()).not.toMatch(/rqx_|token|listening/i);
  return lines[0] as string;
}

/** A database made and migrated by a first start, stopped again. */
async function migratedDatabase(): Promise<{ url: string; file: string }> {
  const file = join(tempDir(), "reqlix.db");
  const first = await startNode({ REQLIX_DB_URL: `file:${file}` });
  first.proc.kill("SIGTERM");
  expect(await first.exit).toBe(0);
  return { url: `file:${file}`, file };
}

describe("npm start refuses, in one line, to start with", () => {
  it("a HOST it cannot listen on, before touching the database (exit 2, no token printed)", async () => {
    for (const HOST of ["http://0.0.0.0", "192.0.2.1"]) {
      const file = join(tempDir(), "data", "reqlix.db");
      const p = spawnNode({ HOST, REQLIX_DB_URL: `file:${file}` });
      const line = await expectRefused(p, /HOST/, 2);
      expect(line).toContain(HOST);
      expect(existsSync(file)).toBe(false);
      expect(existsSync(join(file, ".."))).toBe(false);
    }
  });

  it("a REQLIX_DEFAULT_TOOLSETS naming no toolset, before touching the database (exit 2)", async () => {
    const file = join(tempDir(), "data", "reqlix.db");
    const p = spawnNode({ REQLIX_DEFAULT_TOOLSETS: "requirements,nope", REQLIX_DB_URL: `file:${file}` });
    const line = await expectRefused(p, /^reqlix: REQLIX_DEFAULT_TOOLSETS: Unknown toolset "nope"/, 2);
    expect(line).toContain("requirements (default)");
    expect(existsSync(file)).toBe(false);
  });

  it("a partial or bad REQLIX_GITHUB_* setting, naming the variable and never the secret (exit 2)", async () => {
    const file = join(tempDir(), "data", "reqlix.db");
    const secret = "gh-secret-never-printed";
    const partial = spawnNode({ REQLIX_GITHUB_CLIENT_SECRET: secret, REQLIX_DB_URL: `file:${file}` });
    const line = await expectRefused(
      partial,
      /^reqlix: Sign-in with GitHub needs REQLIX_GITHUB_CLIENT_ID/,
      2,
    );
    expect(line).not.toContain(secret);
    const badUrl = spawnNode({
      REQLIX_GITHUB_CLIENT_ID: "Iv1.abc",
      REQLIX_GITHUB_CLIENT_SECRET: secret,
      REQLIX_GITHUB_URL: "http://github.example.com",
      REQLIX_DB_URL: `file:${file}`,
    });
    expect(await expectRefused(badUrl, /^reqlix: REQLIX_GITHUB_URL must be https:\/\//, 2)).not.toContain(
      secret,
    );
    expect(existsSync(file)).toBe(false);
  });

  it("a database folder that cannot be created (its parent is a file)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "file.txt"), "not a folder");
    const p = spawnNode({ REQLIX_DB_URL: `file:${join(dir, "file.txt", "db.sqlite")}` });
    await expectRefused(p, /REQLIX_DB_URL.*file\.txt.*not a folder.*Fix:/i, 1);
  });

  it("a folder this user cannot write", async () => {
    // Root writes anywhere: run the server as `nobody` there; anyone else just gets a folder without write access.
    const root = process.getuid?.() === 0;
    const dir = tempDir();
    chmodSync(dir, root ? 0o755 : 0o555);
    const as = root ? { uid: 65534, gid: 65534 } : undefined;
    const inFolder = spawnNode({ REQLIX_DB_URL: `file:${join(dir, "reqlix.db")}`, HOME: dir }, as);
    await expectRefused(inFolder, /REQLIX_DB_URL.*reqlix\.db.*cannot be created or opened.*Fix:/i, 1);
    const below = spawnNode({ REQLIX_DB_URL: `file:${join(dir, "sub", "reqlix.db")}`, HOME: dir }, as);
    await expectRefused(
      below,
      /REQLIX_DB_URL.*folder .*sub cannot be created \(permission denied\).*Fix:/i,
      1,
    );
    chmodSync(dir, 0o755);
  });

  it("a folder where no file can be created", async () => {
    // /proc/self exists but takes no new files, whoever asks (root included).
    const p = spawnNode({ REQLIX_DB_URL: "file:/proc/self/reqlix.db" });
    await expectRefused(
      p,
      /REQLIX_DB_URL.*\/proc\/self\/reqlix\.db.*cannot (be )?(created|opened).*Fix:/i,
      1,
    );
  });

  it("a read-only database file", async () => {
    const { url, file } = await migratedDatabase();
    makeReadOnly(file);
    const p = spawnNode({ REQLIX_DB_URL: url });
    await expectRefused(p, /REQLIX_DB_URL.*read-only.*Fix:/i, 1);
  });

  it("an unreachable database server", async () => {
    const port = await freePort(); // nothing listens there
    const p = spawnNode({ REQLIX_DB_URL: `http://127.0.0.1:${port}` });
    await expectRefused(
      p,
      new RegExp(`REQLIX_DB_URL.*127\\.0\\.0\\.1:${port}.*(refused|reach).*Fix:`, "i"),
      1,
    );
  });
});

/** The app over `url`, opened as the server opens it; closed after `fn`. */
async function withApp(
  url: string,
  fn: (app: ReturnType<typeof createApp>, database: Database) => Promise<void>,
) {
  const database = await openDatabase({ url });
  try {
    const logger = createJsonLogger({ write: () => {}, level: "error" });
    await fn(createApp({ database, logger, version: "0.0.0-test" }), database);
  } finally {
    await database.close();
  }
}

describe("/healthz", () => {
  it("a read-only file whose header lacks the suggested page cache (an older reqlix's) opens, and says read-only", async () => {
    const { url, file } = await migratedDatabase();
    // openDatabase stores the page cache in the file's header when it differs (db/client.ts): here it differs
    // and the file cannot take the write. The cache is a hint, so the file opens all the same.
    const older = createClient({ url });
    await older.execute("PRAGMA default_cache_size = 500");
    older.close();
    makeReadOnly(file);
    await withApp(url, async (app, database) => {
      const res = await app.request("/healthz");
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: expect.stringMatching(/read-only/) });
      expect(Number((await database.client.execute("PRAGMA default_cache_size")).rows[0]?.[0])).toBe(500);
    });
  });

  it("answers 503 with the reason when the database can be read but not written", async () => {
    const { url, file } = await migratedDatabase();
    makeReadOnly(file);
    await withApp(url, async (app) => {
      const res = await app.request("/healthz");
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        status: "unavailable",
        error: expect.stringMatching(/read-only/),
      });
    });
  });
});
