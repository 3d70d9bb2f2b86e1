/**
 * Audit trail (DESIGN `audit_events`; jsonrpc spec: every operation logged with user attribution).
 * Never holds token values or secrets: callers pass ids and names only.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
import { jsonRowsSelect } from "./json-rows.js";
import { auditEvents } from "./schema.js";

export interface AuditEventInput {
  workspaceId: number | null;
  userId: number | null;
  tokenId: number | null;
  /** `mcp`, `jsonrpc`, `admin`, `cli`. */
  channel: string;
  /** JSON-RPC method (`tools/call`) or admin operation (`tokens.create`). */
  method: string;
  /** Tool name, resource URI or prompt name. */
  target?: string | null;
  referenceId?: string | null;
  outcome: "ok" | "error";
  errorCode?: string | null;
  requestId?: string | null;
  durationMs?: number | null;
  /** ISO time; defaults to the database's clock. */
  createdAt?: string;
}

export interface AuditEvent {
  id: number;
  workspace_id: number | null;
  user_id: number | null;
  token_id: number | null;
  channel: string;
  method: string;
  target: string | null;
  reference_id: string | null;
  outcome: "ok" | "error";
  error_code: string | null;
  request_id: string | null;
  duration_ms: number | null;
  created_at: string;
}

/** Inserts one audit row. Call it inside the operation's write transaction, or alone through `write`. */
export async function recordAudit(ex: Executor, event: AuditEventInput): Promise<void> {
  await recordAudits(ex, [event]);
}

/**
 * Inserts audit rows in one statement, in order: the rows travel as one JSON parameter through
 * `json_each` (json-rows.ts), so a batch is one short parse instead of a query built by drizzle and a
 * prepare per row. The columns every row of the batch shares (a read burst: the same caller, method, tool,
 * outcome) are bound once, and only those that vary (request id, duration, ...) are read out of each row's
 * JSON: each `value ->> k` parses the row again, and twelve of them were ~5 of a row's ~6.5 µs
 * (bench/faces-read.ts, issue 16: the audit row is most of what a read costs the faces beyond the read).
 */
export async function recordAudits(ex: Executor, events: readonly AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => [
    e.workspaceId,
    e.userId,
    e.tokenId,
    e.channel,
    e.method,
    e.target ?? null,
    e.referenceId ?? null,
    e.outcome,
    e.errorCode ?? null,
    e.requestId ?? null,
    e.durationMs === undefined || e.durationMs === null ? null : Math.round(e.durationMs),
    e.createdAt ?? null,
  ]);
  await ex.run(sql`INSERT INTO audit_events (workspace_id, user_id, token_id, channel, method, target,
      reference_id, outcome, error_code, request_id, duration_ms, created_at) ${jsonRowsSelect(rows, CREATED_AT)}`);
}

/** created_at, when a row names none: the schema's default (ISO-8601 UTC with milliseconds), the database's clock. */
const CREATED_AT = [...Array(11).fill(undefined), sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`];

/** Newest first. */
export async function listAuditEvents(
  ex: Executor,
  filter: { workspaceId?: number; requestId?: string; limit?: number } = {},
): Promise<AuditEvent[]> {
  const conditions = [
    filter.workspaceId === undefined ? undefined : eq(auditEvents.workspaceId, filter.workspaceId),
    filter.requestId === undefined ? undefined : eq(auditEvents.requestId, filter.requestId),
  ].filter((c) => c !== undefined);
  const rows = await ex
    .select()
    .from(auditEvents)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(auditEvents.id))
    .limit(filter.limit ?? 100);
  return rows.map((r) => ({
    id: r.id,
    workspace_id: r.workspaceId,
    user_id: r.userId,
    token_id: r.tokenId,
    channel: r.channel,
    method: r.method,
    target: r.target,
    reference_id: r.referenceId,
    outcome: r.outcome,
    error_code: r.errorCode,
    request_id: r.requestId,
    duration_ms: r.durationMs,
    created_at: r.createdAt,
  }));
}
