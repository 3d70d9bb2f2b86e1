/**
 * Issue item 7: the audit row of a write commits in the write's own transaction. A crash used to lose the
 * rows still waiting in the batched queue (up to its 50 ms), so an acknowledged write could have no row.
 *
 * Handlers need not know: the database a tool handler receives writes the operation's row (outcome ok) at
 * the end of its first `write(fn)` transaction, so the row and the write commit or roll back together. A
 * write that fails rolls back, row included, and the failure is audited through the queue like any read;
 * the observer skips operations whose row already committed (`Operation.recorded`), so every call has
 * exactly one row.
 */
import { type AuditEventInput, recordAudit } from "../db/audit.repo.js";
import type { Database, Executor, Tx } from "../db/database.js";
import { elapsedMs, type Operation, referenceOf } from "../protocol/operations.js";

/**
 * `database` with a `write` that also inserts `op`'s audit row (built by `row` from the write's result)
 * inside the transaction. Only the first committed write of the operation carries the row. A class, not an
 * object of closures: every tool call builds one, and most only read.
 */
export function auditedDatabase(
  database: Database,
  op: Operation,
  row: (event: Pick<AuditEventInput, "referenceId" | "durationMs">) => AuditEventInput,
): Database {
  return new AuditedDatabase(database, op, row);
}

class AuditedDatabase implements Database {
  readonly db: Database["db"];
  readonly client: Database["client"];

  constructor(
    private readonly inner: Database,
    private readonly op: Operation,
    private readonly row: (event: Pick<AuditEventInput, "referenceId" | "durationMs">) => AuditEventInput,
  ) {
    this.db = inner.db;
    this.client = inner.client;
  }

  read<T>(fn: (db: Executor) => Promise<T>): Promise<T> {
    return this.inner.read(fn);
  }

  snapshot<T>(fn: (db: Executor) => Promise<T>): Promise<T> {
    return this.inner.snapshot(fn);
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  probeWrite(): Promise<void> {
    return this.inner.probeWrite();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** A handler's single statement is still a write of the operation: its row commits with it, in a transaction. */
  writeStatement<T>(fn: (ex: Executor) => Promise<T>): Promise<T> {
    return this.write(fn);
  }

  async write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const { inner, op } = this;
    if (op.recorded) return inner.write(fn);
    const value = await inner.write(async (tx) => {
      const result = await fn(tx);
      await recordAudit(
        tx,
        this.row({ referenceId: referenceOf(op.args, result, op.uri) ?? null, durationMs: elapsedMs(op) }),
      );
      return result;
    });
    op.recorded = true;
    return value;
  }
}
