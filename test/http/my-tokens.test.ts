/**
 * A member's own tokens (issue 13: create_my_token, list_my_tokens, revoke_my_token) over a real HTTP
 * server with Node's token cache on: who may mint what (never above the caller's role, never owner powers
 * from a token without them), another user's token is not found, the secret is never listed, audited or
 * logged, and a revocation is refused on the very next request on both MCP faces.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertToken } from "../../src/db/tokens.repo.js";
import { getUserByUsername } from "../../src/db/users.repo.js";
import { TokenCache } from "../../src/http/token-cache.js";
import { type HostedServer, MCP_ACCEPT, parseMcpBody, startHosted } from "../helpers/hosted.js";
import { rpcHttp } from "../helpers/rpc-http.js";

let server: HostedServer;
let cache: TokenCache;

beforeAll(async () => {
  // A TTL far beyond the test: only an invalidation can make the cache forget a token.
  cache = new TokenCache({ ttlMs: 600_000 });
  server = await startHosted({ deps: { tokenCache: cache } });
});
afterAll(async () => server?.close());

async function call(token: string, name: string, args: Record<string, unknown>) {
  const reply = await rpcHttp(server.url, token, "tools/call", { name, arguments: args });
  return reply;
}

async function ok(token: string, name: string, args: Record<string, unknown>) {
  const reply = await call(token, name, args);
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.result, reply.text).toBeDefined();
  return reply.body.result.structuredContent as Record<string, unknown>;
}

async function mcpCall(token: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: MCP_ACCEPT, authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const text = await res.text();
  return {
    status: res.status,
    messages: res.status === 200 ? parseMcpBody(res.headers.get("content-type"), text) : [],
  };
}

describe("my tokens", () => {
  it("a viewer mints, lists and revokes their own tokens; never one above their role", async () => {
    const viewer = await server.createToken("vito", "viewer");
    const created = await ok(viewer, "create_my_token", { name: "laptop", expires_in_days: 30 });
    expect(created.token).toMatch(/^rqx_[A-Za-z0-9]{32,}$/);
    expect(created.role_ceiling).toBeNull();
    expect(Date.parse(created.expires_at as string) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    // The new token works, as the viewer it is.
    const minted = created.token as string;
    await ok(minted, "list_epics", {});
    const write = await call(minted, "create_epic", { title: "not allowed" });
    expect(write.body.error.code).toBe(-32003);

    const above = await call(viewer, "create_my_token", { name: "sneaky", role: "editor" });
    expect(above.status).toBe(403);
    expect(above.body.error.message).toContain("cannot act above your own role, viewer");
    const tooLong = await call(viewer, "create_my_token", { name: "forever", expires_in_days: 366 });
    expect(tooLong.body.error.code).toBe(-32602);

    const listed = await ok(viewer, "list_my_tokens", {});
    const tokens = listed.tokens as Record<string, unknown>[];
    expect(tokens.map((t) => t.name)).toEqual(["laptop", "test viewer"]);
    expect(tokens.map((t) => t.current)).toEqual([false, true]);
    expect(JSON.stringify(listed)).not.toContain(minted);
    expect(Object.keys(tokens[0] as object).sort()).toEqual([
      "created_at",
      "created_by",
      "current",
      "expires_at",
      "id",
      "last_used_at",
      "name",
      "revoked_at",
      "role_ceiling",
    ]);
    expect(tokens[0]?.created_by).toBe("vito");

    const revoked = await ok(viewer, "revoke_my_token", { token_id: created.id });
    expect(revoked.revoked_at).not.toBeNull();
    expect((await call(minted, "list_epics", {})).status).toBe(401);
  });

  it("another user's token, even in the same workspace, is not found, and stays valid", async () => {
    const alice = await server.createToken("alice", "admin");
    const bob = await server.createToken("bob", "editor");
    const bobs = await ok(bob, "create_my_token", { name: "bob's ci" });
    const refused = await call(alice, "revoke_my_token", { token_id: bobs.id });
    expect(refused.body.error.code).toBe(-32002);
    expect(refused.body.error.message).not.toContain("bob");
    // Same answer as an id nobody has: no oracle.
    const unknown = await call(alice, "revoke_my_token", { token_id: 999_999 });
    expect(unknown.body.error.message.replace("999999", "N")).toBe(
      refused.body.error.message.replace(String(bobs.id), "N"),
    );
    await ok(bobs.token as string, "list_epics", {});
    const alices = (await ok(alice, "list_my_tokens", {})).tokens as { id: number }[];
    expect(alices.map((t) => t.id)).not.toContain(bobs.id);
  });

  it("a token inherits the caller's ceiling, so a capped token never mints a stronger one", async () => {
    await server.createToken("cap", "admin");
    const capped = await ok(await server.createToken("cap", "admin"), "create_my_token", {
      name: "read only",
      role: "viewer",
    });
    const child = await ok(capped.token as string, "create_my_token", { name: "child" });
    expect(child.role_ceiling).toBe("viewer");
    const write = await call(child.token as string, "create_epic", { title: "no" });
    expect(write.body.error.code).toBe(-32003);
  });

  it("a minted token never outlives the token that minted it", async () => {
    const shortLived = await ok(await server.createToken("cap", "editor"), "create_my_token", {
      name: "two days",
      expires_in_days: 2,
    });
    expect(typeof shortLived.expires_at).toBe("string");
    // Without expires_in_days the child expires with its parent, not never.
    const child = await ok(shortLived.token as string, "create_my_token", { name: "child" });
    expect(child.expires_at).toBe(shortLived.expires_at);
    // Longer than the parent: refused, with the way out; nothing is minted.
    const before = await ok(shortLived.token as string, "list_my_tokens", {});
    const longer = await call(shortLived.token as string, "create_my_token", {
      name: "forever",
      expires_in_days: 30,
    });
    expect(longer.status).toBe(403);
    expect(longer.body.error.message).toContain("cannot outlive the token of this call");
    expect(longer.body.error.message).toContain("expires_in_days of at most 1");
    expect(await ok(shortLived.token as string, "list_my_tokens", {})).toEqual(before);
    // Within the parent's life: fine.
    const shorter = await ok(shortLived.token as string, "create_my_token", {
      name: "one day",
      expires_in_days: 1,
    });
    expect(Date.parse(shorter.expires_at as string)).toBeLessThanOrEqual(
      Date.parse(shortLived.expires_at as string),
    );
  });

  it("owner powers: kept for the owner's own mint, never created from a token without them", async () => {
    const own = await ok(server.ownerToken, "create_my_token", { name: "owner laptop" });
    const ws = await fetch(`${server.url}/api/v1/admin/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${own.token}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: "made-by-mint", name: "x" }),
    });
    expect(ws.status).toBe(201);
    // A token of the owner minted by somebody else (before admin-ops refused it) has no owner powers ...
    const admin = await server.database.read((db) => getUserByUsername(db, "admin"));
    const alice = await server.database.read((db) => getUserByUsername(db, "alice"));
    const legacy = await server.database.write((tx) =>
      insertToken(tx, {
        userId: admin.id,
        workspaceId: server.workspaceId,
        name: "legacy",
        expiresAt: null,
        createdByUserId: alice.id,
      }),
    );
    // ... and cannot mint one that has them; a capped one it may.
    const refused = await call(legacy.token, "create_my_token", { name: "escalate" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("does not carry owner rights");
    const capped = await ok(legacy.token, "create_my_token", { name: "capped", role: "editor" });
    const denied = await fetch(`${server.url}/api/v1/admin/workspaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${capped.token}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: "made-by-capped", name: "x" }),
    });
    expect(denied.status).toBe(403);
  });

  it("a revocation is refused on the very next request on /mcp and /api/v1/mcp, the cache on", async () => {
    const erin = await server.createToken("erin", "editor");
    for (const face of ["jsonrpc", "mcp"] as const) {
      const spare = await ok(erin, "create_my_token", { name: `spare ${face}` });
      const token = spare.token as string;
      await ok(token, "list_epics", {});
      const before = cache.size;
      await ok(token, "list_epics", {}); // served from the cache
      expect(cache.size).toBe(before);
      if (face === "jsonrpc") await ok(token, "revoke_my_token", { token_id: spare.id });
      else {
        const answer = await mcpCall(token, "revoke_my_token", { token_id: spare.id });
        expect(JSON.stringify(answer.messages)).toContain("revoked_at");
      }
      const refused = await call(token, "list_epics", {});
      expect(refused.status, face).toBe(401);
      expect(refused.text).toMatch(/revoked/);
      expect((await mcpCall(token, "list_epics", {})).status, face).toBe(401);
      await ok(erin, "list_epics", {}); // the caller's own token is untouched
    }
  });

  it("the secret is stored only as a hash and reaches neither the audit trail nor the log", async () => {
    const dora = await server.createToken("dora", "viewer");
    const created = await ok(dora, "create_my_token", { name: "audited" });
    const secret = created.token as string;
    await ok(secret, "list_epics", {});
    const tables = await server.database.client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'",
    );
    for (const row of tables.rows) {
      const rs = await server.database.client.execute(`SELECT * FROM "${String(row.name)}"`);
      expect(JSON.stringify(rs.rows), String(row.name)).not.toContain(secret.slice(4));
    }
    expect(server.logs.join("\n")).not.toContain(secret.slice(4));
    const audit = await server.database.client.execute(
      "SELECT target, token_id FROM audit_events WHERE target = 'create_my_token' ORDER BY id DESC LIMIT 1",
    );
    expect(audit.rows[0]?.target).toBe("create_my_token");
  });
});
