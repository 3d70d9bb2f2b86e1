/**
 * The admin API over the real app and database: workspaces, members, tokens; who may do what; bad input
 * answered 400 naming each bad field; unknown user or workspace 404; not allowed 403.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isWellFormedToken } from "../../src/core/tokens.js";
import { listAuditEvents } from "../../src/db/audit.repo.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

interface ErrorBody {
  error: { code: string; message: string; errors?: { field: string; message: string }[] };
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function api(method: string, path: string, token: string, body?: unknown) {
  const init: RequestInit = { method, headers: { Authorization: `Bearer ${token}` } };
  if (body !== undefined) {
    init.headers = { ...init.headers, "Content-Type": "application/json" };
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await t.app.request(`/api/v1/admin${path}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: bodies of many shapes; the assertions check them
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const fieldsOf = (body: ErrorBody) => (body.error.errors ?? []).map((e) => e.field).sort();

describe("workspaces", () => {
  it("the owner creates a workspace (201) with seeded types; a second with the same slug is 409", async () => {
    const created = await api("POST", "/workspaces", t.ownerToken, { slug: "team-a", name: "Team A" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: "team-a", name: "Team A" });
    const types = await t.database.client.execute({
      sql: "SELECT name FROM requirement_types WHERE workspace_id = ? ORDER BY name",
      args: [created.body.id],
    });
    expect(types.rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(["Functional", "Interface", "Non-Functional"]),
    );
    const rel = await t.database.client.execute({
      sql: "SELECT name FROM relationship_types WHERE workspace_id = ? ORDER BY name",
      args: [created.body.id],
    });
    expect(rel.rows.map((r) => r.name)).toEqual([
      "blocks",
      "conflicts_with",
      "depends_on",
      "derives_from",
      "relates_to",
    ]);
    const again = await api("POST", "/workspaces", t.ownerToken, { slug: "team-a", name: "Other" });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already exists/);
  });

  it("a workspace admin who is not the owner gets 403", async () => {
    const admin = await t.createToken("wsadmin", "admin");
    const res = await api("POST", "/workspaces", admin, { slug: "team-x", name: "X" });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/instance owner/);
  });

  it("bad input is 400 naming each bad field", async () => {
    const bad = await api("POST", "/workspaces", t.ownerToken, { slug: "Bad Slug!", name: "", color: "red" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_input");
    expect(fieldsOf(bad.body)).toEqual(["color", "name", "slug"]);
    expect(bad.body.error.message).toMatch(/slug: must be/);
    const missing = await api("POST", "/workspaces", t.ownerToken, {});
    expect(fieldsOf(missing.body)).toEqual(["name", "slug"]);
    const notJson = await api("POST", "/workspaces", t.ownerToken, "{slug:");
    expect(notJson.status).toBe(400);
    expect(fieldsOf(notJson.body)).toEqual(["body"]);
    const notObject = await api("POST", "/workspaces", t.ownerToken, "[1,2]");
    expect(notObject.status).toBe(400);
    expect(fieldsOf(notObject.body)).toEqual(["body"]);
  });
});

describe("members", () => {
  it("adds a user (created if new) to the token's workspace by default, and changes the role", async () => {
    const first = await api("POST", "/members", t.ownerToken, { username: "alice", role: "editor" });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      workspace: "default",
      username: "alice",
      role: "editor",
      user_created: true,
    });
    const again = await api("POST", "/members", t.ownerToken, { username: "alice", role: "viewer" });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ role: "viewer", user_created: false });
  });

  it("404 for an unknown workspace; 400 naming bad fields", async () => {
    const unknown = await api("POST", "/members", t.ownerToken, {
      username: "bob",
      role: "viewer",
      workspace: "nope",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/Workspace "nope" does not exist/);
    const bad = await api("POST", "/members", t.ownerToken, {
      username: "has space",
      role: "owner",
      workspace: 7,
    });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(["role", "username", "workspace"]);
    expect(bad.body.error.message).toMatch(/role: must be one of viewer, editor, admin/);
  });

  it("a workspace admin manages their own workspace only; editors none", async () => {
    const bAdmin = await t.createToken("badmin", "admin", "team-b");
    const own = await api("POST", "/members", bAdmin, { username: "bea", role: "editor" });
    expect(own.status).toBe(201);
    expect(own.body.workspace).toBe("team-b");
    const other = await api("POST", "/members", bAdmin, {
      username: "bea",
      role: "editor",
      workspace: "default",
    });
    expect(other.status).toBe(403);
    const editor = await t.createToken("ed", "editor");
    expect((await api("POST", "/members", editor, { username: "zed", role: "viewer" })).status).toBe(403);
  });
});

describe("tokens", () => {
  it("creates a token (201, shown once, not cached) that authenticates; lists it without its value", async () => {
    await api("POST", "/members", t.ownerToken, { username: "dave", role: "editor" });
    const res = await api("POST", "/tokens", t.ownerToken, {
      username: "dave",
      name: "laptop",
      expires_in_days: 30,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(isWellFormedToken(res.body.token)).toBe(true);
    expect(res.body.token.length).toBe(4 + 43);
    expect(res.body).toMatchObject({ name: "laptop", username: "dave", workspace: "default" });
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const ping = await t.app.request("/api/v1/mcp", {
      method: "POST",
      headers: { Authorization: `Bearer ${res.body.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
    });
    expect(ping.status).toBe(200);
    const list = await api("GET", "/tokens", t.ownerToken);
    expect(list.status).toBe(200);
    const row = list.body.tokens.find((x: { id: number }) => x.id === res.body.id);
    expect(Object.keys(row).sort()).toEqual(
      [
        "created_at",
        "created_by",
        "expires_at",
        "id",
        "last_used_at",
        "name",
        "revoked_at",
        "role_ceiling",
        "username",
        "workspace",
      ].sort(),
    );
    expect(row.last_used_at).not.toBeNull();
    // Minted through the API by the owner's token: the listing says who.
    expect(row.created_by).toBe("admin");
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);
  });

  it("404 for an unknown user or a user who is not a member; 400 naming bad fields", async () => {
    const unknown = await api("POST", "/tokens", t.ownerToken, { username: "ghost", name: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/User "ghost" does not exist/);
    await api("POST", "/members", t.ownerToken, {
      username: "outsider",
      role: "viewer",
      workspace: "team-a",
    });
    const notMember = await api("POST", "/tokens", t.ownerToken, { username: "outsider", name: "x" });
    expect(notMember.status).toBe(404);
    expect(notMember.body.error.message).toMatch(/not a member of workspace "default"/);
    const bad = await api("POST", "/tokens", t.ownerToken, {
      username: "dave",
      name: " ",
      expires_in_days: 0.5,
    });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(["expires_in_days", "name"]);
    const tooLong = await api("POST", "/tokens", t.ownerToken, {
      username: "dave",
      name: "x",
      expires_in_days: 99999,
    });
    expect(fieldsOf(tooLong.body)).toEqual(["expires_in_days"]);
    const badQuery = await api("GET", "/tokens?workspace=BAD!&x=1", t.ownerToken);
    expect(badQuery.status).toBe(400);
    expect(fieldsOf(badQuery.body)).toEqual(["workspace", "x"]);
  });

  it("lists per workspace: own for admins, any for the owner, 403 for another's", async () => {
    const cAdmin = await t.createToken("cadmin", "admin", "team-c");
    const own = await api("GET", "/tokens", cAdmin);
    expect(own.body.tokens.map((x: { workspace: string }) => x.workspace)).toEqual(["team-c"]);
    expect((await api("GET", "/tokens?workspace=default", cAdmin)).status).toBe(403);
    const byOwner = await api("GET", "/tokens?workspace=team-c", t.ownerToken);
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.tokens.map((x: { username: string }) => x.username)).toEqual(["cadmin"]);
    // Minted by the admin CLI (the test helper): no creating user.
    expect(byOwner.body.tokens[0].created_by).toBeNull();
    expect((await api("GET", "/tokens?workspace=none", t.ownerToken)).status).toBe(404);
  });

  it("pages the list newest first: every token once, next_cursor until the last page; bad paging is 400", async () => {
    // team-p holds only this test's tokens, so the pages are exactly them.
    await api("POST", "/workspaces", t.ownerToken, { slug: "team-p", name: "Paging" });
    await api("POST", "/members", t.ownerToken, { username: "pager", role: "viewer", workspace: "team-p" });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api("POST", "/tokens", t.ownerToken, {
        username: "pager",
        name: `p-${i}`,
        workspace: "team-p",
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const seen: number[] = [];
    const cursors: string[] = [];
    let query = "/tokens?workspace=team-p&limit=2";
    for (;;) {
      const page = await api("GET", query, t.ownerToken);
      expect(page.status).toBe(200);
      expect(page.body.tokens.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.tokens.map((x: { id: number }) => x.id));
      if (!page.body.next_cursor) break;
      cursors.push(page.body.next_cursor);
      query = `/tokens?workspace=team-p&limit=2&cursor=${encodeURIComponent(page.body.next_cursor)}`;
    }
    expect(seen).toEqual([...ids].reverse());
    expect(cursors).toHaveLength(2);
    // Without limit: a page of 100, so all five and no cursor.
    const whole = await api("GET", "/tokens?workspace=team-p", t.ownerToken);
    expect(whole.body.tokens.map((x: { id: number }) => x.id)).toEqual([...ids].reverse());
    expect(whole.body.next_cursor).toBeUndefined();
    // A cursor of team-p's list is no position in default's.
    const foreign = await api(
      "GET",
      `/tokens?cursor=${encodeURIComponent(cursors[0] as string)}`,
      t.ownerToken,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toMatch(/cursor does not belong to this list/);
    for (const limit of ["0", "501", "2.5", "many"]) {
      const bad = await api("GET", `/tokens?workspace=team-p&limit=${limit}`, t.ownerToken);
      expect(bad.status).toBe(400);
      expect(fieldsOf(bad.body)).toEqual(["limit"]);
      expect(bad.body.error.errors[0].message).toMatch(/whole number from 1 to 500/);
    }
  });

  it("revokes: 200 with revoked_at; idempotent; another workspace's token is 404; bad id is 400", async () => {
    const token = await t.createToken("erin", "editor");
    const list = await api("GET", "/tokens", t.ownerToken);
    const id = list.body.tokens.find((x: { username: string }) => x.username === "erin").id;
    const dAdmin = await t.createToken("dadmin", "admin", "team-d");
    expect((await api("DELETE", `/tokens/${id}`, dAdmin)).status).toBe(404);
    const del = await api("DELETE", `/tokens/${id}`, t.ownerToken);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id, username: "erin" });
    expect(typeof del.body.revoked_at).toBe("string");
    const again = await api("DELETE", `/tokens/${id}`, t.ownerToken);
    expect(again.body.revoked_at).toBe(del.body.revoked_at);
    expect((await api("GET", "/tokens", token)).status).toBe(401);
    const bad = await api("DELETE", "/tokens/abc", t.ownerToken);
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(["id"]);
    expect((await api("DELETE", "/tokens/999999", t.ownerToken)).status).toBe(404);
  });

  it("every admin write leaves an audit row with who and what, never a token", async () => {
    const events = await t.database.read((db) => listAuditEvents(db, { limit: 500 }));
    const methods = new Set(events.map((e) => e.method));
    for (const m of ["workspaces.create", "members.set", "tokens.create", "tokens.revoke"])
      expect(methods).toContain(m);
    const byApi = events.filter((e) => e.channel === "admin");
    expect(byApi.length).toBeGreaterThan(0);
    expect(byApi.every((e) => e.user_id !== null && e.token_id !== null && e.request_id !== null)).toBe(true);
    expect(JSON.stringify(events)).not.toMatch(/rqx_/);
  });
});
