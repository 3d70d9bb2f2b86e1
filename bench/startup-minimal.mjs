// The start-up baseline of bench/startup.ts: a minimal Hono + libSQL server, unbundled, as one would write
// it by hand. Opens (creates) the database named by REQLIX_DB_URL, then serves GET /healthz on PORT after
// a query answered.
import { serve } from "@hono/node-server";
import { createClient } from "@libsql/client";
import { Hono } from "hono";

const client = createClient({ url: process.env.REQLIX_DB_URL ?? "file::memory:" });
await client.execute("PRAGMA journal_mode = WAL");
const app = new Hono();
app.get("/healthz", async (c) => {
  await client.execute("SELECT 1");
  return c.json({ status: "ok" });
});
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: process.env.HOST ?? "127.0.0.1" });
