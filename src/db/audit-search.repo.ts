/**
 * The audit trail of one workspace, newest first, filtered by who (username), what (tool, resource or
 * prompt: the target), which entity (reference id) and when (an ISO time range), a page at a time (keyset
 * on the row id). For admins (list_audit_events, the web app's audit log).
 */
import { and, desc, eq, gte, lt, lte, type SQL } from "drizzle-orm";
import type { AuditRow } from "../core/audit-event.js";
import type { Executor } from "./database.js";
import { auditEvents, users } from "./schema.js";

export interface AuditFilter {
  username?: string;
  target?: string;
  referenceId?: string;
  /** ISO times, inclusive. */
  since?: string;
  until?: string;
}

export async function searchAuditEvents(
  ex: Executor,
  workspaceId: number,
  filter: AuditFilter,
  limit: number,
  beforeId?: number,
): Promise<{ items: AuditRow[]; more: boolean }> {
  const conditions: (SQL | undefined)[] = [
    eq(auditEvents.workspaceId, workspaceId),
    filter.username === undefined ? undefined : eq(users.username, filter.username),
    filter.target === undefined ? undefined : eq(auditEvents.target, filter.target),
    filter.referenceId === undefined ? undefined : eq(auditEvents.referenceId, filter.referenceId),
    filter.since === undefined ? undefined : gte(auditEvents.createdAt, filter.since),
    filter.until === undefined ? undefined : lte(auditEvents.createdAt, filter.until),
    beforeId === undefined ? undefined : lt(auditEvents.id, beforeId),
  ];
  const rows = await ex
    .select({
      id: auditEvents.id,
      created_at: auditEvents.createdAt,
      username: users.username,
      token_id: auditEvents.tokenId,
      channel: auditEvents.channel,
      method: auditEvents.method,
      target: auditEvents.target,
      entity: auditEvents.referenceId,
      outcome: auditEvents.outcome,
      error_code: auditEvents.errorCode,
      request_id: auditEvents.requestId,
      duration_ms: auditEvents.durationMs,
    })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.userId))
    .where(and(...conditions))
    .orderBy(desc(auditEvents.id))
    .limit(limit + 1);
  return { items: rows.slice(0, limit), more: rows.length > limit };
}
