/**
 * `npm run admin -- <command>` on a real database file: once as a real process (the npm script), then the
 * command matrix through runAdmin (the same code the script runs) — JSON out, exit codes 0/1/2, errors
 * naming the flags, and tokens that the real app accepts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { runAdmin } from "../../src/cli/admin-commands.js";
import { isWellFormedToken } from "../../src/core/tokens.js";
import { openDatabase } from "../../src/db/client.js";
import { createJsonLogger } from "../../src/http/logger.js";

const ROOT = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "reqlix-cli-"));
  dirs.push(dir);
  return `file:${join(dir, "admin.db")}`;
}

async function admin(db: string, ...args: string[]) {
  let out = "";
  let err = "";
  const code = await runAdmin([...args, "--db", db], {
    env: {},
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON of many shapes; the assertions check it
  return { code, json: out.trim().startsWith("{") ? (JSON.parse(out) as any) : undefined, out, err };
}

describe("npm run admin (real process)", () => {
  it("bootstraps and creates a token, printing JSON; bad flags exit 2 naming them", () => {
    const db = tempDb();
    const run = (...args: string[]) =>
      spawnSync("npm", ["run", "--silent", "admin", "--", ...args], {
        cwd: ROOT,
        env: { ...process.env, REQLIX_DB_URL: db },
        encoding: "utf8",
      });
    const boot = run("bootstrap");
    expect(boot.status).toBe(0);
    const booted = JSON.parse(boot.stdout) as { created: boolean; token: string };
    expect(booted.created).toBe(true);
    expect(isWellFormedToken(booted.token)).toBe(true);
    const bad = run("token-create", "--username", "admin", "--name", "ci", "--expires-in-days", "0");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--expires-in-days: must be at least 1 day/);
  }, 60_000);
});

describe("admin commands", () => {
  it("migrate, bootstrap once, workspaces, members, tokens, revoke", async () => {
    const db = tempDb();
    expect((await admin(db, "migrate")).json).toEqual({ migrated: true });
    const boot = await admin(db, "bootstrap");
    expect(boot.json).toMatchObject({ created: true, workspace: "default", username: "admin" });
    const again = await admin(db, "bootstrap");
    expect(again.json).toMatchObject({ created: false });
    expect(again.out).not.toMatch(/rqx_/);

    const ws = await admin(db, "workspace-create", "--slug", "team-a", "--name", "Team A");
    expect(ws.code).toBe(0);
    expect(ws.json).toMatchObject({ slug: "team-a", name: "Team A" });
    expect((await admin(db, "workspace-create", "--slug", "team-a", "--name", "Again")).code).toBe(1);
    const list = await admin(db, "workspace-list");
    expect(list.json.workspaces.map((w: { slug: string }) => w.slug)).toEqual(["default", "team-a"]);

    const member = await admin(
      db,
      "member-add",
      "--username",
      "alice",
      "--role",
      "editor",
      "--workspace",
      "team-a",
    );
    expect(member.json).toEqual({
      workspace: "team-a",
      username: "alice",
      role: "editor",
      user_created: true,
    });
    const token = await admin(
      db,
      "token-create",
      "--username",
      "alice",
      "--name",
      "laptop",
      "--workspace",
      "team-a",
      "--expires-in-days",
      "7",
    );
    expect(token.code).toBe(0);
    expect(isWellFormedToken(token.json.token)).toBe(true);
    expect(Date.parse(token.json.expires_at)).toBeGreaterThan(Date.now() + 6 * 86_400_000);

    // The CLI's token is accepted by the real app on the same database.
    const database = await openDatabase({ url: db });
    const app = createApp({ database, logger: createJsonLogger({ write: () => {} }), version: "t" });
    const ping = () =>
      app.request("/api/v1/mcp", {
        method: "POST",
        headers: { Authorization: `Bearer ${token.json.token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    expect((await ping()).status).toBe(200);

    const listed = await admin(db, "token-list", "--workspace", "team-a");
    expect(listed.json.tokens).toHaveLength(1);
    expect(listed.out).not.toContain(token.json.token);
    // Paged like the API: --limit N a page, next_cursor as --cursor for the next.
    const second = await admin(
      db,
      "token-create",
      "--username",
      "alice",
      "--name",
      "ci",
      "--workspace",
      "team-a",
    );
    const first = await admin(db, "token-list", "--workspace", "team-a", "--limit", "1");
    expect(first.json.tokens.map((x: { id: number }) => x.id)).toEqual([second.json.id]);
    const rest = await admin(
      db,
      "token-list",
      "--workspace",
      "team-a",
      "--limit",
      "1",
      "--cursor",
      first.json.next_cursor,
    );
    expect(rest.json.tokens.map((x: { id: number }) => x.id)).toEqual([token.json.id]);
    expect(rest.json.next_cursor).toBeUndefined();
    const badLimit = await admin(db, "token-list", "--limit", "0");
    expect(badLimit.code).toBe(2);
    expect(badLimit.err).toMatch(/--limit: must be a whole number from 1 to 500/);
    await admin(db, "token-revoke", "--id", String(second.json.id));
    const revoked = await admin(db, "token-revoke", "--id", String(token.json.id));
    expect(revoked.code).toBe(0);
    expect(typeof revoked.json.revoked_at).toBe("string");
    expect((await ping()).status).toBe(401);
    await database.close();
  });

  it("errors: usage 2, bad input 2 naming flags, unknown user/workspace 1", async () => {
    const db = tempDb();
    await admin(db, "bootstrap");
    const unknown = await admin(db, "frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown command "frobnicate"/);
    const flag = await admin(db, "token-list", "--colour", "red");
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/--colour/);
    const bad = await admin(db, "member-add", "--username", "bad name", "--role", "boss");
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--username: must be/);
    expect(bad.err).toMatch(/--role: must be one of viewer, editor, admin/);
    const missing = await admin(db, "token-create");
    expect(missing.err).toMatch(/--username/);
    expect(missing.err).toMatch(/--name/);
    const ghost = await admin(db, "token-create", "--username", "ghost", "--name", "x");
    expect(ghost.code).toBe(1);
    expect(ghost.err).toMatch(/User "ghost" does not exist/);
    const noWs = await admin(
      db,
      "member-add",
      "--username",
      "bob",
      "--role",
      "viewer",
      "--workspace",
      "nope",
    );
    expect(noWs.code).toBe(1);
    expect(noWs.err).toMatch(/Workspace "nope" does not exist/);
    const badId = await admin(db, "token-revoke", "--id", "x");
    expect(badId.code).toBe(2);
    expect(badId.err).toMatch(/--id/);
  });

  it("owner-grant and owner-revoke change the flag (audited); the last owner is never revoked", async () => {
    const db = tempDb();
    await admin(db, "bootstrap");
    expect((await admin(db, "owner-list")).json.owners.map((o: { username: string }) => o.username)).toEqual([
      "admin",
    ]);
    const last = await admin(db, "owner-revoke", "--username", "admin");
    expect(last.code).toBe(1);
    expect(last.err).toMatch(/"admin" is the last instance owner: grant ownership to another user first/);

    await admin(db, "member-add", "--username", "olga", "--role", "admin");
    const olgaToken = (await admin(db, "token-create", "--username", "olga", "--name", "cli")).json.token;
    const database = await openDatabase({ url: db });
    const app = createApp({ database, logger: createJsonLogger({ write: () => {} }), version: "t" });
    const createWs = (slug: string) =>
      app.request("/api/v1/admin/workspaces", {
        method: "POST",
        headers: { Authorization: `Bearer ${olgaToken}`, "Content-Type": "application/json" },
        body: JSON.stringify({ slug, name: slug }),
      });
    expect((await createWs("before-grant")).status).toBe(403);

    const grant = await admin(db, "owner-grant", "--username", "olga");
    expect(grant.json).toEqual({ username: "olga", is_owner: true, changed: true });
    expect((await admin(db, "owner-grant", "--username", "olga")).json.changed).toBe(false);
    // Her CLI-minted token now carries the owner's powers, from the next request on.
    expect((await createWs("after-grant")).status).toBe(201);

    const revoke = await admin(db, "owner-revoke", "--username", "admin");
    expect(revoke.json).toEqual({ username: "admin", is_owner: false, changed: true });
    expect((await admin(db, "owner-list")).json.owners.map((o: { username: string }) => o.username)).toEqual([
      "olga",
    ]);
    expect((await admin(db, "owner-revoke", "--username", "olga")).code).toBe(1);
    const events = await database.client.execute(
      "SELECT method, target, channel FROM audit_events WHERE method LIKE 'owner.%' ORDER BY id",
    );
    expect(events.rows.map((r) => [r.method, r.target, r.channel])).toEqual([
      ["owner.grant", "olga", "cli"],
      ["owner.revoke", "admin", "cli"],
    ]);
    await database.close();

    expect((await admin(db, "owner-grant")).err).toMatch(/--username: /);
    expect((await admin(db, "owner-grant", "--username", "ghost")).err).toMatch(
      /User "ghost" does not exist/,
    );
    expect((await admin(db, "help")).out).toMatch(/owner-grant --username U/);
  });
});
