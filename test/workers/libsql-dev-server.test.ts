/**
 * The local libSQL endpoint against the real `@libsql/client/web` (the client the Worker uses), plus the
 * raw wire format for what that client never sends (conditions, stored SQL, protocol errors).
 */
import { spawn, spawnSync } from "node:child_process";
import { Agent, get as httpGet } from "node:http";
import { join, resolve } from "node:path";
import { type Client, createClient, LibsqlError } from "@libsql/client/web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LibsqlDevServer, startLibsqlDevServer } from "../../src/cli/libsql-dev-server.js";
import { tempDir } from "../helpers/companion.js";

let dir: Awaited<ReturnType<typeof tempDir>>;
let server: LibsqlDevServer;
let db: Client;

async function rejection(promise: Promise<unknown>): Promise<LibsqlError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LibsqlError);
    return error as LibsqlError;
  }
  throw new Error("expected the call to fail");
}

// Raw wire bodies are checked field by field below; a loose type keeps those checks readable.
// biome-ignore lint/suspicious/noExplicitAny: JSON from the wire
type Wire = any;

async function pipeline(body: unknown, url = server.url): Promise<{ status: number; json: Wire }> {
  const res = await fetch(`${url}/v2/pipeline`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  dir = await tempDir("reqlix-libsql-dev-");
  server = await startLibsqlDevServer({
    file: join(dir.path, "nested", "dev.db"),
    port: 0,
    streamIdleMs: 2_000,
  });
  db = createClient({ url: server.url, intMode: "bigint" });
  await db.execute(
    "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INTEGER, r REAL, b BLOB)",
  );
});

afterAll(async () => {
  db?.close();
  await server?.close();
  await dir?.cleanup();
});

describe("execute", () => {
  it("binds every argument type with its SQLite type and reads it back unchanged", async () => {
    const blob = new Uint8Array(256).map((_, i) => i);
    const big = 2n ** 62n + 7n;
    const rs = await db.execute({
      sql: "SELECT typeof(?1), typeof(?2), typeof(?3), typeof(?4), typeof(?5), typeof(?6), ?1, ?2, ?3, ?4, ?5, ?6",
      args: [null, big, 1.5, 2.0, "héllo ✓", blob],
    });
    const row = rs.rows[0];
    expect(row).toBeDefined();
    expect([row?.[0], row?.[1], row?.[2], row?.[3], row?.[4], row?.[5]]).toEqual([
      "null",
      "integer",
      "real",
      "real",
      "text",
      "blob",
    ]);
    expect(row?.[6]).toBeNull();
    expect(row?.[7]).toBe(big);
    expect(row?.[8]).toBe(1.5);
    expect(row?.[9]).toBe(2);
    expect(row?.[10]).toBe("héllo ✓");
    expect(new Uint8Array(row?.[11] as ArrayBuffer)).toEqual(blob);
  });

  it("binds named arguments with or without their sign", async () => {
    const rs = await db.execute({
      sql: "SELECT :a AS a, @b AS b, $c AS c",
      args: { a: 1n, "@b": "two", $c: 3.5 },
    });
    expect(rs.columns).toEqual(["a", "b", "c"]);
    expect(rs.rows[0]?.a).toBe(1n);
    expect(rs.rows[0]?.b).toBe("two");
    expect(rs.rows[0]?.c).toBe(3.5);
  });

  it("keeps integers above 2^31 and 2^53 exact, reports rows affected, rowid and declared types", async () => {
    const huge = 9_223_372_036_854_775_807n;
    const inserted = await db.execute({
      sql: "INSERT INTO items (name, n, r, b) VALUES (?, ?, ?, ?)",
      args: ["big", huge, 0.25, new Uint8Array([0, 255])],
    });
    expect(inserted.rowsAffected).toBe(1);
    expect(typeof inserted.lastInsertRowid).toBe("bigint");
    const rs = await db.execute({ sql: "SELECT id, name, n, r, b FROM items WHERE n = ?", args: [huge] });
    expect(rs.rows).toHaveLength(1);
    expect(rs.rows[0]?.n).toBe(huge);
    expect(rs.rows[0]?.id).toBe(inserted.lastInsertRowid);
    expect(rs.columnTypes).toEqual(["INTEGER", "TEXT", "INTEGER", "REAL", "BLOB"]);

    const asNumbers = createClient({ url: server.url });
    try {
      const n = await asNumbers.execute({ sql: "SELECT ? AS v, typeof(?) AS t", args: [2 ** 40, 2 ** 40] });
      // A JS number travels as a float; 2^40 survives exactly either way.
      expect(n.rows[0]?.v).toBe(2 ** 40);
      const i = await asNumbers.execute({
        sql: "SELECT ? AS v, typeof(?) AS t",
        args: [3_000_000_000n, 3_000_000_000n],
      });
      expect(i.rows[0]?.v).toBe(3_000_000_000);
      expect(i.rows[0]?.t).toBe("integer");
    } finally {
      asNumbers.close();
    }
  });

  it("reports a rowid above 2^53 exactly, and 0 rows for an UPDATE that matches none", async () => {
    const max = 9_223_372_036_854_775_807n;
    const rs = await db.execute({
      sql: "INSERT INTO items (id, name) VALUES (?, ?)",
      args: [max, "max-rowid"],
    });
    expect(rs.lastInsertRowid).toBe(max);
    const none = await db.execute({ sql: "UPDATE items SET n = 1 WHERE name = ?", args: ["no such item"] });
    expect(none.rowsAffected).toBe(0);
    await db.execute({ sql: "DELETE FROM items WHERE id = ?", args: [max] });
  });

  it("reports rows affected and rowid for INSERT … RETURNING", async () => {
    const rs = await db.execute({
      sql: "INSERT INTO items (name) VALUES (?) RETURNING id, name",
      args: ["returned"],
    });
    expect(rs.rows[0]?.name).toBe("returned");
    expect(rs.rowsAffected).toBe(1);
    expect(rs.lastInsertRowid).toBe(rs.rows[0]?.id);
  });

  it("returns infinite floats as Infinity", async () => {
    const rs = await db.execute("SELECT 1e999 AS p, -1e999 AS m");
    expect(rs.rows[0]?.p).toBe(Number.POSITIVE_INFINITY);
    expect(rs.rows[0]?.m).toBe(Number.NEGATIVE_INFINITY);
  });

  it("surfaces SQL errors as LibsqlError with the SQLite message and code", async () => {
    const syntax = await rejection(db.execute("SELEC 1"));
    expect(syntax.code).toBe("SQLITE_ERROR");
    expect(syntax.message).toContain('near "SELEC": syntax error');

    const unique = await rejection(db.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: ["big"] }));
    expect(unique.code).toBe("SQLITE_CONSTRAINT");
    expect(unique.message).toContain("UNIQUE constraint failed: items.name");

    const empty = await rejection(db.execute("  -- nothing"));
    expect(empty.code).toBe("SQL_NO_STATEMENT");
  });

  it("runs several statements with executeMultiple (sequence)", async () => {
    await db.executeMultiple("CREATE TABLE seq (x); INSERT INTO seq VALUES (1); INSERT INTO seq VALUES (2);");
    const rs = await db.execute("SELECT count(*) AS c FROM seq");
    expect(rs.rows[0]?.c).toBe(2n);
  });
});

describe("batch", () => {
  it("commits a write batch and returns one result per statement", async () => {
    const results = await db.batch(
      [
        { sql: "INSERT INTO items (name) VALUES (?)", args: ["b1"] },
        { sql: "INSERT INTO items (name) VALUES (?)", args: ["b2"] },
        { sql: "INSERT INTO items (name) VALUES (?)", args: ["b3"] },
        "SELECT count(*) AS c FROM items WHERE name LIKE 'b_'",
      ],
      "write",
    );
    expect(results).toHaveLength(4);
    expect(results[0]?.rowsAffected).toBe(1);
    expect(results[3]?.rows[0]?.c).toBe(3n);
  });

  it("rolls the whole batch back when one statement fails", async () => {
    const error = await rejection(
      db.batch(
        [
          { sql: "INSERT INTO items (name) VALUES (?)", args: ["rb1"] },
          { sql: "INSERT INTO items (name) VALUES (?)", args: ["b1"] }, // duplicate
          { sql: "INSERT INTO items (name) VALUES (?)", args: ["rb3"] },
        ],
        "write",
      ),
    );
    expect(error.message).toContain("UNIQUE constraint failed");
    expect((error as LibsqlError & { statementIndex?: number }).statementIndex).toBe(1);
    const rs = await db.execute("SELECT count(*) AS c FROM items WHERE name IN ('rb1', 'rb3')");
    expect(rs.rows[0]?.c).toBe(0n);
  });
});

describe("interactive transactions", () => {
  it("commits: writes become visible to others only after COMMIT", async () => {
    const tx = await db.transaction("write");
    await tx.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: ["tx-commit"] });
    const inside = await tx.execute("SELECT count(*) AS c FROM items WHERE name = 'tx-commit'");
    expect(inside.rows[0]?.c).toBe(1n);
    const outside = await db.execute("SELECT count(*) AS c FROM items WHERE name = 'tx-commit'");
    expect(outside.rows[0]?.c).toBe(0n);
    await tx.commit();
    const after = await db.execute("SELECT count(*) AS c FROM items WHERE name = 'tx-commit'");
    expect(after.rows[0]?.c).toBe(1n);
  });

  it("rolls back", async () => {
    const tx = await db.transaction("write");
    await tx.batch([
      { sql: "INSERT INTO items (name) VALUES (?)", args: ["tx-rollback-1"] },
      { sql: "INSERT INTO items (name) VALUES (?)", args: ["tx-rollback-2"] },
    ]);
    await tx.rollback();
    const rs = await db.execute("SELECT count(*) AS c FROM items WHERE name LIKE 'tx-rollback-%'");
    expect(rs.rows[0]?.c).toBe(0n);
    expect(server.openStreams()).toBe(0);
  });

  it("keeps a transaction usable after a failed statement inside it", async () => {
    const tx = await db.transaction("write");
    await tx.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: ["tx-partial"] });
    const error = await rejection(
      tx.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: ["tx-partial"] }),
    );
    expect(error.message).toContain("UNIQUE constraint failed");
    await tx.commit();
    const rs = await db.execute("SELECT count(*) AS c FROM items WHERE name = 'tx-partial'");
    expect(rs.rows[0]?.c).toBe(1n);
  });

  it("makes a second writer wait (without blocking) until the first commits, then both land", async () => {
    const first = await db.transaction("write");
    await first.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: ["w1"] });
    let secondStarted = false;
    const second = (async () => {
      const tx = await db.transaction("write");
      await tx.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: ["w2"] }); // BEGIN IMMEDIATE waits here
      secondStarted = true;
      await tx.commit();
    })();
    await new Promise((r) => setTimeout(r, 150));
    // The endpoint still answers reads while the second writer waits for the lock.
    const read = await db.execute("SELECT count(*) AS c FROM items WHERE name IN ('w1', 'w2')");
    expect(read.rows[0]?.c).toBe(0n);
    expect(secondStarted).toBe(false);
    await first.commit();
    await second;
    const rs = await db.execute("SELECT name FROM items WHERE name IN ('w1', 'w2') ORDER BY id");
    expect(rs.rows.map((r) => r.name)).toEqual(["w1", "w2"]);
  });

  it("lands every write of 16 concurrent writers (8 interactive transactions, 8 batches) exactly once", async () => {
    await db.execute("CREATE TABLE writes (writer TEXT NOT NULL, n INTEGER NOT NULL, UNIQUE (writer, n))");
    const clients = Array.from({ length: 16 }, () => createClient({ url: server.url }));
    try {
      await Promise.all(
        clients.map(async (client, w) => {
          const rows = Array.from({ length: 5 }, (_, n) => ({
            sql: "INSERT INTO writes (writer, n) VALUES (?, ?)",
            args: [`w${w}`, n],
          }));
          if (w % 2 === 0) {
            await client.batch(rows, "write");
            return;
          }
          const tx = await client.transaction("write");
          for (const row of rows) await tx.execute(row);
          await tx.commit();
        }),
      );
    } finally {
      for (const client of clients) client.close();
    }
    const rs = await db.execute("SELECT count(*) AS c, count(DISTINCT writer) AS w FROM writes");
    expect(rs.rows[0]?.c).toBe(80n);
    expect(rs.rows[0]?.w).toBe(16n);
  });

  it("expires an abandoned stream: its transaction is rolled back and the write lock freed", async () => {
    const tx = await db.transaction("write");
    await tx.execute({ sql: "INSERT INTO items (name) VALUES (?)", args: ["abandoned"] });
    await new Promise((r) => setTimeout(r, 2_600));
    const error = await rejection(tx.execute("SELECT 1"));
    expect(error.code).toBe("STREAM_EXPIRED");
    // Another writer gets the lock at once, and the abandoned row is gone.
    await db.batch([{ sql: "INSERT INTO items (name) VALUES (?)", args: ["after-expiry"] }], "write");
    const rs = await db.execute("SELECT name FROM items WHERE name IN ('abandoned', 'after-expiry')");
    expect(rs.rows.map((r) => r.name)).toEqual(["after-expiry"]);
  });
});

describe("wire format", () => {
  it("answers GET /v2 and /health, and 404 for v3 so clients fall back to v2", async () => {
    expect((await fetch(`${server.url}/v2`)).status).toBe(200);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const v3 = await fetch(`${server.url}/v3-protobuf`);
    expect(v3.status).toBe(404);
    expect(v3.headers.get("content-type")).toBe("application/json");
  });

  it("evaluates batch conditions and stored SQL texts exactly as the spec says", async () => {
    const { status, json } = await pipeline({
      baton: null,
      requests: [
        { type: "store_sql", sql_id: 7, sql: "SELECT ? + 1 AS v" },
        {
          type: "batch",
          batch: {
            steps: [
              { stmt: { sql_id: 7, args: [{ type: "integer", value: "41" }] } }, // 0 ok
              { stmt: { sql: "SELECT nope FROM nowhere" } }, // 1 error
              { condition: { type: "error", step: 1 }, stmt: { sql: "SELECT 'ran: error(1)'" } }, // 2 runs
              { condition: { type: "ok", step: 1 }, stmt: { sql: "SELECT 'skipped'" } }, // 3 skipped
              {
                condition: {
                  type: "and",
                  conds: [
                    { type: "ok", step: 0 },
                    { type: "not", cond: { type: "ok", step: 3 } },
                  ],
                },
                stmt: { sql: "SELECT 'ran: and/not'" },
              }, // 4 runs
              {
                condition: {
                  type: "or",
                  conds: [
                    { type: "ok", step: 3 },
                    { type: "error", step: 0 },
                  ],
                },
                stmt: { sql: "SELECT 'skipped too'" },
              }, // 5 skipped
              {
                condition: { type: "is_autocommit" },
                stmt: { sql: "SELECT 'autocommit'", want_rows: false },
              }, // 6
            ],
          },
        },
        { type: "close_sql", sql_id: 7 },
        { type: "execute", stmt: { sql_id: 7, args: [{ type: "integer", value: "1" }] } },
        { type: "get_autocommit" },
        { type: "no_such_request" },
        { type: "close" },
        { type: "execute", stmt: { sql: "SELECT 1" } },
      ],
    });
    expect(status).toBe(200);
    expect(json.baton).toBeNull();
    const [store, batch, closeSql, afterClose, autocommit, unknown, close, afterStreamClose] = json.results;
    expect(store).toEqual({ type: "ok", response: { type: "store_sql" } });
    const r = batch.response.result;
    expect(r.step_results[0].rows).toEqual([[{ type: "integer", value: "42" }]]);
    expect(r.step_results[0].cols).toEqual([{ name: "v", decltype: null }]);
    expect(r.step_errors[1]).toEqual({ message: "no such table: nowhere", code: "SQLITE_ERROR" });
    expect(r.step_results[2].rows).toEqual([[{ type: "text", value: "ran: error(1)" }]]);
    expect([r.step_results[3], r.step_errors[3]]).toEqual([null, null]);
    expect(r.step_results[4].rows).toEqual([[{ type: "text", value: "ran: and/not" }]]);
    expect([r.step_results[5], r.step_errors[5]]).toEqual([null, null]);
    expect(r.step_results[6]).toEqual({
      cols: [{ name: "'autocommit'", decltype: null }],
      rows: [],
      affected_row_count: 0,
      last_insert_rowid: null,
    });
    expect(closeSql).toEqual({ type: "ok", response: { type: "close_sql" } });
    expect(afterClose.type).toBe("error");
    expect(afterClose.error.message).toContain("SQL text 7 is not stored");
    expect(autocommit).toEqual({ type: "ok", response: { type: "get_autocommit", is_autocommit: true } });
    expect(unknown.type).toBe("error");
    expect(unknown.error.code).toBe("HRANA_PROTO_ERROR");
    expect(unknown.error.message).toContain("requests[5].type");
    expect(close).toEqual({ type: "ok", response: { type: "close" } });
    expect(afterStreamClose.error.message).toContain("The stream is closed");
  });

  it("keeps a stream's connection across requests and hands out a new baton each time", async () => {
    const first = await pipeline({ baton: null, requests: [{ type: "execute", stmt: { sql: "BEGIN" } }] });
    expect(typeof first.json.baton).toBe("string");
    const second = await pipeline({ baton: first.json.baton, requests: [{ type: "get_autocommit" }] });
    expect(second.json.results[0].response.is_autocommit).toBe(false);
    expect(second.json.baton).not.toBe(first.json.baton);
    // A baton is good for one request only.
    const reused = await pipeline({ baton: first.json.baton, requests: [{ type: "close" }] });
    expect(reused.status).toBe(400);
    expect(reused.json.code).toBe("STREAM_EXPIRED");
    const closed = await pipeline({
      baton: second.json.baton,
      requests: [{ type: "execute", stmt: { sql: "ROLLBACK" } }, { type: "close" }],
    });
    expect(closed.json.results.map((x: { type: string }) => x.type)).toEqual(["ok", "ok"]);
    expect(closed.json.baton).toBeNull();
  });

  it("leaves closing an idle keep-alive connection to the client (workerd drops its own after 5 s)", async () => {
    // With the server's timeout equal to the client pool's (Node's default 5 s), a request sent on a pooled
    // connection could cross the server's FIN and fail in the Worker as an unreachable database.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; port: number | undefined; keepAlive: string | undefined }>(
        (done, fail) => {
          const req = httpGet(`${server.url}/health`, { agent }, (res) => {
            res.resume();
            res.on("end", () =>
              done({
                status: res.statusCode ?? 0,
                port: res.socket?.localPort,
                keepAlive: String(res.headers["keep-alive"] ?? ""),
              }),
            );
          });
          req.on("error", fail);
        },
      );
    try {
      const first = await get();
      expect(first.status).toBe(200);
      expect(first.keepAlive).toMatch(/timeout=(\d+)/);
      expect(Number(/timeout=(\d+)/.exec(first.keepAlive ?? "")?.[1])).toBeGreaterThan(30);
      await new Promise((resolve) => setTimeout(resolve, 5_600));
      const second = await get();
      expect(second.status).toBe(200);
      // Same local port: the server kept the idle connection past the client pools' 5 s.
      expect(second.port).toBe(first.port);
    } finally {
      agent.destroy();
    }
  });

  it("reuses connections between streams without carrying a stream's foreign_keys setting over", async () => {
    const off = await pipeline({
      baton: null,
      requests: [{ type: "execute", stmt: { sql: "PRAGMA foreign_keys=off" } }, { type: "close" }],
    });
    expect(off.json.results[0].type).toBe("ok");
    for (let i = 0; i < 10; i++) {
      const rs = await db.execute("PRAGMA foreign_keys");
      expect(rs.rows[0]?.foreign_keys).toBe(1n);
    }
  });

  it("rejects a body that is not a pipeline with HTTP 400 and says what is wrong", async () => {
    const notJson = await pipeline("{");
    expect(notJson.status).toBe(400);
    expect(notJson.json).toEqual({ message: "The request body is not JSON.", code: "HRANA_PROTO_ERROR" });
    const noRequests = await pipeline({ baton: null });
    expect(noRequests.status).toBe(400);
    expect(noRequests.json.message).toContain("body.requests");
    const badInteger = await pipeline({
      baton: null,
      requests: [{ type: "execute", stmt: { sql: "SELECT ?", args: [{ type: "integer", value: 5 }] } }],
    });
    expect(badInteger.json.results[0].error.message).toContain("requests[0].stmt.args[0].value");
    const forward = await pipeline({
      baton: null,
      requests: [
        {
          type: "batch",
          batch: { steps: [{ condition: { type: "ok", step: 0 }, stmt: { sql: "SELECT 1" } }] },
        },
      ],
    });
    expect(forward.json.results[0].error.message).toContain("may only refer to earlier steps");
  });

  it("requires the auth token when one is configured", async () => {
    const guarded = await startLibsqlDevServer({
      file: join(dir.path, "guarded.db"),
      port: 0,
      authToken: "s3cret",
    });
    const wrong = createClient({ url: guarded.url, authToken: "nope" });
    const right = createClient({ url: guarded.url, authToken: "s3cret" });
    try {
      const error = await rejection(wrong.execute("SELECT 1"));
      expect(error.code).toBe("UNAUTHORIZED");
      const rs = await right.execute("SELECT 1 AS one");
      expect(rs.rows[0]?.one).toBe(1);
    } finally {
      wrong.close();
      right.close();
      await guarded.close();
    }
  });
});

describe("busy handling", () => {
  it("returns SQLITE_BUSY after the wait, and the stream stays able to commit afterwards (libsql-client-ts#352)", async () => {
    const quick = await startLibsqlDevServer({ file: join(dir.path, "busy.db"), port: 0, busyWaitMs: 100 });
    try {
      const setup = await pipeline(
        {
          baton: null,
          requests: [{ type: "execute", stmt: { sql: "CREATE TABLE t (x)" } }, { type: "close" }],
        },
        quick.url,
      );
      expect(setup.json.results[0].type).toBe("ok");
      const holder = await pipeline(
        { baton: null, requests: [{ type: "execute", stmt: { sql: "BEGIN IMMEDIATE" } }] },
        quick.url,
      );
      const started = Date.now();
      const victim = await pipeline(
        { baton: null, requests: [{ type: "execute", stmt: { sql: "INSERT INTO t VALUES (1)" } }] },
        quick.url,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(90);
      expect(victim.json.results[0].error).toEqual({ message: "database is locked", code: "SQLITE_BUSY" });
      const released = await pipeline(
        {
          baton: holder.json.baton,
          requests: [{ type: "execute", stmt: { sql: "COMMIT" } }, { type: "close" }],
        },
        quick.url,
      );
      expect(released.json.results[0].type).toBe("ok");
      const again = await pipeline(
        {
          baton: victim.json.baton,
          requests: [
            { type: "execute", stmt: { sql: "BEGIN IMMEDIATE" } },
            { type: "execute", stmt: { sql: "INSERT INTO t VALUES (2)" } },
            { type: "execute", stmt: { sql: "COMMIT" } },
            { type: "execute", stmt: { sql: "SELECT count(*) FROM t" } },
            { type: "close" },
          ],
        },
        quick.url,
      );
      expect(again.json.results.map((x: { type: string }) => x.type)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
      expect(again.json.results[3].response.result.rows).toEqual([[{ type: "integer", value: "1" }]]);
    } finally {
      await quick.close();
    }
  });
});

describe("the endpoint as a command", () => {
  const cli = resolve(import.meta.dirname, "../../src/cli/libsql-dev-server.ts");

  it("serves a file until SIGTERM, printing its URL", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", cli, "--file", join(dir.path, "cli.db"), "--port", "0"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    try {
      let out = "";
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString("utf8");
      });
      const deadline = Date.now() + 30_000;
      while (!/on (http:\/\/\S+),/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no URL printed: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const url = /on (http:\/\/\S+),/.exec(out)?.[1] as string;
      const client = createClient({ url });
      try {
        const rs = await client.execute("SELECT 40 + 2 AS answer");
        expect(rs.rows[0]?.answer).toBe(42);
      } finally {
        client.close();
      }
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });

  it("refuses an unknown option and a bad port, saying what to fix", () => {
    const unknown = spawnSync(process.execPath, ["--import", "tsx", cli, "--flie", "x.db"], {
      encoding: "utf8",
    });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option --flie");
    const port = spawnSync(process.execPath, ["--import", "tsx", cli, "--port", "99999"], {
      encoding: "utf8",
    });
    expect(port.status).toBe(2);
    expect(port.stderr).toContain("The port must be an integer from 0 to 65535");
  });
});
