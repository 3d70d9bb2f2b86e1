/**
 * Failed requests at the OAuth token and revocation endpoints are counted per client address (real HTTP,
 * real libSQL): past the app's limit the address gets 429 with Retry-After, even for a good refresh token,
 * which is left unused; other addresses are served; after the wait the same token works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseIpRange } from "../../src/core/ip-ranges.js";
import { MemoryRateLimiter } from "../../src/http/rate-limit-memory.js";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { grantTokens, type RegisteredClient, registerClient } from "../helpers/oauth-http.js";
import { WebClient } from "../web/web-client.js";

const LIMIT = 3;
let server: HostedServer;
let client: RegisteredClient;
/** The server's clocks (its own and the limiter's) run `skew` ms ahead of the real one. */
let skew = 0;

beforeAll(async () => {
  const loopback = parseIpRange("127.0.0.1");
  if (!loopback) throw new Error("127.0.0.1 must parse");
  server = await startHosted({
    deps: {
      clock: () => new Date(Date.now() + skew),
      rateLimiter: new MemoryRateLimiter({ limit: LIMIT, now: () => Date.now() + skew }),
      // The test speaks for two clients through a trusted proxy: X-Forwarded-For names each.
      trustedProxies: [loopback],
    },
  });
  client = await registerClient(server.url);
});
afterAll(async () => server?.close());

function post(path: string, address: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
    body: new URLSearchParams(form),
  });
}

const refresh = (address: string, token: string) =>
  post("/oauth/token", address, {
    grant_type: "refresh_token",
    refresh_token: token,
    client_id: client.client_id,
  });

describe("the token endpoint's per-address limit on failures", () => {
  it("blocks an address that keeps failing, serves others, and lets it back after Retry-After", async () => {
    const web = new WebClient(server.url);
    await web.signIn(await server.createToken("tia", "editor"));
    const good = await grantTokens(server.url, web, client);

    const guesser = "203.0.113.7";
    const guess = () =>
      post("/oauth/token", guesser, {
        grant_type: "authorization_code",
        code: "guessed-code",
        redirect_uri: client.redirect_uri,
        code_verifier: "v".repeat(43),
        client_id: client.client_id,
      });
    // The limit's worth of failures, then the one past it: each still answered for what it is.
    for (let i = 0; i <= LIMIT; i++) {
      const res = await guess();
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
    }
    // Now refused before any check, a good refresh token included, which stays unused.
    const blocked = await refresh(guesser, good.refresh_token);
    expect(blocked.status).toBe(429);
    const wait = Number(blocked.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    const body = (await blocked.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_request");
    expect(body.error_description).toMatch(
      /Too many failed token requests from this address: retry after \d+ seconds/,
    );
    // Revocation is behind the same limit.
    const revoke = await post("/oauth/revoke", guesser, {
      token: good.access_token,
      client_id: client.client_id,
    });
    expect(revoke.status).toBe(429);

    // Another address is not affected: the same (still unused) refresh token rotates there.
    const other = await refresh("198.51.100.9", good.refresh_token);
    expect(other.status).toBe(200);
    const rotated = (await other.json()) as { refresh_token: string };

    // After the wait, the blocked address is served again.
    skew += (wait + 61) * 1000;
    const back = await refresh(guesser, rotated.refresh_token);
    expect(back.status).toBe(200);
  });

  it("counts only failures: good requests from one address never block it", async () => {
    const web = new WebClient(server.url);
    await web.signIn(await server.createToken("uma", "editor"));
    let tokens = await grantTokens(server.url, web, client);
    for (let i = 0; i < LIMIT * 2; i++) {
      const res = await refresh("192.0.2.44", tokens.refresh_token);
      expect(res.status).toBe(200);
      tokens = (await res.json()) as typeof tokens;
    }
  });
});
