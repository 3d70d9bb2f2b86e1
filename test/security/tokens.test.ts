/**
 * Personal access tokens, black-box over real HTTP: never in clear in the database file (main file, WAL and
 * shared memory, byte for byte) nor in the captured logs, whatever a client does with them; expired and
 * revoked tokens are refused on both MCP faces and the admin API from the next request on.
 *
 * Tenant isolation over the whole registry is test/http/faces/tenants.test.ts (generated from the
 * registry, both faces); the fuzz suite (test/fuzz) adds hostile ids of another workspace over HTTP.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostedServer, MCP_ACCEPT, parseMcpBody, startHosted } from "../helpers/hosted.js";
import { rpcHttp, toolHttp } from "../helpers/rpc-http.js";

/** The 401 challenge of the MCP faces: Bearer, and where the OAuth metadata is (RFC 9728). */
const MCP_CHALLENGE =
  /^Bearer realm="reqlix", resource_metadata="https?:\/\/[^/"]+\/\.well-known\/oauth-protected-resource\/mcp"$/;

let hosted: HostedServer;
let now = Date.parse("2026-03-01T12:00:00Z");
const DAY = 86_400_000;

beforeAll(async () => {
  hosted = await startHosted({ deps: { clock: () => new Date(now) } });
}, 60_000);

afterAll(async () => {
  await hosted?.close();
});

async function addMember(username: string): Promise<void> {
  const res = await fetch(`${hosted.url}/api/v1/admin/members`, {
    method: "POST",
    headers: { authorization: `Bearer ${hosted.ownerToken}`, "content-type": "application/json" },
    body: JSON.stringify({ username, role: "editor" }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function adminToken(
  username: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: number; token: string }> {
  const res = await fetch(`${hosted.url}/api/v1/admin/tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${hosted.ownerToken}`, "content-type": "application/json" },
    body: JSON.stringify({ username, name: `${username} laptop`, ...extra }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: number; token: string };
}

async function mcpStatus(token: string): Promise<{ status: number; auth: string | null; text: string }> {
  const res = await fetch(`${hosted.url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: MCP_ACCEPT },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  return { status: res.status, auth: res.headers.get("www-authenticate"), text: await res.text() };
}

/** The three answers a refused token must get: /mcp, /api/v1/mcp (-32001) and the admin API, all 401. */
async function expectRefused(token: string, reason: RegExp): Promise<void> {
  const viaMcp = await mcpStatus(token);
  expect(viaMcp.status).toBe(401);
  expect(viaMcp.auth).toMatch(MCP_CHALLENGE);
  expect(viaMcp.text).toMatch(reason);
  expect(viaMcp.text).not.toContain(token);
  const viaRpc = await rpcHttp(hosted.url, token, "tools/list");
  expect(viaRpc.status).toBe(401);
  expect(viaRpc.body.error.code).toBe(-32001);
  expect(viaRpc.text).toMatch(reason);
  const viaAdmin = await fetch(`${hosted.url}/api/v1/admin/tokens`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(viaAdmin.status).toBe(401);
}

describe("expired and revoked tokens", () => {
  it("a token that expires works until then and is refused after, on every protected face", async () => {
    await addMember("erin");
    const { token } = await adminToken("erin", { expires_in_days: 1 });
    expect((await mcpStatus(token)).status).toBe(200);
    expect((await rpcHttp(hosted.url, token, "ping")).status).toBe(200);
    now += DAY - 60_000; // a minute before expiry
    expect((await mcpStatus(token)).status).toBe(200);
    now += 2 * 60_000; // a minute after
    await expectRefused(token, /expired/);
  });

  it("a revoked token is refused from the next request on", async () => {
    await addMember("rita");
    const { id, token } = await adminToken("rita");
    expect((await mcpStatus(token)).status).toBe(200);
    const revoke = await fetch(`${hosted.url}/api/v1/admin/tokens/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${hosted.ownerToken}` },
    });
    expect(revoke.status).toBe(200);
    await expectRefused(token, /revoked/);
  });
});

describe("tokens never in clear", () => {
  const seen: string[] = [];

  beforeAll(async () => {
    seen.push(hosted.ownerToken);
    for (const name of ["alice", "bob"]) {
      await addMember(name);
      seen.push((await adminToken(name, { expires_in_days: 30 })).token);
    }
    const alice = seen[1] as string;
    // Use them the ways clients do, and the ways careless clients do.
    await toolHttp(hosted.url, alice, "create_epic", { title: "Token hygiene" });
    await mcpStatus(alice);
    const unknown = `rqx_${"Z".repeat(40)}`;
    seen.push(unknown);
    await mcpStatus(unknown);
    await rpcHttp(hosted.url, unknown, "ping");
    await fetch(`${hosted.url}/api/v1/mcp?token=${alice}`, { method: "POST", body: "{not json" });
    await fetch(`${hosted.url}/nowhere/${alice}`, { headers: { authorization: `Bearer ${alice}` } });
    await fetch(`${hosted.url}/api/v1/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice}`, "x-api-key": alice, "content-type": "application/json" },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_epic","arguments":{"epic_id":"${alice}"}}}`,
    });
    await fetch(`${hosted.url}/api/v1/mcp`, {
      method: "POST",
      headers: { authorization: `Token ${alice}`, "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    const res = await fetch(`${hosted.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice}`, "content-type": "application/json", accept: MCP_ACCEPT },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "get_epic", arguments: { epic_id: "EP-999" } },
      }),
    });
    parseMcpBody(res.headers.get("content-type"), await res.text());
    await hosted.database.client.execute("PRAGMA wal_checkpoint(PASSIVE)");
  }, 60_000);

  it("are not in the database file, its WAL or shared memory, as text or as their random part", () => {
    const path = new URL(hosted.dbUrl).pathname || hosted.dbUrl.slice("file:".length);
    const files = [path, `${path}-wal`, `${path}-shm`].filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(0);
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(bytes.length).toBeGreaterThan(10_000);
    for (const token of seen) {
      expect(bytes.includes(Buffer.from(token)), `token ${token.slice(0, 8)}… in the database`).toBe(false);
      expect(
        bytes.includes(Buffer.from(token.slice(4))),
        `random part of ${token.slice(0, 8)}… in the database`,
      ).toBe(false);
    }
    // Positive control: the same bytes do hold what was written in clear.
    expect(bytes.includes(Buffer.from("Token hygiene"))).toBe(true);
  });

  it("are not in any captured log line, however they were sent", () => {
    const logs = hosted.logs.join("\n");
    expect(hosted.logs.length).toBeGreaterThan(10);
    for (const token of seen) {
      expect(logs.includes(token.slice(4, 20)), `token ${token.slice(0, 8)}… in the logs`).toBe(false);
    }
    // Positive control: the requests that carried them were logged.
    expect(logs).toContain("/nowhere/");
    expect(logs).toContain("unauthorized");
  });
});
