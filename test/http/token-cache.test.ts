/**
 * The token cache of the Node server (issue 16, src/http/token-cache.ts) over the real app and database:
 * a revocation or a role change made through the admin API takes effect from the very next request; a
 * change the instance cannot see (the admin CLI, another process) is seen once the entry's TTL is over;
 * expiry is exact; a lookup that raced an invalidation is not kept.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { revokeTokenOp } from "../../src/db/admin-ops.js";
import type { TokenPrincipal } from "../../src/db/tokens.repo.js";
import { TokenCache } from "../../src/http/token-cache.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cache: TokenCache;
let now: number;

beforeEach(async () => {
  now = Date.parse("2026-03-01T12:00:00Z");
  cache = new TokenCache({ ttlMs: 2_000 });
  t = await createTestApp({ clock: () => new Date(now), tokenCache: cache });
});
afterEach(async () => t.close());

function rpc(token: string, name: string, args: Record<string, unknown>) {
  return t.app.request("/api/v1/mcp", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
}

function admin(method: string, path: string, body?: unknown) {
  return t.app.request(`/api/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${t.ownerToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function mint(username: string, role: "viewer" | "editor", extra: Record<string, unknown> = {}) {
  expect((await admin("POST", "/members", { username, role })).status).toBe(201);
  const res = await admin("POST", "/tokens", { username, name: "laptop", ...extra });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: number; token: string };
}

describe("the token cache on one instance", () => {
  it("serves repeated requests from the cache, and a revocation through the admin API refuses the next one", async () => {
    const { id, token } = await mint("rita", "editor");
    expect((await rpc(token, "list_epics", {})).status).toBe(200);
    expect(cache.size).toBeGreaterThan(0);
    expect((await rpc(token, "list_epics", {})).status).toBe(200);

    expect((await admin("DELETE", `/tokens/${id}`)).status).toBe(200);
    const refused = await rpc(token, "list_epics", {});
    expect(refused.status).toBe(401);
    expect(await refused.text()).toMatch(/revoked/);
  });

  it("a role change through the admin API applies from the next request on", async () => {
    const { token } = await mint("edgar", "editor");
    const write = await rpc(token, "create_epic", { title: "Before the change" });
    expect(((await write.json()) as { result?: unknown }).result).toBeDefined();

    expect((await admin("POST", "/members", { username: "edgar", role: "viewer" })).status).toBe(201);
    const refused = await rpc(token, "create_epic", { title: "After the change" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32003);
  });

  it("a change the instance cannot see (the admin CLI on the same file) is seen once the TTL is over", async () => {
    const { id, token } = await mint("carl", "editor");
    expect((await rpc(token, "list_epics", {})).status).toBe(200);
    // What `npm run admin -- token-revoke` does from another process: straight to the database.
    await revokeTokenOp(t.database, { actor: { kind: "cli" }, now: new Date(now) }, id);
    now += cache.ttlMs - 1;
    expect((await rpc(token, "list_epics", {})).status).toBe(200); // the documented staleness bound
    now += 1;
    expect((await rpc(token, "list_epics", {})).status).toBe(401);
  });

  it("refuses a cached token at its expiry, to the millisecond", async () => {
    const { token } = await mint("erin", "viewer", { expires_in_days: 1 });
    const expiresAt = now + 86_400_000;
    now = expiresAt - 1_000;
    expect((await rpc(token, "list_epics", {})).status).toBe(200);
    now = expiresAt - 1;
    expect((await rpc(token, "list_epics", {})).status).toBe(200);
    now = expiresAt;
    const refused = await rpc(token, "list_epics", {});
    expect(refused.status).toBe(401);
    expect(await refused.text()).toMatch(/expired/);
  });
});

describe("the token cache and the remembered tool selection on every face", () => {
  const faces = ["/api/v1/mcp", "/mcp"] as const;

  function call(face: (typeof faces)[number], token: string, method: string, params: unknown) {
    return t.app.request(face, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
  }

  async function listed(face: (typeof faces)[number], token: string): Promise<string[]> {
    const res = await call(face, token, "tools/list", {});
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: { tools: { name: string }[] } }).result.tools.map((x) => x.name);
  }

  it("a revocation through the admin API refuses the very next request on /mcp and /api/v1/mcp", async () => {
    const { id, token } = await mint("vera", "viewer");
    for (const face of faces) {
      for (let i = 0; i < 2; i++) {
        expect((await call(face, token, "tools/call", { name: "list_epics", arguments: {} })).status).toBe(
          200,
        );
      }
    }
    expect((await admin("DELETE", `/tokens/${id}`)).status).toBe(200);
    for (const face of faces) {
      const refused = await call(face, token, "tools/call", { name: "list_epics", arguments: {} });
      expect(refused.status).toBe(401);
      expect(await refused.text()).toMatch(/revoked/);
    }
  });

  it("a role change lists the new role's tools from the next tools/list on, on both faces", async () => {
    const { token } = await mint("vic", "viewer");
    for (const face of faces) expect(await listed(face, token)).not.toContain("create_epic");
    expect((await admin("POST", "/members", { username: "vic", role: "editor" })).status).toBe(201);
    for (const face of faces) expect(await listed(face, token)).toContain("create_epic");
    expect((await admin("POST", "/members", { username: "vic", role: "viewer" })).status).toBe(201);
    for (const face of faces) expect(await listed(face, token)).not.toContain("create_epic");
  });
});

describe("TokenCache", () => {
  const principal = { tokenId: 1, lastUsedAt: null } as TokenPrincipal;

  it("does not keep a lookup that began before an invalidation", () => {
    const c = new TokenCache();
    const before = c.generation;
    c.invalidate(); // e.g. a revocation committed while the lookup was reading the old row
    c.set("rqx_a", principal, 0, before);
    expect(c.get("rqx_a", 1)).toBeUndefined();
    c.set("rqx_a", principal, 0, c.generation);
    expect(c.get("rqx_a", 1)).toBe(principal);
  });

  it("forgets entries after their TTL and the oldest beyond its size, and records last use", () => {
    const c = new TokenCache({ ttlMs: 10, maxEntries: 2 });
    c.set("rqx_a", principal, 0, c.generation);
    c.set("rqx_b", principal, 0, c.generation);
    c.set("rqx_c", principal, 0, c.generation);
    expect(c.get("rqx_a", 1)).toBeUndefined();
    expect(c.get("rqx_b", 9)).toBe(principal);
    expect(c.get("rqx_b", 10)).toBeUndefined();
    c.used("rqx_c", "2026-03-01T12:00:00.000Z");
    expect(c.get("rqx_c", 5)?.lastUsedAt).toBe("2026-03-01T12:00:00.000Z");
  });
});
