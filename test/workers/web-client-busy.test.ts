/**
 * `databaseFromClient` over the Worker's client (`@libsql/client/web`) and the local libSQL endpoint: a
 * write that meets SQLITE_BUSY retries without closing the client, because in a Worker that one client
 * serves every request of the isolate and `reconnect()` would fail their calls in flight.
 */
import { join } from "node:path";
import { type Client, createClient } from "@libsql/client/web";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LibsqlDevServer, startLibsqlDevServer } from "../../src/cli/libsql-dev-server.js";
import { databaseFromClient } from "../../src/db/database.js";
import { tempDir } from "../helpers/companion.js";

let dir: Awaited<ReturnType<typeof tempDir>>;
let server: LibsqlDevServer;
const clients: Client[] = [];

function webClient(): Client {
  const client = createClient({ url: server.url });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  dir = await tempDir("reqlix-web-busy-");
  // A short busy wait, so a statement that meets the lock reports SQLITE_BUSY quickly.
  server = await startLibsqlDevServer({ file: join(dir.path, "busy.db"), port: 0, busyWaitMs: 100 });
  await webClient().execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
});

afterAll(async () => {
  for (const client of clients) client.close();
  await server?.close();
  await dir?.cleanup();
});

describe("a BUSY write over the web client", () => {
  it("retries and lands without closing the shared client: another request's open transaction keeps working", async () => {
    const shared = webClient();
    const busy: number[] = [];
    const database = databaseFromClient(shared, {
      serializeWrites: false,
      onBusy: (attempt) => busy.push(attempt),
    });
    // Another request of the same isolate, in the middle of a read transaction on the shared client.
    const reader = await shared.transaction("read");
    expect((await reader.execute("SELECT count(*) AS n FROM notes")).rows[0]?.n).toBe(0);

    // A second client (another isolate, another tool) holds the write lock for a while.
    const holder = await webClient().transaction("write");
    await holder.execute("INSERT INTO notes (body) VALUES ('held')");
    const write = database.write((tx) => tx.run(sql`INSERT INTO notes (body) VALUES ('retried')`));
    await new Promise((resolve) => setTimeout(resolve, 600));
    await holder.commit();
    await write;

    expect(busy.length).toBeGreaterThan(0);
    expect(shared.closed).toBe(false);
    // Before the fix, reconnect() had closed this transaction's stream: "the transaction is closed".
    expect((await reader.execute("SELECT 1 AS one")).rows[0]?.one).toBe(1);
    reader.close();
    const rows = await database.read((db) =>
      db.all<{ body: string }>(sql`SELECT body FROM notes ORDER BY id`),
    );
    expect(rows.map((r) => r.body)).toEqual(["held", "retried"]);
  });
});
