/**
 * What the upstream sign-in tests (OpenID Connect: oidc-browser.test.ts; GitHub: github-browser.test.ts)
 * share: a member made the way people become members (an invitation accepted, which records the email),
 * an invitation link, the row counts that must not move when a sign-in is refused, and every row of the
 * database as text (to show a secret was never stored).
 */
import { acceptInvitationOp, inviteOp } from "../../src/db/account-ops.js";
import type { Database } from "../../src/db/client.js";

/** An invitation of the CLI for `email`, as the path of its link (`/invite?code=…`). */
export async function inviteLink(
  server: { database: Database },
  email: string,
  role: "viewer" | "editor" | "admin",
): Promise<string> {
  const invite = await inviteOp(
    server.database,
    { actor: { kind: "cli" }, now: new Date() },
    { email, role },
  );
  return invite.path;
}

/** A member who accepted an invitation with a password (so the invitation recorded their email). */
export async function invitedMember(
  server: { database: Database },
  member: { email: string; username: string; role: "viewer" | "editor" | "admin" },
): Promise<void> {
  const path = await inviteLink(server, member.email, member.role);
  await acceptInvitationOp(server.database, {
    secret: new URL(path, "http://invitation.invalid").searchParams.get("code") as string,
    username: member.username,
    password: `${member.username}'s own password`,
    now: new Date(),
  });
}

/** Users, memberships, tokens and web sessions: a refused sign-in changes none of them. */
export async function accountCounts(server: { database: Database }): Promise<Record<string, unknown>> {
  const counts: Record<string, unknown> = {};
  for (const table of ["users", "memberships", "tokens", "web_sessions", "session_tokens"]) {
    const result = await server.database.client.execute(`SELECT count(*) AS n FROM ${table}`);
    counts[table] = result.rows[0]?.n;
  }
  return counts;
}

/** Every value of every row of every table, as one string. */
export async function everyStoredValue(server: { database: Database }): Promise<string> {
  const tables = await server.database.client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  );
  const parts: string[] = [];
  for (const row of tables.rows) {
    const all = await server.database.client.execute(`SELECT * FROM "${String(row.name)}"`);
    for (const r of all.rows)
      parts.push(JSON.stringify(Object.values(r), (_k, v) => (typeof v === "bigint" ? String(v) : v)));
  }
  return parts.join("\n");
}
