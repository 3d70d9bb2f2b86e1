/**
 * OAuth 2.1 security properties (issue 12 item 7), over real HTTP and libSQL: exact redirect URIs, no open
 * redirect, state and PKCE (S256 only) required, codes single-use and short-lived, refresh-token reuse
 * revokes the family, secrets and tokens only hashed at rest, CSRF on consent, resource binding (RFC 8707),
 * DCR input checks, RFC 7009 revocation by its own client only.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODE_TTL_MS } from "../../src/core/oauth.js";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import {
  approveAs,
  authorizeQuery,
  grantTokens,
  pkcePair,
  type RegisteredClient,
  registerClient,
  tokenRequest,
} from "../helpers/oauth-http.js";
import { WebClient } from "../web/web-client.js";

let server: HostedServer;
let web: WebClient;
let client: RegisteredClient;
/** The server's clock runs `skew` ms ahead of the real one (code expiry without waiting). */
let skew = 0;

beforeAll(async () => {
  server = await startHosted({ deps: { clock: () => new Date(Date.now() + skew) } });
  web = new WebClient(server.url);
  await web.signIn(await server.createToken("sam", "editor"));
  client = await registerClient(server.url);
});
afterAll(async () => server?.close());

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

async function mcpPing(token: string, base = server.url): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
}

async function count(table: string): Promise<number> {
  const rs = await server.database.client.execute(`SELECT count(*) AS n FROM ${table}`);
  return Number(rs.rows[0]?.n);
}

async function exchange(code: string, verifier: string, extra: Record<string, string> = {}) {
  return tokenRequest(server.url, {
    grant_type: "authorization_code",
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: verifier,
    client_id: client.client_id,
    ...extra,
  });
}

describe("the authorization request", () => {
  it("matches redirect URIs exactly and never redirects to one it has not proven (no open redirect)", async () => {
    const { challenge } = pkcePair();
    const variants = [
      `${client.redirect_uri}/`,
      `${client.redirect_uri}?next=https://evil.example`,
      `${client.redirect_uri}x`,
      client.redirect_uri.replace("http://", "HTTP://"),
      client.redirect_uri.replace("127.0.0.1", "localhost"),
      "https://evil.example/callback",
    ];
    for (const redirect of variants) {
      const reply = await web.get(
        `/oauth/authorize?${authorizeQuery(client, challenge, { redirect_uri: redirect })}`,
      );
      expect(reply.status, redirect).toBe(400);
      expect(reply.location).toBeNull();
      expect(reply.text).toContain("nothing was sent to it");
    }
    const unknownClient = await web.get(
      `/oauth/authorize?${authorizeQuery({ ...client, client_id: "rqcl_unknown", redirect_uri: "https://evil.example/cb" }, challenge)}`,
    );
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.location).toBeNull();
    const noRedirect = await web.get(
      `/oauth/authorize?${authorizeQuery(client, challenge, { redirect_uri: undefined })}`,
    );
    expect(noRedirect.status).toBe(400);
    expect(noRedirect.location).toBeNull();
    // The consent answer checks again: a forged form cannot name another redirect URI either.
    const forged = await web.post("/oauth/authorize", {
      ...Object.fromEntries(new URLSearchParams(authorizeQuery(client, challenge))),
      redirect_uri: "https://evil.example/callback",
      decision: "approve",
    });
    expect(forged.status).toBe(400);
    expect(forged.location).toBeNull();
  });

  it("requires state and PKCE with S256 (plain refused), answered at the proven redirect URI", async () => {
    const { challenge } = pkcePair();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ state: undefined }, "state is required"],
      [{ code_challenge: undefined }, "PKCE is required"],
      [{ code_challenge_method: "plain" }, "S256"],
      [{ code_challenge_method: undefined }, "S256"],
      [{ code_challenge: "short" }, "43 base64url"],
      [{ response_type: "token" }, "response_type"],
      [{ scope: "reqlix:everything" }, "Unknown scope"],
      [{ resource: "https://other.example/mcp" }, "issues tokens for"],
    ];
    const before = await count("oauth_grants");
    for (const [overrides, message] of cases) {
      const reply = await web.get(`/oauth/authorize?${authorizeQuery(client, challenge, overrides)}`);
      expect(reply.status, JSON.stringify(overrides)).toBe(303);
      const back = new URL(reply.location as string);
      expect(`${back.origin}${back.pathname}`).toBe(client.redirect_uri);
      expect(back.searchParams.get("error")).toMatch(
        /invalid_request|unsupported_response_type|invalid_scope|invalid_target/,
      );
      expect(back.searchParams.get("error_description")).toContain(message);
      expect(back.searchParams.get("iss")).toBe(server.url);
      if (overrides.state === undefined && "state" in overrides)
        expect(back.searchParams.has("state")).toBe(false);
      else expect(back.searchParams.get("state")).toBe("state-123");
    }
    expect(await count("oauth_grants")).toBe(before);
  });

  it("refuses a consent answer without this session's CSRF token, and creates nothing", async () => {
    const { challenge } = pkcePair();
    const form = Object.fromEntries(new URLSearchParams(authorizeQuery(client, challenge)));
    const before = await count("oauth_grants");
    for (const csrf of ["", "x".repeat(64)]) {
      const reply = await web.request("POST", "/oauth/authorize", {
        ...form,
        decision: "approve",
        _csrf: csrf,
      });
      expect(reply.status).toBe(403);
      expect(reply.location).toBeNull();
    }
    // Another signed-in browser's token does not work for this one.
    const other = new WebClient(server.url);
    await other.signIn(await server.createToken("mallory", "editor"));
    await other.get("/");
    const reply = await web.request("POST", "/oauth/authorize", {
      ...form,
      decision: "approve",
      _csrf: other.csrf,
    });
    expect(reply.status).toBe(403);
    // Without a session at all: no consent is possible.
    const anonymous = await new WebClient(server.url).post("/oauth/authorize", {
      ...form,
      decision: "approve",
    });
    expect(anonymous.status).toBe(401);
    expect(await count("oauth_grants")).toBe(before);
  });

  it("a declined consent sends access_denied and creates no grant", async () => {
    const { challenge } = pkcePair();
    const query = authorizeQuery(client, challenge);
    await web.get(`/oauth/authorize?${query}`);
    const before = await count("oauth_grants");
    const reply = await web.post("/oauth/authorize", {
      ...Object.fromEntries(new URLSearchParams(query)),
      decision: "deny",
    });
    expect(reply.status).toBe(303);
    expect(new URL(reply.location as string).searchParams.get("error")).toBe("access_denied");
    expect(await count("oauth_grants")).toBe(before);
  });
});

describe("the token endpoint", () => {
  it("exchanges a code once: a second use is refused and revokes what the first issued", async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await approveAs(web, client, challenge)).get("code") as string;
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const tokens = (await first.json()) as { access_token: string; expires_in: number };
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    expect((await mcpPing(tokens.access_token)).status).toBe(200);
    const replay = await exchange(code, verifier);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await mcpPing(tokens.access_token)).status).toBe(401);
  });

  it("codes live at most 60 seconds", async () => {
    expect(CODE_TTL_MS).toBeLessThanOrEqual(60_000);
    const { verifier, challenge } = pkcePair();
    const code = (await approveAs(web, client, challenge)).get("code") as string;
    const row = await server.database.client.execute({
      sql: "SELECT created_at, expires_at FROM oauth_tokens WHERE hash = ?",
      args: [sha256(code)],
    });
    const lifetime =
      Date.parse(String(row.rows[0]?.expires_at)) - Date.parse(String(row.rows[0]?.created_at));
    expect(lifetime).toBeLessThanOrEqual(60_000 + 1_000);
    skew = 61_000;
    try {
      const late = await exchange(code, verifier);
      expect(late.status).toBe(400);
      expect(((await late.json()) as { error_description: string }).error_description).toContain("expired");
    } finally {
      skew = 0;
    }
  });

  it("requires the code_verifier matching the challenge, and the same redirect_uri", async () => {
    for (const [extra, message] of [
      [{ code_verifier: "" }, "PKCE is required"],
      [{ code_verifier: pkcePair().verifier }, "code_verifier does not match"],
      [{ redirect_uri: `${client.redirect_uri}/other` }, "redirect_uri differs"],
    ] as const) {
      const { verifier, challenge } = pkcePair();
      const code = (await approveAs(web, client, challenge)).get("code") as string;
      const res = await exchange(code, verifier, { ...extra });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error_description: string }).error_description).toContain(message);
    }
  });

  it("refuses another client's code and a token for another resource (RFC 8707)", async () => {
    const other = await registerClient(server.url);
    const { verifier, challenge } = pkcePair();
    const code = (await approveAs(web, client, challenge)).get("code") as string;
    const stolen = await exchange(code, verifier, { client_id: other.client_id });
    expect(((await stolen.json()) as { error: string }).error).toBe("invalid_grant");
    const { verifier: v2, challenge: c2 } = pkcePair();
    const code2 = (await approveAs(web, client, c2)).get("code") as string;
    const wrongResource = await exchange(code2, v2, { resource: "https://other.example/mcp" });
    expect(((await wrongResource.json()) as { error: string }).error).toBe("invalid_target");
  });

  it("binds access tokens to this server's /mcp: the same server under another name refuses them", async () => {
    const { access_token } = await grantTokens(server.url, web, client);
    expect((await mcpPing(access_token)).status).toBe(200);
    const elsewhere = await mcpPing(access_token, server.url.replace("127.0.0.1", "localhost"));
    expect(elsewhere.status).toBe(401);
    expect(await elsewhere.text()).toContain(`issued for the resource ${server.url}/mcp`);
  });

  it("rotates refresh tokens; reusing a rotated one revokes the whole family", async () => {
    const first = await grantTokens(server.url, web, client);
    const refresh = (token: string) =>
      tokenRequest(server.url, {
        grant_type: "refresh_token",
        refresh_token: token,
        client_id: client.client_id,
      });
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await mcpPing(second.access_token)).status).toBe(200);
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error_description: string }).error_description).toContain(
      "already used",
    );
    expect((await mcpPing(second.access_token)).status).toBe(401);
    expect((await mcpPing(first.access_token)).status).toBe(401);
    expect((await refresh(second.refresh_token)).status).toBe(400);
  });

  it("keeps only SHA-256 hashes of codes, tokens and client secrets", async () => {
    const confidential = await registerClient(server.url, "https://app.example/cb", {
      token_endpoint_auth_method: "client_secret_post",
    });
    expect(confidential.client_secret).toMatch(/^rqs_/);
    const { verifier, challenge } = pkcePair();
    const code = (await approveAs(web, confidential, challenge)).get("code") as string;
    const noSecret = await tokenRequest(server.url, {
      grant_type: "authorization_code",
      code,
      redirect_uri: confidential.redirect_uri,
      code_verifier: verifier,
      client_id: confidential.client_id,
    });
    expect(noSecret.status).toBe(401);
    const { verifier: v2, challenge: c2 } = pkcePair();
    const code2 = (await approveAs(web, confidential, c2)).get("code") as string;
    const res = await tokenRequest(server.url, {
      grant_type: "authorization_code",
      code: code2,
      redirect_uri: confidential.redirect_uri,
      code_verifier: v2,
      client_id: confidential.client_id,
      client_secret: confidential.client_secret as string,
    });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    const dump: string[] = [];
    for (const table of ["oauth_clients", "oauth_grants", "oauth_tokens", "tokens", "audit_events"]) {
      const rs = await server.database.client.execute(`SELECT * FROM ${table}`);
      for (const row of rs.rows) dump.push(JSON.stringify(row));
    }
    const all = dump.join("\n");
    for (const secret of [
      confidential.client_secret as string,
      code2,
      tokens.access_token,
      tokens.refresh_token,
    ]) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice(4, 20));
    }
    expect(all).toContain(sha256(confidential.client_secret as string));
    expect(all).toContain(sha256(tokens.access_token));
    expect(all).toContain(sha256(tokens.refresh_token));
    expect(all).toContain(sha256(code2));
  });

  it("revokes (RFC 7009) only for the token's own client, and answers 200 for unknown tokens", async () => {
    const mine = await grantTokens(server.url, web, client);
    const other = await registerClient(server.url);
    const revoke = (token: string, clientId: string) =>
      fetch(`${server.url}/oauth/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: clientId }),
      });
    expect((await revoke(mine.access_token, other.client_id)).status).toBe(200);
    expect((await mcpPing(mine.access_token)).status).toBe(200);
    expect((await revoke("rqa_unknown", client.client_id)).status).toBe(200);
    expect((await revoke(mine.access_token, client.client_id)).status).toBe(200);
    expect((await mcpPing(mine.access_token)).status).toBe(401);
  });
  it("a grant whose principal was revoked under My tokens leaves Connected apps too", async () => {
    const app = await registerClient(server.url, "http://127.0.0.1:61998/callback", {
      client_name: "Revoked elsewhere",
    });
    const granted = await grantTokens(server.url, web, app);
    expect((await web.get("/authorized-clients")).text).toContain("Revoked elsewhere");
    const page = (await web.get("/tokens")).text;
    const form = page.split("<form").find((f) => f.includes('aria-label="Revoke: OAuth: Revoked elsewhere"'));
    const id = /action="\/tokens\/(\d+)\/revoke"/.exec(form ?? "")?.[1];
    expect(id, "the grant's row under My tokens").toBeDefined();
    expect((await web.post(`/tokens/${id}/revoke`)).status).toBe(303);
    expect((await mcpPing(granted.access_token)).status).toBe(401);
    expect((await web.get("/authorized-clients")).text).not.toContain("Revoked elsewhere");
  });
});

describe("dynamic client registration", () => {
  it("refuses redirect URIs that could leak a code, and unknown grant types", async () => {
    for (const [uris, problem] of [
      [["http://app.example/cb"], "http on a host other than loopback"],
      [["javascript:alert(1)"], "scheme javascript"],
      [["https://app.example/cb#frag"], "fragment"],
      [["/relative"], "absolute"],
      [[], "non-empty"],
    ] as const) {
      const res = await fetch(`${server.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: uris, token_endpoint_auth_method: "none" }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error_description: string }).error_description).toContain(problem);
    }
    const implicit = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://a.example/cb"], grant_types: ["implicit"] }),
    });
    expect(implicit.status).toBe(400);
  });

  it("publishes metadata that says S256 only, the endpoints, and the resource", async () => {
    const as = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as.issuer).toBe(server.url);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.client_id_metadata_document_supported).toBe(true);
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const prm = (await res.json()) as Record<string, unknown>;
      expect(prm.resource).toBe(`${server.url}/mcp`);
      expect(prm.authorization_servers).toEqual([server.url]);
    }
  });
});
