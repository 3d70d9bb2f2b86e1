/**
 * Audit trail (DESIGN `audit_events`; jsonrpc spec: every operation logged with user attribution).
 * Never holds token values or secrets: callers pass ids and names only.
 */
import { and, desc, eq } from "drizzle-orm";
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
  await ex.insert(auditEvents).values({
    workspaceId: event.workspaceId,
    userId: event.userId,
    tokenId: event.tokenId,
    channel: event.channel,
    method: event.method,
    target: event.target ?? null,
    referenceId: event.referenceId ?? null,
    outcome: event.outcome,
    errorCode: event.errorCode ?? null,
    requestId: event.requestId ?? null,
    durationMs:
      event.durationMs === undefined || event.durationMs === null ? null : Math.round(event.durationMs),
    ...(event.createdAt ? { createdAt: event.createdAt } : {}),
  });
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
