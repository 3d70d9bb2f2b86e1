/**
 * The Database seam on real libSQL files: serialized writes, reference ids under concurrency (one client
 * and two clients on one file, as two processes would), recovery after SQLITE_BUSY with nothing lost
 * (DESIGN: libsql-client-ts#352), atomic writes, and a single-connection :memory: database.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isDomainError } from "../../src/core/errors.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import { nextReference } from "../../src/db/counters.repo.js";
import type { Tx } from "../../src/db/database.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { epics, referenceCounters } from "../../src/db/schema.js";
import { createWorkspace } from "../../src/db/workspaces.repo.js";

let dir: string;
let url: string;
const opened: Database[] = [];

async function open(options: Omit<Parameters<typeof openDatabase>[0], "url"> = {}): Promise<Database> {
  const db = await openDatabase({ url, ...options });
  opened.push(db);
  return db;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "reqlix-db-"));
  url = `file:${join(dir, "test.db")}`;
  const db = await open();
  await migrateDatabase(db);
  await db.write((tx) => createWorkspace(tx, { slug: "one", name: "One" }));
  await db.write((tx) => createWorkspace(tx, { slug: "two", name: "Two" }));
});
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function insertEpic(tx: Tx, workspaceId: number, title: string): Promise<string> {
  const referenceId = await nextReference(tx, workspaceId, "EP");
  await tx.insert(epics).values({ workspaceId, referenceId, title });
  return referenceId;
}

/** A pragma's value on the connection the client lends for one statement. */
async function pragmaOf(db: Database, pragma: string): Promise<number> {
  return Number((await db.client.execute(`PRAGMA ${pragma}`)).rows[0]?.[0]);
}

async function storedRefs(workspaceId: number): Promise<string[]> {
  // A separate client: what another process (or a restart) sees on disk.
  const client = createClient({ url });
  try {
    const rs = await client.execute({
      sql: "SELECT reference_id FROM epics WHERE workspace_id = ? ORDER BY id",
      args: [workspaceId],
    });
    return rs.rows.map((r) => String(r.reference_id));
  } finally {
    client.close();
  }
}

const seq = (prefix: string, n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i + from).padStart(3, "0")}`);

describe("nextReference", () => {
  it("allocates EP-001… per workspace, zero-padded, atomically under 60 concurrent writers", async () => {
    const db = opened[0] as Database;
    const refs = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        db.write((tx) => insertEpic(tx, i % 2 === 0 ? 1 : 2, `epic ${i}`)),
      ),
    );
    expect(new Set(refs.filter((_, i) => i % 2 === 0)).size).toBe(30);
    expect((await storedRefs(1)).sort()).toEqual(seq("EP", 30));
    expect((await storedRefs(2)).sort()).toEqual(seq("EP", 30));
  });

  it("each prefix has its own counter; ids are never reused after a delete; ≥ 1000 grows past 3 digits", async () => {
    const db = opened[0] as Database;
    const a = await db.write((tx) => nextReference(tx, 1, "US"));
    const b = await db.write((tx) => nextReference(tx, 1, "REQ"));
    const c = await db.write((tx) => nextReference(tx, 1, "AC"));
    expect([a, b, c]).toEqual(["US-001", "REQ-001", "AC-001"]);
    const first = await db.write((tx) => insertEpic(tx, 1, "to delete"));
    await db.write((tx) => tx.delete(epics).where(eq(epics.referenceId, first)));
    expect(await db.write((tx) => insertEpic(tx, 1, "next"))).toBe("EP-002");
    await db.write((tx) =>
      tx.update(referenceCounters).set({ lastValue: 999 }).where(eq(referenceCounters.prefix, "EP")),
    );
    expect(await db.write((tx) => insertEpic(tx, 1, "big"))).toBe("EP-1000");
  });

  it("a failed write rolls back its reference too: nothing stored, the number is handed out again", async () => {
    const db = opened[0] as Database;
    await expect(
      db.write(async (tx) => {
        await insertEpic(tx, 1, "half");
        throw new Error("boom after the insert");
      }),
    ).rejects.toThrow("boom after the insert");
    expect(await storedRefs(1)).toEqual([]);
    expect(await db.write((tx) => insertEpic(tx, 1, "whole"))).toBe("EP-001");
  });

  it("two clients on one file (as two processes) writing concurrently never duplicate an id", async () => {
    // In one process the embedded client's synchronous busy wait blocks the holder too, so this also
    // drives the BUSY → reconnect → retry path for real.
    const a = await open();
    const b = await open();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? a : b).write((tx) => insertEpic(tx, 1, `epic ${i}`)),
      ),
    );
    expect(new Set(results).size).toBe(40);
    expect((await storedRefs(1)).sort()).toEqual(seq("EP", 40));
  });
});

/**
 * Another connection holding the write lock for `ms` (it commits a row then), so a write meets SQLITE_BUSY.
 * `end()` lets it go in any case.
 */
async function lockHeldFor(ms: number): Promise<{ end(): void }> {
  const blocker = createClient({ url });
  const tx = await blocker.transaction("write");
  await tx.execute("INSERT INTO workspaces (slug, name) VALUES ('blocker', 'B')");
  const release = setTimeout(() => void tx.commit(), ms);
  return {
    end() {
      clearTimeout(release);
      tx.close();
      blocker.close();
    },
  };
}

describe("SQLITE_BUSY", () => {
  it("a write blocked by another connection's lock reconnects, retries and is stored; later writes too", async () => {
    const busy: number[] = [];
    const db = await open({ busyTimeoutMs: 30, onBusy: (attempt) => busy.push(attempt) });
    const lock = await lockHeldFor(150);
    try {
      const ref = await db.write((t) => insertEpic(t, 1, "after busy"));
      expect(ref).toBe("EP-001");
      expect(busy.length).toBeGreaterThan(0); // the BUSY path really ran
      // The data-loss bug shows on the writes after a BUSY: they must really commit.
      const later = [];
      for (let i = 0; i < 5; i++) later.push(await db.write((t) => insertEpic(t, 1, `later ${i}`)));
      expect(later).toEqual(seq("EP", 5, 2));
      expect(await storedRefs(1)).toEqual(seq("EP", 6));
    } finally {
      lock.end();
    }
  });

  it("the connection a reconnect opens gets the same settings as the first one", async () => {
    const settingsOf = async (db: Database) => [
      await pragmaOf(db, "cache_size"),
      await pragmaOf(db, "mmap_size"),
      await pragmaOf(db, "foreign_keys"),
    ];
    // What openDatabase sets (client.ts), not SQLite's defaults for a new connection (-2000, 0).
    expect(await settingsOf(await open())).toEqual([-32768, 268435456, 1]);
    const busy: number[] = [];
    const db = await open({ busyTimeoutMs: 30, onBusy: (attempt) => busy.push(attempt) });
    const lock = await lockHeldFor(150);
    try {
      await db.write((t) => insertEpic(t, 1, "after busy"));
      expect(busy.length).toBeGreaterThan(0); // the reconnect really ran
    } finally {
      lock.end();
    }
    expect(await settingsOf(db)).toEqual([-32768, 268435456, 1]);
  });

  it("a connection the pool opens while a transaction holds the first starts with the same page cache", async () => {
    const db = await open();
    const pageSize = await pragmaOf(db, "page_size");
    // cache_size is in KiB when negative, in pages when positive.
    const cacheBytes = (v: number) => (v < 0 ? -v * 1024 : v * pageSize);
    expect(cacheBytes(await pragmaOf(db, "cache_size"))).toBe(32 * 1024 * 1024);
    const held = await db.client.transaction("read");
    try {
      // The configured connection is held: this statement runs on one the pool opens now.
      expect(cacheBytes(await pragmaOf(db, "cache_size"))).toBe(32 * 1024 * 1024);
    } finally {
      held.close();
    }
  });

  it("a lock held past every retry fails clearly as unavailable and stores nothing", async () => {
    const busy: number[] = [];
    const db = await open({ busyTimeoutMs: 10, busyRetries: 2, onBusy: (attempt) => busy.push(attempt) });
    const blocker = createClient({ url });
    const tx = await blocker.transaction("write");
    try {
      const err = await db.write((t) => insertEpic(t, 1, "never")).catch((e: unknown) => e);
      expect(isDomainError(err) && err.code === "unavailable").toBe(true);
      expect((err as Error).message).toMatch(/busy; retry/);
      expect(busy).toEqual([0, 1, 2]);
    } finally {
      await tx.rollback();
      blocker.close();
    }
    expect(await storedRefs(1)).toEqual([]);
    expect(await db.write((t) => insertEpic(t, 1, "now"))).toBe("EP-001");
    expect(await storedRefs(1)).toEqual(["EP-001"]);
  });
});

describe("writeStatement", () => {
  it("runs one statement in the write queue, after the writes queued before it", async () => {
    const db = opened[0] as Database;
    const order: string[] = [];
    const write = db.write(async (tx) => {
      await insertEpic(tx, 1, "in a transaction");
      order.push("write");
    });
    const statement = db.writeStatement(async (ex) => {
      order.push("statement");
      return ex.run(sql`INSERT INTO epics (workspace_id, reference_id, title) VALUES (1, 'EP-900', 'alone')`);
    });
    await Promise.all([write, statement]);
    expect(order).toEqual(["write", "statement"]);
    expect(await storedRefs(1)).toEqual(["EP-001", "EP-900"]);
  });

  it("a statement blocked by another connection's lock reconnects, retries and is stored", async () => {
    const busy: number[] = [];
    const db = await open({ busyTimeoutMs: 30, onBusy: (attempt) => busy.push(attempt) });
    const lock = await lockHeldFor(150);
    try {
      await db.writeStatement((ex) =>
        ex.run(sql`INSERT INTO epics (workspace_id, reference_id, title) VALUES (1, 'EP-900', 'after busy')`),
      );
      expect(busy.length).toBeGreaterThan(0); // the BUSY path really ran
      expect(await storedRefs(1)).toEqual(["EP-900"]);
    } finally {
      lock.end();
    }
  });
});

describe(":memory:", () => {
  it("one connection: reads wait for writes instead of failing, and the schema stays", async () => {
    const mem = await openDatabase({ url: ":memory:" });
    opened.push(mem);
    await migrateDatabase(mem);
    await mem.write((tx) => createWorkspace(tx, { slug: "m", name: "M" }));
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      jobs.push(mem.write((tx) => insertEpic(tx, 1, `m${i}`)));
      jobs.push(mem.read((db) => db.select().from(epics)));
    }
    await Promise.all(jobs);
    const rows = await mem.read((db) => db.select().from(epics));
    expect(rows.map((r) => r.referenceId).sort()).toEqual(seq("EP", 20));
  });
});
