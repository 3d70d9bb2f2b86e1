/**
 * Audit trail (DESIGN `audit_events`; jsonrpc spec: every operation logged with user attribution).
 * Never holds token values or secrets: callers pass ids and names only.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Executor } from "./database.js";
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
 * Inserts audit rows in one statement, in order: the rows travel as one JSON array parameter through
 * `json_each`, so the SQL text is the same for any number of rows. Each statement is parsed again by the
 * client (neither libSQL client caches prepared statements), and this keeps that to one short parse per
 * batch instead of a query built by drizzle and a prepare per row (issue 16: a third of a read's cost on
 * the faces went to its audit row).
 */
export async function recordAudits(ex: Executor, events: readonly AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const rows = JSON.stringify(
    events.map((e) => [
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
    ]),
  );
  // The created_at default is the schema's (ISO-8601 UTC with milliseconds), from the database's clock.
  await ex.run(sql`INSERT INTO audit_events (workspace_id, user_id, token_id, channel, method, target,
      reference_id, outcome, error_code, request_id, duration_ms, created_at)
    SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
      value ->> 7, value ->> 8, value ->> 9, value ->> 10,
      coalesce(value ->> 11, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    FROM json_each(${rows}) ORDER BY key`);
}

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
