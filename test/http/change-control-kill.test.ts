/**
 * Change control under kill -9: concurrent writers on a real server process, killed mid-stream. On the
 * database file afterwards every acknowledged write is there with its revision, and every entity has
 * exactly one revision per change it holds (revisions 1..revision, no more, no fewer): a write and its
 * revision commit together or not at all.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { generateToken } from "../../src/core/tokens.js";
import { openDatabase } from "../../src/db/client.js";

const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "reqlix-cc-kill-"));
let proc: ChildProcess | undefined;

afterAll(() => {
  if (proc?.pid !== undefined && proc.exitCode === null) proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function startServer(dbUrl: string, token: string): Promise<{ url: string; exited: Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/node.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      REQLIX_DB_URL: dbUrl,
      REQLIX_BOOTSTRAP_TOKEN: token,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc = child;
  const out: string[] = [];
  child.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  child.stderr?.on("data", (b: Buffer) => out.push(b.toString()));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(out.join(""));
    if (m) return { url: m[1] as string, exited };
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`server did not start:\n${out.join("")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("every acknowledged write survives kill -9 with exactly one revision; no revision without its write", async () => {
  const dbUrl = `file:${join(dir, "reqlix.db")}`;
  const token = generateToken();
  const server = await startServer(dbUrl, token);
  let id = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/api/v1/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { name, arguments: args },
      }),
    });
    const body = (await res.json()) as { result?: { structuredContent?: Record<string, unknown> } };
    return body.result?.structuredContent;
  };
  const epic = await call("create_epic", { title: "Kill" });
  expect(epic?.reference_id).toBe("EP-001");

  // 8 writers: each creates a requirement's story once, then keeps creating and updating; acknowledged
  // writes are remembered with the revision they answered.
  const acknowledged: { reference_id: string; revision: number }[] = [];
  let killed = false;
  const writer = async (w: number) => {
    try {
      const story = await call("create_user_story", { epic_id: "EP-001", title: `Story ${w}` });
      if (!story) return;
      acknowledged.push({ reference_id: story.reference_id as string, revision: story.revision as number });
      for (let k = 0; !killed; k++) {
        const req = await call("create_requirement", {
          user_story_id: story.reference_id,
          title: `R ${w}-${k}`,
          type: "Functional",
          priority: 2,
          change_note: `writer ${w}`,
        });
        if (!req) return;
        acknowledged.push({ reference_id: req.reference_id as string, revision: req.revision as number });
        const upd = await call("update_requirement", {
          requirement_id: req.reference_id,
          description: `v${k}`,
        });
        if (!upd) return;
        acknowledged.push({ reference_id: upd.reference_id as string, revision: upd.revision as number });
      }
    } catch {
      // the connection died with the server
    }
  };
  const writers = Array.from({ length: 8 }, (_, w) => writer(w));
  // Kill once enough writes were acknowledged (not after a fixed time: on a loaded machine 1.5 s gave 15).
  const killAt = Date.now() + 60_000;
  while (acknowledged.length < 60 && Date.now() < killAt) await new Promise((r) => setTimeout(r, 20));
  killed = true;
  proc?.kill("SIGKILL");
  await Promise.all(writers);
  await server.exited;
  expect(acknowledged.length).toBeGreaterThan(20);

  const db = await openDatabase({ url: dbUrl });
  try {
    const rows = async (sql: string) => (await db.client.execute(sql)).rows;
    // Every acknowledged write has its revision, with the number it answered.
    const revs = new Set(
      (await rows("SELECT reference_id, revision FROM revisions")).map(
        (r) => `${r.reference_id}#${r.revision}`,
      ),
    );
    for (const a of acknowledged)
      expect(revs.has(`${a.reference_id}#${a.revision}`), a.reference_id).toBe(true);
    // Every entity holds exactly revisions 1..revision: none lost, none without its write.
    for (const table of ["epics", "user_stories", "requirements"]) {
      const mismatched = await rows(
        `SELECT e.reference_id, e.revision, (SELECT count(*) FROM revisions r WHERE r.workspace_id = e.workspace_id
           AND r.reference_id = e.reference_id) AS n, (SELECT max(revision) FROM revisions r
           WHERE r.workspace_id = e.workspace_id AND r.reference_id = e.reference_id) AS top
         FROM ${table} e WHERE n <> e.revision OR top <> e.revision`,
      );
      expect(mismatched, table).toEqual([]);
    }
    const orphans = await rows(
      `SELECT reference_id FROM revisions r WHERE entity_kind = 'requirement'
         AND NOT EXISTS (SELECT 1 FROM requirements q WHERE q.id = r.entity_id AND q.revision >= r.revision)`,
    );
    expect(orphans).toEqual([]);
  } finally {
    await db.close();
  }
}, 120_000);
