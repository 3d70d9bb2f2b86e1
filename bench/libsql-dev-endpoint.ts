/**
 * What the local libSQL endpoint costs the Worker in development: the same operations through
 * `@libsql/client/web` → Hrana over HTTP → the endpoint, against the embedded `@libsql/client` on the same
 * file (the Node server's path) as the baseline, in the same run. Operations: a point read (execute), a
 * 5-statement write batch, and an interactive write transaction (BEGIN … 3 inserts … COMMIT, 4 round trips).
 * Run: npx tsx bench/libsql-dev-endpoint.ts   (RUNS=… to change the sample size)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Client, createClient as createEmbedded } from "@libsql/client";
import { createClient as createWeb } from "@libsql/client/web";
import { startLibsqlDevServer } from "../src/cli/libsql-dev-server.js";
import { median } from "./lib.js";

const RUNS = Number(process.env.RUNS ?? 300);

type Op = (client: Client, tag: string, i: number) => Promise<unknown>;

const OPS: Record<"read" | "batch" | "transaction", Op> = {
  read: (client) => client.execute({ sql: "SELECT id, name FROM items WHERE id = ?", args: [1] }),
  batch: (client, tag, i) =>
    client.batch(
      Array.from({ length: 5 }, (_, k) => ({
        sql: "INSERT INTO items (name) VALUES (?)",
        args: [`${tag}-b${i}-${k}`],
      })),
      "write",
    ),
  transaction: async (client, tag, i) => {
    const tx = await client.transaction("write");
    for (let k = 0; k < 3; k++)
      await tx.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: [`${tag}-t${i}-${k}`] });
    await tx.commit();
  },
};

async function timed(op: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await op();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Baseline and endpoint alternate sample by sample, so load from other processes hits both alike. */
async function measure(
  op: Op,
  embedded: Client,
  web: Client,
): Promise<{ embedded: number; endpoint: number }> {
  for (let i = 0; i < 20; i++) {
    await op(embedded, "warm-e", i);
    await op(web, "warm-w", i);
  }
  const e: number[] = [];
  const w: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    e.push(await timed(() => op(embedded, "e", i)));
    w.push(await timed(() => op(web, "w", i)));
  }
  return { embedded: median(e), endpoint: median(w) };
}

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-libsql-"));
const file = join(dir, "bench.db");
try {
  const embedded = createEmbedded({ url: `file:${file}` });
  await embedded.execute("PRAGMA journal_mode=WAL");
  await embedded.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)");
  await embedded.execute("INSERT INTO items (name) VALUES ('first')");
  const server = await startLibsqlDevServer({ file, port: 0 });
  const web = createWeb({ url: server.url });
  try {
    const rows = [];
    for (const [name, op] of Object.entries(OPS)) {
      const m = await measure(op, embedded, web);
      rows.push({
        operation: name,
        embedded_ms: Number(m.embedded.toFixed(3)),
        endpoint_ms: Number(m.endpoint.toFixed(3)),
        ratio: Number((m.endpoint / m.embedded).toFixed(1)),
      });
    }
    console.table(rows);
    const result = { bench: "libsql-dev-endpoint", node: process.version, runs: RUNS, median: rows };
    const out = resolve(import.meta.dirname, "results/libsql-dev-endpoint.json");
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    const md = [
      `# libSQL dev endpoint vs embedded client (median of ${RUNS}, ${process.version})`,
      "",
      "| operation | embedded ms | endpoint ms | ratio |",
      "|---|---|---|---|",
      ...rows.map((r) => `| ${r.operation} | ${r.embedded_ms} | ${r.endpoint_ms} | ${r.ratio}× |`),
      "",
    ].join("\n");
    writeFileSync(resolve(import.meta.dirname, "results/libsql-dev-endpoint.md"), md);
  } finally {
    web.close();
    await server.close();
    embedded.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
