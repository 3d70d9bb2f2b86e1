/**
 * One row of the audit log as `list_audit_events` returns it: the repository reads it and the web app's
 * audit page renders it, both from this one definition.
 */
export interface AuditRow {
  id: number;
  created_at: string;
  username: string | null;
  token_id: number | null;
  channel: string;
  method: string;
  target: string | null;
  /** The reference id the call named (not necessarily an entity of this workspace: an id that was not found). */
  entity: string | null;
  outcome: string;
  error_code: string | null;
  request_id: string | null;
  duration_ms: number | null;
}
