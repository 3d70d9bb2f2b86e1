/**
 * Auth matrix over the real app and a real libSQL database: missing, malformed, unknown, expired and
 * revoked tokens get 401 with `WWW-Authenticate: Bearer realm="reqlix"` on every protected path; roles
 * gate the admin API; last_used_at is kept, throttled; tokens never reach the logs or the database.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LAST_USED_THROTTLE_MS } from "../../src/http/auth.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/** The 401 challenge of the MCP faces: Bearer, and where the OAuth metadata is (RFC 9728). */
const MCP_CHALLENGE =
  /^Bearer realm="reqlix", resource_metadata="https?:\/\/[^/"]+\/\.well-known\/oauth-protected-resource\/mcp"$/;

let t: TestApp;
let now: Date;

beforeEach(async () => {
  now = new Date();
  t = await createTestApp({ clock: () => now });
});
afterEach(async () => {
  await t.close();
});

interface ErrorJson {
  jsonrpc?: string;
  error: { code: number | string; message: string };
}
interface TokenList {
  tokens: { id: number; name: string; username: string; workspace: string; last_used_at: string | null }[];
}

const PING = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

function call(path: string, token: string | undefined, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (token !== undefined) headers.set("Authorization", token.startsWith("rqx_") ? `Bearer ${token}` : token);
  if (path.endsWith("/mcp")) {
    headers.set("Content-Type", "application/json");
    headers.set("Accept", "application/json, text/event-stream");
    return t.app.request(path, { method: "POST", body: PING, ...init, headers });
  }
  return t.app.request(path, { ...init, headers });
}

const PROTECTED = ["/mcp", "/api/v1/mcp", "/api/v1/admin/tokens"];
const BAD: [string, string | undefined, RegExp][] = [
  ["missing header", undefined, /Missing Authorization header/],
  ["empty bearer", "Bearer ", /Bearer <token>|Missing/],
  ["basic scheme", "Basic YWRtaW46YWRtaW4=", /Bearer <token>/],
  ["malformed token", "Bearer rqx_short", /Malformed token/],
  ["wrong prefix", `Bearer abc_${"a".repeat(40)}`, /Malformed token/],
  ["unknown token", `Bearer rqx_${"A1".repeat(21)}x`, /Unknown token/],
];

describe("401 for every bad credential on every protected path", () => {
  for (const path of PROTECTED) {
    for (const [label, header, reason] of BAD) {
      it(`${path}: ${label}`, async () => {
        const res = await call(path, header);
        expect(res.status).toBe(401);
        // The MCP faces also point at their OAuth protected-resource metadata (RFC 9728).
        if (path.includes("/mcp")) expect(res.headers.get("www-authenticate")).toMatch(MCP_CHALLENGE);
        else expect(res.headers.get("www-authenticate")).toBe('Bearer realm="reqlix"');
        expect(res.headers.get("x-request-id")).toMatch(/\S{8,}/);
        const body = (await res.json()) as ErrorJson;
        if (path.endsWith("/mcp")) {
          expect(body.jsonrpc).toBe("2.0");
          expect(body.error.code).toBe(-32001);
          expect(body.error.message).toMatch(reason);
        } else {
          expect(body.error.code).toBe("unauthorized");
          expect(body.error.message).toMatch(reason);
        }
      });
    }
  }
});

describe("valid, expired and revoked tokens", () => {
  it("a valid token passes on both MCP faces and the admin API", async () => {
    const rpc = await call("/api/v1/mcp", t.ownerToken);
    expect(rpc.status).toBe(200);
    expect(await rpc.json()).toMatchObject({ jsonrpc: "2.0", id: 1, result: {} });
    const mcp = await call("/mcp", t.ownerToken);
    expect(mcp.status).not.toBe(401);
    expect(mcp.status).toBeLessThan(500);
    const admin = await call("/api/v1/admin/tokens", t.ownerToken);
    expect(admin.status).toBe(200);
  });

  it("an expired token gets 401 saying it expired", async () => {
    const res = await call("/api/v1/admin/tokens", t.ownerToken, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "admin", name: "short-lived", expires_in_days: 1 }),
    });
    expect(res.status).toBe(201);
    const { token, expires_at } = (await res.json()) as { token: string; expires_at: string };
    expect(Date.parse(expires_at) - now.getTime()).toBe(86_400_000);
    expect((await call("/api/v1/mcp", token)).status).toBe(200);
    now = new Date(Date.parse(expires_at) + 1);
    const expired = await call("/api/v1/mcp", token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toMatch(MCP_CHALLENGE);
    expect(((await expired.json()) as ErrorJson).error.message).toMatch(/expired/);
    // The owner's token has no expiry and still works at the same moment.
    expect((await call("/api/v1/mcp", t.ownerToken)).status).toBe(200);
  });

  it("a revoked token gets 401 from the next request on", async () => {
    const token = await t.createToken("carol", "editor");
    expect((await call("/api/v1/mcp", token)).status).toBe(200);
    const list = (await (await call("/api/v1/admin/tokens", t.ownerToken)).json()) as TokenList;
    const id = list.tokens.find((x) => x.username === "carol")?.id;
    expect(id).toBeTypeOf("number");
    const del = await call(`/api/v1/admin/tokens/${id}`, t.ownerToken, { method: "DELETE" });
    expect(del.status).toBe(200);
    const revoked = await call("/api/v1/mcp", token);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as ErrorJson).error.message).toMatch(/revoked/);
  });

  it("a token acts only in its own workspace", async () => {
    const token = await t.createToken("dora", "admin", "team-b");
    const res = await call("/api/v1/admin/tokens", token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tokens: { workspace: string }[] };
    expect(body.tokens.length).toBeGreaterThan(0);
    expect(body.tokens.every((x) => x.workspace === "team-b")).toBe(true);
  });
});

describe("roles", () => {
  it("viewers and editors are refused by the admin API with 403; admins pass", async () => {
    for (const role of ["viewer", "editor"] as const) {
      const token = await t.createToken(`user-${role}`, role);
      const res = await call("/api/v1/admin/tokens", token);
      expect(res.status).toBe(403);
      expect(((await res.json()) as ErrorJson).error.message).toMatch(/admin role/);
    }
    const admin = await t.createToken("user-admin", "admin");
    expect((await call("/api/v1/admin/tokens", admin)).status).toBe(200);
  });

  it("a token's role ceiling caps the member's role", async () => {
    const res = await call("/api/v1/admin/tokens", t.ownerToken, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "admin", name: "read-only", role: "viewer" }),
    });
    expect(res.status).toBe(201);
    const { token } = (await res.json()) as { token: string };
    // Capped to viewer, even the owner's token may read but not administer.
    expect((await call("/api/v1/mcp", token)).status).toBe(200);
    expect((await call("/api/v1/admin/tokens", token)).status).toBe(403);
    const member = await t.createToken("erin", "admin");
    const capped = await call("/api/v1/admin/tokens", member, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "erin", name: "capped", role: "editor" }),
    });
    const cappedToken = ((await capped.json()) as { token: string }).token;
    expect((await call("/api/v1/admin/tokens", cappedToken)).status).toBe(403);
  });
});

describe("last_used_at", () => {
  async function lastUsed(name: string): Promise<string | null> {
    const res = await call("/api/v1/admin/tokens", t.ownerToken);
    const body = (await res.json()) as { tokens: { name: string; last_used_at: string | null }[] };
    return body.tokens.find((x) => x.name === name)?.last_used_at ?? null;
  }

  it("is written on use, at most once per throttle window", async () => {
    const token = await t.createToken("frank", "viewer");
    expect(await lastUsed("test viewer")).toBeNull();
    const first = now;
    await call("/api/v1/mcp", token);
    expect(await lastUsed("test viewer")).toBe(first.toISOString());
    now = new Date(first.getTime() + LAST_USED_THROTTLE_MS - 1);
    await call("/api/v1/mcp", token);
    expect(await lastUsed("test viewer")).toBe(first.toISOString());
    now = new Date(first.getTime() + LAST_USED_THROTTLE_MS);
    await call("/api/v1/mcp", token);
    expect(await lastUsed("test viewer")).toBe(now.toISOString());
  });
});

describe("secrets", () => {
  it("no token value reaches the logs or any table", async () => {
    const token = await t.createToken("gina", "editor");
    await call("/api/v1/mcp", token);
    await call("/api/v1/mcp", `Bearer ${token}x`); // unknown, logged as unauthorized
    await call("/api/v1/admin/tokens", t.ownerToken, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Debug": `Bearer ${token}` },
      body: JSON.stringify({ username: "gina", name: "second" }),
    });
    expect(t.logs.length).toBeGreaterThan(3);
    for (const secret of [token, t.ownerToken, token.slice(4)]) {
      expect(t.logs.join("\n")).not.toContain(secret);
    }
    const tables = (
      await t.database.client.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' AND name NOT LIKE 'sqlite_%'",
      )
    ).rows.map((r) => String(r.name));
    expect(tables).toContain("tokens");
    for (const table of tables) {
      const rows = await t.database.client.execute(`SELECT * FROM "${table}"`);
      const dump = JSON.stringify(rows.rows);
      expect(dump).not.toContain(token.slice(4));
      expect(dump).not.toContain(t.ownerToken.slice(4));
    }
  });
});

describe("middleware runs once per request", () => {
  it("one unauthorized log line and one access line for one refused request on each protected path", async () => {
    for (const path of PROTECTED) {
      const before = t.logs.length;
      const res = await call(path, undefined);
      expect(res.status).toBe(401);
      const lines = t.logs.slice(before).map((l) => JSON.parse(l) as { msg: string; requestId: string });
      expect(lines.filter((l) => l.msg === "unauthorized")).toHaveLength(1);
      expect(lines.filter((l) => l.msg === "request")).toHaveLength(1);
      expect(new Set(lines.map((l) => l.requestId))).toEqual(new Set([res.headers.get("x-request-id")]));
    }
  });
});
