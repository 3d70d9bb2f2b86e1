/**
 * An import's write transaction runs with a small SQLite page cache (issue 15, "a 100 MB ReqIF import grows
 * server memory by less than 200 MB"): the connection's own 32 MiB cache filled with the import's dirty
 * pages and stayed resident (+43 MB). The connection gets its cache size back afterwards, whether the
 * import committed or failed, so searches keep theirs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importInputOf } from "../../src/core/interchange/formats.js";
import type { Database } from "../../src/db/client.js";
import {
  IMPORT_PAGE_CACHE_KIB,
  type InterchangeCaller,
  importOp,
  withImportPageCache,
} from "../../src/db/interchange-ops.js";
import { openInterchangeDatabase } from "../helpers/interchange-db.js";

const dir = mkdtempSync(join(tmpdir(), "reqlix-import-cache-"));
let database: Database;
let caller: InterchangeCaller;

const cacheSize = async () => Number((await database.client.execute("PRAGMA cache_size")).rows[0]?.[0]);

const document = (title: string) =>
  JSON.stringify({
    format: "reqlix-export",
    version: 1,
    epics: [{ reference_id: "EP-001", title }],
    user_stories: [{ reference_id: "US-001", epic: "EP-001", title: "Story" }],
    requirements: [
      { reference_id: "REQ-001", user_story: "US-001", title: "Requirement", type: "Functional" },
    ],
  });

beforeAll(async () => {
  ({ database, caller } = await openInterchangeDatabase(
    join(dir, "cache.db"),
    new Date("2026-11-25T10:00:00.000Z"),
  ));
});
afterAll(async () => {
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("an import's page cache", () => {
  it("is IMPORT_PAGE_CACHE_KIB inside the import's transaction, the connection's own size after", async () => {
    const before = await cacheSize();
    expect(before).toBe(-32 * 1024);
    const inside = await database.write((tx) =>
      withImportPageCache(database, tx, async () =>
        Number((await tx.all<{ cache_size: number }>(sql`PRAGMA cache_size`))[0]?.cache_size),
      ),
    );
    expect(inside).toBe(-IMPORT_PAGE_CACHE_KIB);
    expect(await cacheSize()).toBe(before);
  });

  it("is given back when the import's work fails (the transaction rolls back)", async () => {
    const before = await cacheSize();
    await expect(
      database.write((tx) =>
        withImportPageCache(database, tx, async () => {
          throw new Error("a row failed");
        }),
      ),
    ).rejects.toThrow("a row failed");
    expect(await cacheSize()).toBe(before);
  });

  it("an applied import and a refused one leave the connection's cache size as it was", async () => {
    const before = await cacheSize();
    const applied = await importOp(
      database,
      caller,
      { format: "json", dryRun: false },
      importInputOf(document("Epic"), "a.json"),
    );
    expect(applied.counts.create).toBe(3);
    expect(await cacheSize()).toBe(before);
    // A second epic with the first one's title in a file: refused inside the transaction, nothing written.
    const clash = JSON.stringify({
      format: "reqlix-export",
      version: 1,
      epics: [{ reference_id: "EP-002", title: "Epic" }],
    });
    await expect(
      importOp(database, caller, { format: "json", dryRun: false }, importInputOf(clash, "b.json")),
    ).rejects.toThrow('An epic titled "Epic" already exists');
    expect(await cacheSize()).toBe(before);
  });
});
