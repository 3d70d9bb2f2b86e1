/**
 * Client addresses behind a reverse proxy, and the admin API's own limit (hardening issue, item 3), over
 * real HTTP: X-Forwarded-For is ignored unless the peer is a configured trusted proxy (then each client
 * behind it has its own failed-auth bucket, and entries a client prepends do not choose it); the admin API
 * is limited per token (429 + Retry-After) and per address for bad tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseIpRange } from "../../../src/core/ip-ranges.js";
import { MemoryRateLimiter } from "../../../src/http/rate-limit-memory.js";
import { type HostedServer, startHosted } from "../../helpers/hosted.js";

const LIMIT = 3;
const BAD = `rqx_${"D".repeat(43)}`;
const servers: HostedServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function start(deps: Parameters<typeof startHosted>[0] = {}) {
  const s = await startHosted(deps);
  servers.push(s);
  return s;
}

function ping(server: HostedServer, token: string, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/api/v1/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
}

async function statuses(n: number, send: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).status);
  return out;
}

describe("X-Forwarded-For", () => {
  it("is ignored when no trusted proxy is configured: a client cannot pick a fresh bucket per request", async () => {
    const server = await start({ deps: { rateLimiter: new MemoryRateLimiter({ limit: LIMIT }) } });
    let n = 0;
    const seen = await statuses(LIMIT + 3, () =>
      ping(server, BAD, { "x-forwarded-for": `198.51.100.${++n}`, "cf-connecting-ip": `203.0.113.${n}` }),
    );
    expect(seen.slice(LIMIT + 1)).toEqual([429, 429]);
  });

  describe("behind a trusted proxy", () => {
    let server: HostedServer;
    beforeAll(async () => {
      const trusted = parseIpRange("127.0.0.0/8");
      if (!trusted) throw new Error("range did not parse");
      server = await start({
        deps: { rateLimiter: new MemoryRateLimiter({ limit: LIMIT }), trustedProxies: [trusted] },
      });
    });

    it("counts failures per client behind it: one stale client does not block the others", async () => {
      const stale = { "x-forwarded-for": "203.0.113.5" };
      const seen = await statuses(LIMIT + 2, () => ping(server, BAD, stale));
      expect(seen).toEqual([...Array(LIMIT + 1).fill(401), 429]);
      expect((await ping(server, BAD, { "x-forwarded-for": "203.0.113.6" })).status).toBe(401);
      // The proxy appends the address it saw: entries the client sends before it do not change the bucket.
      expect((await ping(server, BAD, { "x-forwarded-for": "198.51.100.1, 203.0.113.5" })).status).toBe(429);
      // Trusted hops at the right are skipped: the client is the last address no trusted proxy holds.
      expect((await ping(server, BAD, { "x-forwarded-for": "203.0.113.5, 127.0.0.9" })).status).toBe(429);
      // Without the header the proxy itself is the client.
      expect((await ping(server, BAD)).status).toBe(401);
    });
  });
});

describe("the admin API's rate limit", () => {
  it("limits each token: past the limit 429 with Retry-After and a JSON error; other tokens unaffected", async () => {
    const server = await start({ deps: { adminRateLimiter: new MemoryRateLimiter({ limit: LIMIT }) } });
    const other = await server.createToken("other-admin", "admin");
    const list = (token: string) =>
      fetch(`${server.url}/api/v1/admin/tokens`, { headers: { authorization: `Bearer ${token}` } });
    expect(await statuses(LIMIT, () => list(server.ownerToken))).toEqual(Array(LIMIT).fill(200));
    const refused = await list(server.ownerToken);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({
      error: {
        code: "rate_limited",
        message: `Rate limit exceeded. Retry after ${retryAfter} seconds.`,
        retry_after_seconds: retryAfter,
      },
    });
    expect((await list(other)).status).toBe(200);
    // The admin limit is its own bucket: the owner's MCP requests still pass.
    expect((await ping(server, server.ownerToken)).status).toBe(200);
  });

  it("counts bad tokens on the admin API per address too", async () => {
    const server = await start({ deps: { rateLimiter: new MemoryRateLimiter({ limit: LIMIT }) } });
    const seen = await statuses(LIMIT + 2, () =>
      fetch(`${server.url}/api/v1/admin/tokens`, { headers: { authorization: `Bearer ${BAD}` } }),
    );
    expect(seen).toEqual([...Array(LIMIT + 1).fill(401), 429]);
    const blocked = await fetch(`${server.url}/api/v1/admin/tokens`);
    expect(blocked.status).toBe(429);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
  });
});
