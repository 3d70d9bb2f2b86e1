/**
 * An import of 1,000 rows is ONE transaction: a row that fails at the end, or the importing process killed
 * with SIGKILL in the middle, leaves nothing stored. Real libSQL file, real processes (the admin CLI).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin-commands.js";
import { openDatabase } from "../../src/db/client.js";
import { REPO_ROOT } from "../helpers/node-process.js";

const dir = mkdtempSync(join(tmpdir(), "reqlix-atomic-"));
const dbFile = join(dir, "atomic.db");
const db = `file:${dbFile}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KILLED_ROWS = 5_000;
const quiet = { env: {}, out: () => {}, err: () => {} };

/** `count` requirement rows under one new epic and story; `lastTitle` replaces the last row's title. */
function csv(lastTitle?: string, count = 1000): string {
  const rows = ["title,type,user_story,user_story_title,epic,epic_title,description"];
  for (let i = 1; i <= count; i++) {
    const title = i === count && lastTitle ? lastTitle : `Row ${i}`;
    rows.push(`${title},Functional,story-1,Bulk story,epic-1,Bulk epic,text of row ${i}`);
  }
  return `${rows.join("\r\n")}\r\n`;
}

async function stored(): Promise<{ requirements: number; revisions: number; epics: number }> {
  const database = await openDatabase({ url: db });
  try {
    const n = async (sql: string) => Number((await database.client.execute(sql)).rows[0]?.n);
    return {
      requirements: await n("SELECT count(*) AS n FROM requirements"),
      revisions: await n("SELECT count(*) AS n FROM revisions"),
      epics: await n("SELECT count(*) AS n FROM epics"),
    };
  } finally {
    await database.close();
  }
}

/** True once a write transaction on the database has been held by somebody else for `ms` in a row. */
async function writerHeldFor(ms: number, timeoutMs: number): Promise<boolean> {
  const probe = createClient({ url: db });
  try {
    const start = Date.now();
    let busySince: number | undefined;
    while (Date.now() - start < timeoutMs) {
      try {
        // One script on one connection: no waiting for the lock, take it, give it back.
        await probe.executeMultiple("PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; ROLLBACK;");
        busySince = undefined;
      } catch (error) {
        if (!/SQLITE_BUSY|database is locked/i.test(String(error))) throw error;
        busySince ??= Date.now();
        if (Date.now() - busySince >= ms) return true;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return false;
  } finally {
    probe.close();
  }
}

beforeAll(async () => {
  expect(await runAdmin(["bootstrap", "--db", db], quiet)).toBe(0);
});

describe("an import is one transaction", () => {
  it("a failing row at the end (a duplicate title) → nothing of the 1,000 rows stored", async () => {
    const file = join(dir, "dup.csv");
    writeFileSync(file, csv("Row 1"));
    let err = "";
    const code = await runAdmin(["import", "--db", db, "--format", "csv", "--file", file, "--apply"], {
      ...quiet,
      err: (t) => {
        err += t;
      },
    });
    expect(code).toBe(1);
    expect(err).toContain('already has a requirement titled "Row 1"');
    expect(await stored()).toEqual({ requirements: 0, revisions: 0, epics: 0 });
  });

  it("the importing process killed (SIGKILL) in the middle → nothing stored; a later import succeeds whole", async () => {
    const file = join(dir, "ok.csv");
    // Enough rows that the import is still inside its transaction for a while after it opens it.
    writeFileSync(file, csv(undefined, KILLED_ROWS));
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/admin.ts",
        "import",
        "--db",
        db,
        "--format",
        "csv",
        "--file",
        file,
        "--apply",
      ],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // Kill once the import's write transaction is open: another connection that may not wait is refused its
    // own write lock (SQLITE_BUSY) for 100 ms in a row. (The WAL does not show it: with a 32 MiB page cache
    // the transaction's pages reach the WAL only when it commits.)
    const writing = await writerHeldFor(100, 60_000);
    child.kill("SIGKILL");
    expect(writing).toBe(true);
    await exited;
    expect(out).not.toContain('"dry_run": false'); // it had not finished
    expect(await stored()).toEqual({ requirements: 0, revisions: 0, epics: 0 });

    const code = await runAdmin(["import", "--db", db, "--format", "csv", "--file", file, "--apply"], quiet);
    expect(code).toBe(0);
    expect(await stored()).toMatchObject({ requirements: KILLED_ROWS, epics: 1 });
  }, 120_000);
});
