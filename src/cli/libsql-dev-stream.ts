/**
 * One Hrana stream of the local dev endpoint: one libsql connection (so an interactive transaction lives
 * across pipeline requests), the SQL texts stored on it, and the execution of execute / batch / sequence.
 *
 * Locking: every native call is synchronous on the event loop, and the other lock holders are streams of
 * this same process, so a blocking busy timeout could only ever wait for itself. Instead a statement that
 * meets SQLITE_BUSY is retried after an async sleep, and only where a repeat is exact: when the connection
 * was outside a transaction (a BEGIN, or an autocommit statement) or the statement is a COMMIT.
 */
import type Database from "libsql";
import {
  type BatchCond,
  type BatchResult,
  decodeValue,
  encodeValue,
  type HranaBatch,
  type HranaError,
  HranaProtocolError,
  type HranaStmt,
  type StmtResult,
  type StreamRequest,
  type StreamResponse,
} from "./libsql-dev-protocol.js";

type Connection = Database.Database;
type Prepared = Database.Statement<unknown[]>;
type Params = unknown[] | Record<string, unknown>;

export interface DevStreamOptions {
  /** A connection to the database file (new, or an idle one from the pool). */
  open(): Connection;
  /** Takes back a clean connection (outside a transaction) when the stream closes; may close it. */
  release(db: Connection): void;
  /** How long a BUSY statement is retried before its error is returned. */
  busyWaitMs: number;
}

/** A SQL failure reported to the client inside an HTTP 200 (Hrana `Error`). */
export class SqlFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

/** Hrana `Error` from anything thrown while running SQL: base SQLite code (as the node client reports it). */
export function toHranaError(error: unknown): HranaError {
  if (error instanceof SqlFailure || error instanceof HranaProtocolError) {
    return { message: error.message, code: error.code };
  }
  const extended = sqliteCode(error);
  if (extended) {
    const base = extended.split("_").slice(0, 2).join("_");
    return { message: (error as Error).message, code: base };
  }
  return { message: error instanceof Error ? error.message : String(error), code: "UNKNOWN" };
}

function isBusy(error: unknown): boolean {
  return sqliteCode(error)?.startsWith("SQLITE_BUSY") ?? false;
}

function isCommit(sql: string): boolean {
  return /^\s*(COMMIT|END)\b/i.test(sql);
}

/** Plain SELECTs change nothing; anything else that returns rows (INSERT … RETURNING) may. */
function isPlainQuery(sql: string): boolean {
  return /^\s*(SELECT|VALUES|EXPLAIN)\b/i.test(sql);
}

function bindParams(stmt: HranaStmt): Params {
  const hasNamed = (stmt.named_args?.length ?? 0) > 0;
  const hasPositional = (stmt.args?.length ?? 0) > 0;
  if (hasNamed && hasPositional) {
    throw new HranaProtocolError(
      "This statement has both positional (args) and named (named_args) arguments; the local endpoint binds one kind per statement.",
    );
  }
  if (!hasNamed) return (stmt.args ?? []).map(decodeValue);
  const named: Record<string, unknown> = {};
  for (const arg of stmt.named_args ?? []) {
    // libsql matches names without their sign; Hrana clients may send `:a`, `@a`, `$a` or `a`.
    const bare = /^[:@$]/.test(arg.name) ? arg.name.slice(1) : arg.name;
    named[bare] = decodeValue(arg.value);
  }
  return named;
}

let nextStreamId = 1;

export class DevStream {
  /** For logs only. */
  readonly id = nextStreamId++;
  readonly #options: DevStreamOptions;
  #db: Connection | undefined;
  /**
   * A statement failed with BUSY and was not retried to success: libsql leaves it "in progress", and every
   * later COMMIT on this connection would fail (libsql-client-ts#352). The connection is replaced as soon
   * as it is outside a transaction.
   */
  #stale = false;
  readonly #sqls = new Map<number, string>();
  #closed = false;

  constructor(options: DevStreamOptions) {
    this.#options = options;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get inTransaction(): boolean {
    return this.#db?.inTransaction ?? false;
  }

  async handle(request: StreamRequest): Promise<StreamResponse> {
    if (this.#closed) {
      throw new HranaProtocolError(
        "The stream is closed; open a new stream (send baton null) to run more requests.",
      );
    }
    switch (request.type) {
      case "close":
        this.close();
        return { type: "close" };
      case "execute":
        return { type: "execute", result: await this.#execute(request.stmt) };
      case "batch":
        return { type: "batch", result: await this.#batch(request.batch) };
      case "sequence":
        this.#sequence(this.#resolveSql(request.sql, request.sql_id));
        return { type: "sequence" };
      case "describe":
        throw new HranaProtocolError(
          "describe is not supported by the local libSQL dev endpoint; use execute instead.",
        );
      case "store_sql":
        if (this.#sqls.has(request.sql_id)) {
          throw new HranaProtocolError(
            `SQL text ${request.sql_id} is already stored on this stream; close_sql it first.`,
          );
        }
        this.#sqls.set(request.sql_id, request.sql);
        return { type: "store_sql" };
      case "close_sql":
        this.#sqls.delete(request.sql_id);
        return { type: "close_sql" };
      case "get_autocommit":
        return { type: "get_autocommit", is_autocommit: !this.inTransaction };
    }
  }

  /** Ends the stream: a clean connection goes back to the pool, any other is rolled back and closed. */
  close(): void {
    this.#closed = true;
    this.#sqls.clear();
    const db = this.#db;
    if (db?.open && !this.#stale && !db.inTransaction) {
      this.#db = undefined;
      this.#options.release(db);
      return;
    }
    this.#dropConnection();
  }

  #connection(): Connection {
    if (!this.#db) this.#db = this.#options.open();
    return this.#db;
  }

  #dropConnection(): void {
    const db = this.#db;
    this.#db = undefined;
    this.#stale = false;
    if (db?.open) {
      try {
        // Roll back explicitly: libsql keeps a closed connection (and its write lock) alive while any of
        // its statements are still referenced, until the garbage collector gets to them.
        if (db.inTransaction) db.exec("ROLLBACK");
        db.close();
      } catch {
        // already unusable: nothing else to release
      }
    }
  }

  #afterStatement(): void {
    if (this.#stale && this.#db && !this.#db.inTransaction) this.#dropConnection();
  }

  #resolveSql(sql: string | null | undefined, sqlId: number | null | undefined): string {
    const hasSql = sql !== undefined && sql !== null;
    const hasId = sqlId !== undefined && sqlId !== null;
    if (hasSql === hasId) {
      throw new HranaProtocolError("A statement needs exactly one of `sql` and `sql_id`.");
    }
    if (hasSql) return sql;
    const stored = this.#sqls.get(sqlId as number);
    if (stored === undefined) {
      throw new HranaProtocolError(`SQL text ${sqlId} is not stored on this stream; send store_sql first.`);
    }
    return stored;
  }

  async #execute(stmt: HranaStmt): Promise<StmtResult> {
    const sql = this.#resolveSql(stmt.sql, stmt.sql_id);
    const params = bindParams(stmt);
    const db = this.#connection();
    const retryable = !db.inTransaction || isCommit(sql);
    const deadline = Date.now() + this.#options.busyWaitMs;
    let prepared: Prepared | undefined;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          // The same statement object is retried: a successful run resets it, a new one would leave the
          // failed one in progress.
          prepared ??= db.prepare(sql) as Prepared;
          return this.#runOnce(db, prepared, sql, params, stmt.want_rows ?? true);
        } catch (error) {
          if (!isBusy(error)) throw error;
          const snapshot = sqliteCode(error) === "SQLITE_BUSY_SNAPSHOT";
          if (!retryable || snapshot || Date.now() >= deadline) {
            this.#stale = true;
            throw error;
          }
          await sleep(Math.min(2 ** attempt, 50));
        }
      }
    } finally {
      this.#afterStatement();
    }
  }

  #runOnce(db: Connection, prepared: Prepared, sql: string, params: Params, wantRows: boolean): StmtResult {
    prepared.safeIntegers(true);
    if (!prepared.reader) {
      let info: Database.RunResult;
      try {
        info = prepared.run(params);
      } catch (error) {
        if (sqliteCode(error) === "SQLITE_OK") {
          throw new SqlFailure(
            "The SQL text holds no statement (empty, or only comments); send one statement.",
            "SQL_NO_STATEMENT",
          );
        }
        throw error;
      }
      // libsql reports the rowid as a JS number, which rounds above 2^53: ask SQLite for it then.
      const rowid =
        typeof info.lastInsertRowid === "number" && !Number.isSafeInteger(info.lastInsertRowid)
          ? this.#changes(db).lastInsertRowid
          : String(info.lastInsertRowid);
      return { cols: [], rows: [], affected_row_count: info.changes, last_insert_rowid: rowid };
    }
    prepared.raw(true);
    const cols = prepared.columns().map((c) => ({ name: c.name, decltype: c.type }));
    const tracksChanges = !isPlainQuery(sql);
    const before = tracksChanges ? this.#changes(db) : undefined;
    const rows: StmtResult["rows"] = [];
    for (const row of prepared.iterate(params) as Iterable<unknown[]>) {
      if (wantRows) rows.push(row.map(encodeValue));
    }
    if (before === undefined) return { cols, rows, affected_row_count: 0, last_insert_rowid: null };
    const after = this.#changes(db);
    const wrote = after.total > before.total;
    return {
      cols,
      rows,
      affected_row_count: wrote ? after.changes : 0,
      last_insert_rowid: wrote ? after.lastInsertRowid : null,
    };
  }

  #changes(db: Connection): { total: bigint; changes: number; lastInsertRowid: string } {
    const row = db
      .prepare("SELECT total_changes(), changes(), last_insert_rowid()")
      .safeIntegers(true)
      .raw(true)
      .get() as [bigint, bigint, bigint];
    return { total: row[0], changes: Number(row[1]), lastInsertRowid: row[2].toString() };
  }

  async #batch(batch: HranaBatch): Promise<BatchResult> {
    batch.steps.forEach((step, index) => {
      if (step.condition) checkCondSteps(step.condition, index);
    });
    const result: BatchResult = { step_results: [], step_errors: [] };
    for (const step of batch.steps) {
      if (step.condition && !this.#evaluate(step.condition, result)) {
        result.step_results.push(null);
        result.step_errors.push(null);
        continue;
      }
      try {
        result.step_results.push(await this.#execute(step.stmt));
        result.step_errors.push(null);
      } catch (error) {
        result.step_results.push(null);
        result.step_errors.push(toHranaError(error));
      }
    }
    return result;
  }

  #evaluate(cond: BatchCond, result: BatchResult): boolean {
    switch (cond.type) {
      case "ok":
        return result.step_results[cond.step] != null;
      case "error":
        return result.step_errors[cond.step] != null;
      case "not":
        return !this.#evaluate(cond.cond, result);
      case "and":
        return cond.conds.every((c) => this.#evaluate(c, result));
      case "or":
        return cond.conds.some((c) => this.#evaluate(c, result));
      case "is_autocommit":
        return !this.inTransaction;
    }
  }

  #sequence(sql: string): void {
    try {
      this.#connection().exec(sql);
    } catch (error) {
      // Not retried: the statements before the busy one have already run.
      if (isBusy(error)) this.#stale = true;
      throw error;
    } finally {
      this.#afterStatement();
    }
  }
}

/** A condition may only look back: step i can depend on steps 0…i-1. */
function checkCondSteps(cond: BatchCond, index: number): void {
  switch (cond.type) {
    case "ok":
    case "error":
      if (cond.step >= index) {
        throw new HranaProtocolError(
          `Batch step ${index} has a condition on step ${cond.step}; a condition may only refer to earlier steps.`,
        );
      }
      return;
    case "not":
      checkCondSteps(cond.cond, index);
      return;
    case "and":
    case "or":
      for (const c of cond.conds) checkCondSteps(c, index);
      return;
    case "is_autocommit":
      return;
  }
}
