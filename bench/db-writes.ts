/**
 * The cost of safe writes on the embedded database (issue 2 item 6): one "write" allocates a reference id
 * and inserts an epic.
 *   (a) baseline: the raw libSQL client, one `batch(…, "write")` per write, sequential (no queue, no
 *       interactive transaction, no drizzle);
 *   (b) `database.write` (async queue + BEGIN IMMEDIATE interactive transaction + drizzle), 16 concurrent
 *       callers;
 *   (c) the same, one caller at a time;
 *   (d) the full HTTP stack: POST /api/v1/admin/members (auth, validation, membership upsert, audit row)
 *       from 16 concurrent clients over a real socket (server in this process).
 * Prints a table and writes bench/results/db-writes.{json,md}. Target: (b) ≥ 0.5 × (a).
 *
 *   npx tsx bench/db-writes.ts [--writes 2000]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createApp } from "../src/app.js";
import { bootstrap } from "../src/db/bootstrap.js";
import { openDatabase } from "../src/db/client.js";
import { nextReference } from "../src/db/counters.repo.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { epics } from "../src/db/schema.js";
import { createWorkspace } from "../src/db/workspaces.repo.js";
import { createJsonLogger } from "../src/http/logger.js";

const args = process.argv.slice(2);
const i = args.indexOf("--writes");
const N = i === -1 ? 2000 : Number(args[i + 1]);
const CONCURRENCY = 16;

async function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-writes-"));
  const database = await openDatabase({ url: `file:${join(dir, "b.db")}` });
  await migrateDatabase(database);
  const ws = await database.write((tx) => createWorkspace(tx, { slug: "b", name: "B" }));
  return { dir, database, ws };
}

async function pool(n: number, concurrency: number, task: (k: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const results: { case: string; writes: number; ms: number; perSecond: number; ratio: number }[] = [];
function record(name: string, writes: number, ms: number) {
  const perSecond = (writes / ms) * 1000;
  const base = results[0]?.perSecond ?? perSecond;
  results.push({
    case: name,
    writes,
    ms: Math.round(ms),
    perSecond: Math.round(perSecond),
    ratio: perSecond / base,
  });
}

{
  const { dir, database, ws } = await fresh();
  const ms = await timed(async () => {
    for (let k = 0; k < N; k++) {
      await database.client.batch(
        [
          {
            sql: "INSERT INTO reference_counters (workspace_id, prefix, last_value) VALUES (?, 'EP', 1) ON CONFLICT DO UPDATE SET last_value = last_value + 1",
            args: [ws.id],
          },
          {
            sql: "INSERT INTO epics (workspace_id, reference_id, title) SELECT ?, 'EP-' || printf('%03d', last_value), ? FROM reference_counters WHERE workspace_id = ? AND prefix = 'EP'",
            args: [ws.id, `epic ${k}`, ws.id],
          },
        ],
        "write",
      );
    }
  });
  record("(a) raw client batch, sequential", N, ms);
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}

for (const [label, concurrency] of [
  [`(b) database.write, ${CONCURRENCY} concurrent`, CONCURRENCY],
  ["(c) database.write, 1 at a time", 1],
] as const) {
  const { dir, database, ws } = await fresh();
  const ms = await timed(() =>
    pool(N, concurrency, async (k) => {
      await database.write(async (tx) => {
        const referenceId = await nextReference(tx, ws.id, "EP");
        await tx.insert(epics).values({ workspaceId: ws.id, referenceId, title: `epic ${k}` });
      });
    }),
  );
  const stored = await database.client.execute("SELECT count(DISTINCT reference_id) AS n FROM epics");
  if (Number(stored.rows[0]?.n) !== N) throw new Error(`${label}: expected ${N} distinct epics`);
  record(label, N, ms);
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}

{
  const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-writes-"));
  const database = await openDatabase({ url: `file:${join(dir, "h.db")}` });
  await migrateDatabase(database);
  const boot = await bootstrap(database);
  if (!boot.created) throw new Error("no bootstrap");
  const app = createApp({ database, logger: createJsonLogger({ write: () => {} }), version: "bench" });
  const { server, base } = await new Promise<{ server: ReturnType<typeof serve>; base: string }>(
    (resolve) => {
      const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
        resolve({ server: s, base: `http://127.0.0.1:${info.port}` }),
      );
    },
  );
  const httpN = Math.min(N, 1000);
  const ms = await timed(() =>
    pool(httpN, CONCURRENCY, async (k) => {
      const res = await fetch(`${base}/api/v1/admin/members`, {
        method: "POST",
        headers: { Authorization: `Bearer ${boot.token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ username: `user-${k}`, role: "editor" }),
      });
      if (res.status !== 201) throw new Error(`HTTP ${res.status}`);
      await res.arrayBuffer();
    }),
  );
  record(`(d) HTTP POST /api/v1/admin/members, ${CONCURRENCY} clients`, httpN, ms);
  await new Promise<void>((r) => server.close(() => r()));
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}

const table = [
  "| case | writes | ms | writes/s | ratio to (a) |",
  "|---|---:|---:|---:|---:|",
  ...results.map((r) => `| ${r.case} | ${r.writes} | ${r.ms} | ${r.perSecond} | ${r.ratio.toFixed(2)} |`),
].join("\n");
console.log(table);
const outDir = join(import.meta.dirname, "results");
mkdirSync(outDir, { recursive: true });
const meta = { node: process.version, date: new Date().toISOString(), writes: N, concurrency: CONCURRENCY };
writeFileSync(join(outDir, "db-writes.json"), `${JSON.stringify({ ...meta, results }, null, 2)}\n`);
writeFileSync(
  join(outDir, "db-writes.md"),
  `# Safe writes on the embedded database\n\n${JSON.stringify(meta)}\n\n${table}\n\nTarget: (b) ≥ 0.5 × (a).\n`,
);
