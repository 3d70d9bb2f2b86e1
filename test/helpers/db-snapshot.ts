/**
 * What a hostile caller must never change: every row of another workspace, and every shared table.
 * Read straight from the libSQL client so the check depends on no repository code.
 */
import type { Client } from "@libsql/client";

export type Snapshot = Record<string, unknown[]>;

/** Tables that are not data of a workspace and legitimately change on any request. */
const SKIP = /^(sqlite_|__drizzle|_litestream|libsql_)/;

async function tables(client: Client): Promise<{ name: string; columns: string[]; virtual: boolean }[]> {
  const rs = await client.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name");
  const all = rs.rows.map((r) => ({ name: String(r.name), sql: String(r.sql ?? "") }));
  const virtual = all.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
  // FTS5 shadow tables (`x_data`, `x_idx`, `x_docsize`, `x_config`, `x_content`) change with any write to x.
  const shadow = (name: string) => virtual.some((v) => name !== v && name.startsWith(`${v}_`));
  const out: { name: string; columns: string[]; virtual: boolean }[] = [];
  for (const t of all) {
    if (SKIP.test(t.name) || shadow(t.name)) continue;
    const info = await client.execute(`PRAGMA table_info("${t.name}")`);
    out.push({
      name: t.name,
      columns: info.rows.map((r) => String(r.name)),
      virtual: virtual.includes(t.name),
    });
  }
  return out;
}

/**
 * Every row that belongs to `workspaceId` (tables with a `workspace_id` column, the FTS index included),
 * plus every row of the shared tables (no `workspace_id` column) listed in `shared`, or all of them.
 */
export async function workspaceSnapshot(
  client: Client,
  workspaceId: number,
  shared: string[] | "all" = [],
): Promise<Snapshot> {
  const snapshot: Snapshot = {};
  for (const t of await tables(client)) {
    if (t.columns.includes("workspace_id")) {
      // Tokens of the watched workspace change `last_used_at` only when used; the attacker never uses them.
      const order = t.virtual ? "ORDER BY rowid" : `ORDER BY ${t.columns.includes("id") ? "id" : "rowid"}`;
      const rs = await client.execute({
        sql: `SELECT * FROM "${t.name}" WHERE workspace_id = ? ${order}`,
        args: [workspaceId],
      });
      snapshot[t.name] = rs.rows.map((r) => ({ ...r }));
    } else if (shared === "all" || shared.includes(t.name)) {
      const rs = await client.execute(`SELECT * FROM "${t.name}" ORDER BY rowid`);
      snapshot[t.name] = rs.rows.map((r) => ({ ...r }));
    }
  }
  return snapshot;
}

export async function integrityCheck(client: Client): Promise<string> {
  const rs = await client.execute("PRAGMA integrity_check");
  return rs.rows.map((r) => String(Object.values(r)[0])).join("\n");
}

/** Names of the tables a snapshot covers, for an assertion that it is not empty. */
export function coveredTables(snapshot: Snapshot): string[] {
  return Object.keys(snapshot).sort();
}

/**
 * Waits until no more audit rows arrive: the audit sink writes behind the response (group commit, tens of
 * ms), so a snapshot taken right after a request could miss that request's row.
 */
export async function settleAudit(client: Client, quietMs = 200, timeoutMs = 10_000): Promise<void> {
  const count = async () =>
    Number((await client.execute("SELECT COUNT(*) AS n FROM audit_events")).rows[0]?.n ?? 0);
  const deadline = Date.now() + timeoutMs;
  let last = await count();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = await count();
    if (now === last) return;
    last = now;
  }
  throw new Error(`audit rows kept arriving for ${timeoutMs} ms`);
}
