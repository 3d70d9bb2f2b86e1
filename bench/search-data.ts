/**
 * The search benchmarks' data: a workspace of generated requirements (Zipf-distributed words, like a real
 * backlog) and, in the same database, a small workspace with the same vocabulary. A 1,000,000-row database
 * takes minutes to build on a shared machine, so it is built once into a file and reused: a marker file next
 * to it records what it holds, and a database whose marker does not match is rebuilt. Migrations added later
 * are applied to the kept file when it is opened (a custom migration that rebuilds the FTS index runs once).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { addMemberOp, createWorkspaceOp, type OpContext } from "../src/db/admin-ops.js";
import { type Database, openDatabase } from "../src/db/client.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { getUserByUsername } from "../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../src/db/workspaces.repo.js";
import { rng, zipfWords } from "./lib.js";

export const BASE = (
  "user system must shall order payment account login password token session cart checkout invoice refund " +
  "report export import search filter sort page list detail admin role permission audit log error retry " +
  "timeout email notification message queue webhook api endpoint request response latency throughput cache " +
  "database index backup restore migration schema version release deploy rollback monitor alert metric " +
  "dashboard trace customer tenant workspace member invite profile avatar address shipping tax currency " +
  "discount coupon subscription plan billing trial upgrade downgrade cancel renewal receipt pdf csv upload " +
  "download file image video thumbnail storage quota limit rate encryption certificate signature consent " +
  "privacy gdpr retention deletion anonymise mobile offline sync conflict locale translation accessibility"
).split(" ");
/** The common words, then a long tail of rarer domain words. */
export const VOCAB = [...BASE, ...Array.from({ length: 3000 }, (_, i) => `term${i.toString(36)}`)];

export interface SearchWorkspace {
  id: number;
  slug: string;
  rows: number;
}

export interface SearchData {
  database: Database;
  user: { id: number; username: string };
  big: SearchWorkspace;
  small: SearchWorkspace;
  /** Whether this run built the database (false: reused from an earlier run). */
  built: boolean;
}

const STATUSES = ["Draft", "Active", "Obsolete"];
const CHUNK = 500;
const CHUNKS_PER_TX = 40;

async function seedWorkspace(
  database: Database,
  ws: SearchWorkspace,
  userId: number,
  phrase: (n: number) => string,
): Promise<void> {
  const stories = Math.max(1, Math.ceil(ws.rows / 100));
  const typeRows = await database.read((db) =>
    db.all<{ id: number }>(sql`SELECT id FROM requirement_types WHERE workspace_id = ${ws.id} ORDER BY id`),
  );
  const storyIds: number[] = [];
  await database.write(async (tx) => {
    await tx.run(
      sql`INSERT INTO epics (workspace_id, reference_id, title) VALUES (${ws.id}, 'EP-001', 'Bench epic')`,
    );
    const epic = await tx.all<{ id: number }>(
      sql`SELECT id FROM epics WHERE workspace_id = ${ws.id} AND reference_id = 'EP-001'`,
    );
    for (let s = 1; s <= stories; s++) {
      await tx.run(sql`INSERT INTO user_stories (workspace_id, reference_id, epic_id, title)
        VALUES (${ws.id}, ${`US-${String(s).padStart(3, "0")}`}, ${epic[0]?.id}, ${phrase(6)})`);
    }
    const ids = await tx.all<{ id: number }>(
      sql`SELECT id FROM user_stories WHERE workspace_id = ${ws.id} ORDER BY id`,
    );
    storyIds.push(...ids.map((r) => Number(r.id)));
  });
  for (let start = 1; start <= ws.rows; start += CHUNK * CHUNKS_PER_TX) {
    await database.write(async (tx) => {
      for (let c = start; c < start + CHUNK * CHUNKS_PER_TX && c <= ws.rows; c += CHUNK) {
        const values = [];
        for (let n = c; n < c + CHUNK && n <= ws.rows; n++) {
          const type = typeRows[n % typeRows.length]?.id ?? 1;
          values.push(
            sql`(${ws.id}, ${`REQ-${String(n).padStart(3, "0")}`}, ${storyIds[(n - 1) % stories]}, ${phrase(6)}, ${phrase(35)}, ${STATUSES[n % 3]}, ${1 + (n % 4)}, ${type}, ${userId})`,
          );
        }
        await tx.run(sql`INSERT INTO requirements
          (workspace_id, reference_id, user_story_id, title, description, status, priority, type_id, creator_id)
          VALUES ${sql.join(values, sql`, `)}`);
      }
    });
    if ((start - 1) % 100_000 === 0 && start > 1)
      console.log(`  ${ws.slug}: ${(start - 1).toLocaleString("en")}`);
  }
}

/**
 * Opens (building it first when missing or different) a database with `rows` requirements in workspace `big`
 * and `smallRows` in workspace `small`, created after it, sharing the vocabulary.
 */
export async function openSearchData(path: string, rows: number, smallRows: number): Promise<SearchData> {
  const marker = `${path}.json`;
  const want = JSON.stringify({ version: 1, rows, smallRows });
  let built = false;
  const kept = existsSync(path) && existsSync(marker) && readFileSync(marker, "utf8") === want;
  if (!kept) {
    for (const f of [path, `${path}-wal`, `${path}-shm`, marker]) rmSync(f, { force: true });
    built = true;
  }
  const database = await openDatabase({ url: `file:${path}` });
  await migrateDatabase(database);
  const cli: OpContext = { actor: { kind: "cli" }, now: new Date() };
  if (built) {
    console.log(
      `Building ${path}: ${rows.toLocaleString("en")} + ${smallRows.toLocaleString("en")} requirements…`,
    );
    await createWorkspaceOp(database, cli, { slug: "big", name: "big" });
    await createWorkspaceOp(database, cli, { slug: "small", name: "small" });
    for (const slug of ["big", "small"]) {
      await addMemberOp(database, cli, { username: "bencher", role: "viewer", workspace: slug });
    }
  }
  const user = await database.read((db) => getUserByUsername(db, "bencher"));
  const ws = async (slug: string, n: number): Promise<SearchWorkspace> => {
    const found = await database.read((db) => findWorkspaceBySlug(db, slug));
    if (!found) throw new Error(`no workspace ${slug}`);
    return { id: found.id, slug, rows: n };
  };
  const big = await ws("big", rows);
  const small = await ws("small", smallRows);
  if (built) {
    const t0 = performance.now();
    await seedWorkspace(database, big, user.id, zipfWords(VOCAB, rng(42)).phrase);
    await seedWorkspace(database, small, user.id, zipfWords(VOCAB, rng(43)).phrase);
    // No 'optimize' or ANALYZE: the index is measured as the server leaves it (FTS5 automerge only).
    await database.client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    writeFileSync(marker, want);
    console.log(`Built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return { database, user: { id: user.id, username: user.username }, big, small, built };
}
