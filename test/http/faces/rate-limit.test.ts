/**
 * Rate limits through the real app over real HTTP (jsonrpc-api 4.7): per token across both faces, per
 * client address for callers that fail auth; 429 with Retry-After and -32029 past the limit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "../../../src/http/rate-limit-memory.js";
import { type HostedServer, MCP_ACCEPT, startHosted } from "../../helpers/hosted.js";

const LIMIT = 4;
let server: HostedServer;

beforeAll(async () => {
  server = await startHosted({ deps: { rateLimiter: new MemoryRateLimiter({ limit: LIMIT }) } });
});
afterAll(async () => server?.close());

function post(path: "/mcp" | "/api/v1/mcp", token: string | null) {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: MCP_ACCEPT,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
}

describe("rate limits", () => {
  it("counts a token's requests on both faces together; past the limit 429 + Retry-After + -32029", async () => {
    const token = await server.createToken("limited", "viewer");
    const other = await server.createToken("unlimited", "viewer");
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++)
      statuses.push((await post(i % 2 === 0 ? "/mcp" : "/api/v1/mcp", token)).status);
    expect(statuses).toEqual(Array(LIMIT).fill(200));
    for (const path of ["/api/v1/mcp", "/mcp"] as const) {
      const refused = await post(path, token);
      expect(refused.status, path).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(120);
      expect(await refused.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32029,
          message: `Rate limit exceeded. Retry after ${retryAfter} seconds.`,
          data: { retry_after_seconds: retryAfter },
        },
      });
      expect(refused.headers.get("x-request-id")).toBeTruthy();
    }
    // Another token of the same address and workspace is not affected.
    expect((await post("/api/v1/mcp", other)).status).toBe(200);
  });

  it("limits callers that fail auth per address, before auth runs", async () => {
    const bad = `rqx_${"B".repeat(43)}`;
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await post("/api/v1/mcp", bad)).status);
    // Refusals are counted after auth answered: the one past the limit is still a 401, then 429s.
    expect(statuses.slice(0, LIMIT + 1)).toEqual(Array(LIMIT + 1).fill(401));
    expect(statuses.slice(LIMIT + 1)).toEqual([429]);
    const blocked = await post("/mcp", null);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A blocked address's requests without a well-formed token never reach auth; a token is still looked
    // up (once: the app mounts each middleware once per path), so that a valid one can pass.
    expect(server.logs.filter((l) => l.includes('"msg":"unauthorized"')).length).toBe(LIMIT + 2);
  });

  it("a valid token from a blocked address still works (it has its own per-token limit); bad ones get 429", async () => {
    // The previous test left 127.0.0.1 blocked: one stale client behind a proxy must not lock out the team.
    expect((await post("/api/v1/mcp", `rqx_${"B".repeat(43)}`)).status).toBe(429);
    const valid = await server.createToken("teammate", "viewer");
    for (const path of ["/api/v1/mcp", "/mcp"] as const)
      expect((await post(path, valid)).status, path).toBe(200);
    const admin = await fetch(`${server.url}/api/v1/admin/tokens`, {
      headers: { authorization: `Bearer ${server.ownerToken}` },
    });
    expect(admin.status).toBe(200);
    const stillBad = await post("/mcp", `rqx_${"C".repeat(43)}`);
    expect(stillBad.status).toBe(429);
    expect(Number(stillBad.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await post("/api/v1/mcp", null)).status).toBe(429);
  });
});
