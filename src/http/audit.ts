/**
 * The audit trail of both faces (jsonrpc-api 4.5): one `audit_events` row per tools/call, resources/read
 * and prompts/get — who (user, token id), what (method, name, reference id), outcome, error code, request
 * id, duration. Ids, never argument values or tokens.
 *
 * Rows are written behind the response, group-committed: events queue up for at most `flushDelayMs` and one
 * flusher writes whatever has queued in a single INSERT (one statement, so no transaction around it:
 * `Database.writeStatement`). A read then costs no write transaction of its
 * own (each write transaction on the embedded database is serialized and costs a commit and a fresh
 * connection, measured at 2–3× a small read: bench/faces-read.ts), and under load many rows share one
 * commit. On Workers the route hands the flush to `waitUntil`; on Node `flush()` runs at shutdown and in
 * tests. A crash loses at most the rows of the last `flushDelayMs`, and only rows of reads and failed calls:
 * a successful write's row commits inside the write's own transaction instead (write-audit.ts).
 */

import type { AuthInfo } from "../core/auth-info.js";
import { type AuditEventInput, recordAudits } from "../db/audit.repo.js";
import type { Database } from "../db/client.js";
import type { OperationEvent } from "../protocol/operations.js";
import type { Logger } from "./context.js";

export interface AuditSink {
  /** Queues one row; resolves once its batch is written or given up on (for `waitUntil`). Never rejects. */
  record(event: AuditEventInput): Promise<void>;
  /** Resolves when every row queued so far is written (or given up on and logged). */
  flush(): Promise<void>;
}

export interface AuditSinkOptions {
  database: Database;
  logger?: Logger;
  /** Rows per INSERT (default 500). */
  batchSize?: number;
  /** Queue bound while the database is unreachable; the oldest rows beyond it are dropped and logged. */
  maxQueue?: number;
  /** How long a row may wait for others to share its commit (default 50 ms; 0 = next tick). */
  flushDelayMs?: number;
}

export function createAuditSink(options: AuditSinkOptions): AuditSink {
  const { database, logger } = options;
  const batchSize = options.batchSize ?? 500;
  const maxQueue = options.maxQueue ?? 10_000;
  const queue: AuditEventInput[] = [];
  /**
   * Settles when every row queued so far is written or given up on: one promise for all the rows that wait
   * together, not one per row (a read's row is kept in memory until its batch commits; bench/faces-read.ts).
   */
  let queued: { done: Promise<void>; settle: () => void } | undefined;
  let running: Promise<void> | undefined;

  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.splice(0, batchSize);
      // The last batch of what is queued now settles its rows' promise; rows queued meanwhile get a new one.
      const settles = queue.length === 0 ? queued : undefined;
      if (settles) queued = undefined;
      try {
        // One INSERT for the whole batch: atomic by itself, so no transaction around it (database.ts).
        await database.writeStatement((db) => recordAudits(db, batch));
      } catch (error) {
        logger?.log("error", "audit rows could not be written", {
          rows: batch.length,
          requestIds: batch.map((e) => e.requestId),
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      }
      settles?.settle();
    }
  };

  const flushDelayMs = options.flushDelayMs ?? 50;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;

  /** Resolves after the delay, or at once when flush() cuts it short. */
  const pause = () =>
    new Promise<void>((resolvePause) => {
      if (flushDelayMs <= 0) return resolvePause();
      wake = resolvePause;
      timer = setTimeout(resolvePause, flushDelayMs);
      // Never keep a Node process alive just to wait for more rows (shutdown calls flush()).
      (timer as { unref?: () => void }).unref?.();
    }).finally(() => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      wake = undefined;
    });

  const schedule = (): Promise<void> => {
    if (!running) {
      running = pause()
        .then(drain)
        .finally(() => {
          running = undefined;
          // A row queued between the last batch and here must not wait for the next request.
          if (queue.length > 0) void schedule();
        });
    }
    return running;
  };

  const flush = async (): Promise<void> => {
    while (running || queue.length > 0) {
      const current = running ?? schedule();
      wake?.();
      await current;
    }
  };

  return {
    record(event) {
      if (queue.length >= maxQueue) {
        // The dropped rows' promise is the one the remaining rows share: it settles with their batch.
        const dropped = queue.splice(0, queue.length - maxQueue + 1);
        logger?.log("error", "audit queue full; oldest rows dropped", { rows: dropped.length });
      }
      queue.push(event);
      if (!queued) {
        let settle = () => {};
        const done = new Promise<void>((resolve) => {
          settle = resolve;
        });
        queued = { done, settle };
      }
      void schedule();
      return queued.done;
    },
    flush,
  };
}

/** The row for one observed operation of an authenticated request. */
export function auditRow(
  event: Omit<OperationEvent, "referenceId" | "durationMs"> & {
    referenceId?: string | null | undefined;
    durationMs?: number | null | undefined;
  },
  who: { auth: AuthInfo; requestId: string; channel: "mcp" | "jsonrpc" | "web" },
): AuditEventInput {
  return {
    workspaceId: who.auth.workspaceId,
    userId: who.auth.userId,
    tokenId: who.auth.tokenId,
    channel: who.channel,
    method: event.method,
    target: event.target,
    referenceId: event.referenceId ?? null,
    outcome: event.outcome,
    errorCode: event.errorCode ?? null,
    requestId: who.requestId,
    durationMs: event.durationMs ?? null,
  };
}
