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

const RUNS = Number(process.env.RUNS ?? 300);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function time(runs: number, op: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await op(-1 - i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await op(i);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

async function measure(label: string, client: Client) {
  const tag = `${label}-${Math.random().toString(36).slice(2)}`;
  const read = await time(RUNS, () =>
    client.execute({ sql: "SELECT id, name FROM items WHERE id = ?", args: [1] }),
  );
  const batch = await time(RUNS, (i) =>
    client.batch(
      Array.from({ length: 5 }, (_, k) => ({
        sql: "INSERT INTO items (name) VALUES (?)",
        args: [`${tag}-b${i}-${k}`],
      })),
      "write",
    ),
  );
  const transaction = await time(RUNS, async (i) => {
    const tx = await client.transaction("write");
    for (let k = 0; k < 3; k++)
      await tx.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: [`${tag}-t${i}-${k}`] });
    await tx.commit();
  });
  return { read, batch, transaction };
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
    const baseline = await measure("embedded", embedded);
    const endpoint = await measure("endpoint", web);
    const rows = (["read", "batch", "transaction"] as const).map((op) => ({
      operation: op,
      embedded_ms: Number(baseline[op].toFixed(3)),
      endpoint_ms: Number(endpoint[op].toFixed(3)),
      ratio: Number((endpoint[op] / baseline[op]).toFixed(1)),
    }));
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
