/**
 * The database seam every repository and both entries use: a drizzle handle plus `read`/`write` that
 * serialize writes behind one async mutex (DESIGN: libSQL data-loss bug, libsql-client-ts#352).
 *
 * Runtime-neutral: imports only the drizzle core and types, so the Worker can import it with a client from
 * `@libsql/client/http`. Node-only code (file URLs, pragmas, the migrator) lives in `client.ts`/`migrate.ts`.
 */
import type { Client, ResultSet } from "@libsql/client";
import type { LibSQLDatabase } from "drizzle-orm/libsql/driver-core";
// The http entry only constructs over the client we pass: no native code, and (unlike /web) no WebSocket client
// in the Worker bundle.
import { drizzle } from "drizzle-orm/libsql/http";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { DomainError } from "../core/errors.js";

// No drizzle relational schema: repositories use the query builder (`select().from(table)`), never
// `db.query.*`, and without one drizzle skips building the relational config at start.
export type Db = LibSQLDatabase;
/** What a repository function takes: the database itself (reads) or a write transaction. */
export type Executor = BaseSQLiteDatabase<"async", ResultSet>;
/** The transaction handed to `write(fn)`. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  db: Db;
  client: Client;
  /** Runs a read. On a single-connection database (`:memory:`) it waits for the write queue. */
  read<T>(fn: (db: Executor) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in one read transaction: every query of `fn` sees the same snapshot of the database, whatever
   * commits meanwhile (an export reads a workspace page by page). Holds a connection until `fn` settles;
   * on a single-connection database (`:memory:`) it waits for the write queue like `read`.
   */
  snapshot<T>(fn: (db: Executor) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in one interactive write transaction (BEGIN IMMEDIATE), one at a time. Everything `fn` does
   * commits together or not at all. After SQLITE_BUSY the client reconnects (embedded client only) and `fn`
   * runs again from the start (up to `busyRetries` times), so `fn` must not have side effects outside the
   * transaction.
   */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`, which issues exactly one statement, in the write queue without an explicit transaction: one
   * statement commits or rolls back whole by itself, so it needs no BEGIN and no COMMIT, and it holds no
   * connection across awaits (while a transaction holds one, reads open or borrow another). SQLITE_BUSY is
   * retried as in `write`. For the audit sink's batched INSERT (http/audit.ts), a third of whose cost on the
   * embedded database was the transaction around it (bench/faces-read.ts); over HTTP it is one request
   * instead of a transaction's several.
   */
  writeStatement<T>(fn: (db: Executor) => Promise<T>): Promise<T>;
  /** Cheap round trip for /healthz; throws when the database cannot be reached. */
  ping(): Promise<void>;
  /**
   * Throws when the database cannot be written (a read-only file or replica, no connection): one tiny
   * write in a transaction that is rolled back, behind the write queue. Start-up and /healthz.
   */
  probeWrite(): Promise<void>;
  /** Waits for queued writes, then closes the client. */
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * Serialize writes behind one async mutex. Default: on for the embedded client (`file:`, where the BUSY
   * bug lives), off for remote ones. Keep it off in a Worker: a request that workerd cancels mid-write
   * would never release the queue, and every later write would wait forever.
   */
  serializeWrites?: boolean;
  /** Also queue reads behind writes: needed when the client has a single connection (`:memory:`). */
  serializeReads?: boolean;
  /** Times a write is retried after SQLITE_BUSY (each after a reconnect and an async back-off). Default 8. */
  busyRetries?: number;
  /** Told about every SQLITE_BUSY a write met (after the reconnect); for logs and tests. */
  onBusy?: (attempt: number, err: unknown) => void;
  /**
   * Per-connection settings (the embedded client's pragmas), run again after every reconnect: a reconnect
   * replaces the client's connections with fresh ones at SQLite's defaults.
   */
  configure?: (client: Client) => Promise<void>;
}

/** A FIFO async mutex: each task starts when the previous one settled. */
export class AsyncMutex {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    // Keep the chain alive whatever the task's outcome; callers see the real result.
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every task queued so far has settled. */
  idle(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}

/** True when `err` (or its cause chain) is SQLITE_BUSY / SQLITE_LOCKED. */
export function isBusyError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (typeof e === "object") {
      const o = e as {
        code?: unknown;
        extendedCode?: unknown;
        rawCode?: unknown;
        message?: unknown;
        cause?: unknown;
      };
      const codes = [o.code, o.extendedCode].filter((c): c is string => typeof c === "string");
      if (codes.some((c) => c.startsWith("SQLITE_BUSY") || c.startsWith("SQLITE_LOCKED"))) return true;
      if (o.rawCode === 5 || o.rawCode === 6) return true;
      if (typeof o.message === "string" && /database is (locked|busy)/i.test(o.message)) return true;
      e = o.cause;
    } else {
      break;
    }
  }
  return false;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds the `Database` seam over a client the caller created (Node: `@libsql/client`; Worker: `/http`). */
export function databaseFromClient(client: Client, options: DatabaseOptions = {}): Database {
  const db = drizzle(client);
  const writes = new AsyncMutex();
  const serializeWrites = options.serializeWrites ?? client.protocol === "file";
  const serializeReads = options.serializeReads ?? false;
  const busyRetries = options.busyRetries ?? 8;
  let closed = false;

  const inWriteQueue = <T>(task: () => Promise<T>): Promise<T> =>
    serializeWrites ? writes.run(task) : task();

  // DESIGN: after any BUSY the embedded connection may silently drop later writes; never reuse it. A remote
  // client (HTTP, WebSocket) holds no such connection: each transaction runs on its own server stream, and
  // the server replaces a connection a BUSY left unusable. Its reconnect() would close the one client every
  // request of a Worker isolate shares, failing their calls in flight, so a remote write only retries.
  const reconnectsAfterBusy = client.protocol === "file";
  const reconnect = async () => {
    if (!reconnectsAfterBusy) return;
    await client.reconnect();
    await options.configure?.(client);
  };

  /** `attempt` in the write queue, again after each SQLITE_BUSY (a reconnect and an async back-off). */
  const retryingBusy = <T>(attempt: () => Promise<T>): Promise<T> =>
    inWriteQueue(async () => {
      for (let tries = 0; ; tries++) {
        try {
          return await attempt();
        } catch (err) {
          if (!isBusyError(err)) throw err;
          await reconnect();
          options.onBusy?.(tries, err);
          if (tries >= busyRetries) {
            throw new DomainError(
              "unavailable",
              "The database is busy; retry the request in a moment.",
              {},
              {
                cause: err,
              },
            );
          }
          // Back off asynchronously: the embedded client's own busy wait blocks the event loop, so it is
          // kept short (client.ts) and the waiting happens here instead.
          await delay(Math.min(500, 25 * 2 ** tries));
        }
      }
    });

  const write = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => retryingBusy(() => db.transaction(fn));
  const writeStatement = <T>(fn: (ex: Executor) => Promise<T>): Promise<T> => retryingBusy(() => fn(db));

  const read = <T>(fn: (db: Executor) => Promise<T>): Promise<T> => {
    const run = async () => {
      try {
        return await fn(db);
      } catch (err) {
        // A reconnect after a writer's BUSY closes the connection this read was using: just read again.
        if (!closed && (err as { code?: unknown }).code === "CLIENT_CLOSED") return await fn(db);
        if (!isBusyError(err)) throw err;
        // Reconnect inside the write queue so no write transaction is holding a connection we close.
        if (serializeReads) await reconnect();
        else await inWriteQueue(reconnect);
        return await fn(db);
      }
    };
    return serializeReads ? inWriteQueue(run) : run();
  };

  const snapshot = <T>(fn: (db: Executor) => Promise<T>): Promise<T> => {
    const run = async () => {
      const tx = await client.transaction("read");
      try {
        // drizzle's own transactions are write transactions: this one runs drizzle over the libSQL
        // transaction, whose `execute` is all drizzle's queries call.
        return await fn(drizzle(tx as unknown as Client));
      } finally {
        // A read transaction has nothing to commit; ending it releases the connection and its snapshot.
        await tx.rollback().catch(() => undefined);
        tx.close();
      }
    };
    return serializeReads ? inWriteQueue(run) : run();
  };

  return {
    db,
    client,
    read,
    snapshot,
    write,
    writeStatement,
    async ping() {
      await read((d) => d.run("SELECT 1"));
    },
    probeWrite() {
      return inWriteQueue(async () => {
        let tx: Awaited<ReturnType<Client["transaction"]>> | undefined;
        try {
          // BEGIN IMMEDIATE alone succeeds on a read-only file: only a real write tells.
          tx = await client.transaction("write");
          await tx.execute("CREATE TABLE reqlix_write_probe (x)");
        } catch (err) {
          // Another writer holds the lock: the database is writable, just busy.
          if (isBusyError(err)) return await reconnect();
          throw err;
        } finally {
          if (tx) {
            await tx.rollback().catch(() => undefined);
            tx.close();
          }
        }
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await writes.idle();
      client.close();
    },
  };
}
