/**
 * Sessions of the web app over real HTTP and a real libSQL file: sign-in with a token, cookie attributes,
 * rotation (no fixation), sign-out, revocation through the token, expiry, CSRF on every form, sign-in rate
 * limit, security headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../src/core/tokens.js";
import { MemoryRateLimiter } from "../../src/http/rate-limit-memory.js";
import type { HostedServer } from "../helpers/hosted.js";
import { startWebServer, WebClient } from "./web-client.js";

let server: HostedServer;

beforeAll(async () => {
  server = await startWebServer({ deps: { signInRateLimiter: new MemoryRateLimiter({ limit: 5 }) } });
});
afterAll(async () => {
  await server.close();
});

async function sessionRows() {
  const rs = await server.database.client.execute("SELECT id_hash, revoked_at FROM web_sessions ORDER BY id");
  return rs.rows.map((r) => ({ idHash: String(r.id_hash), revokedAt: r.revoked_at }));
}

describe("web sign-in", () => {
  it("a page without a session sends the browser to sign in, and back after", async () => {
    const client = new WebClient(server.url);
    const first = await client.get("/?baseline=x");
    expect(first.status).toBe(303);
    expect(first.location).toBe("/signin?next=%2F%3Fbaseline%3Dx");
    const form = await client.get(first.location as string);
    expect(form.status).toBe(200);
    expect(form.text).toContain('name="next" value="/?baseline=x"');
    const signed = await client.post("/signin", { token: server.ownerToken, next: "/?baseline=x" });
    expect(signed.status).toBe(303);
    expect(signed.location).toBe("/?baseline=x");
  });

  it("stores only the hash of the session id; the cookie is HttpOnly, SameSite=Lax, not Secure on localhost", async () => {
    const client = new WebClient(server.url);
    await client.signIn(server.ownerToken);
    const id = client.cookies.get("rqx_session") as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const line = client.setCookies.find((l) => l.startsWith("rqx_session=")) as string;
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    // 127.0.0.1 over http: a browser would drop a Secure cookie, so none is set here.
    expect(line).not.toMatch(/Secure/);
    const rows = await sessionRows();
    expect(rows.map((r) => r.idHash)).toContain(await hashToken(id));
    const dump = JSON.stringify((await server.database.client.execute("SELECT * FROM web_sessions")).rows);
    expect(dump).not.toContain(id);
    expect(dump).not.toContain(server.ownerToken);
  });

  it("sets Secure on any host but plain-http localhost", async () => {
    const res = await server.app.request("https://reqlix.example.com/signin");
    expect(res.headers.get("set-cookie")).toMatch(/Secure/);
    const local = await server.app.request("http://localhost/signin");
    expect(local.headers.get("set-cookie")).not.toMatch(/Secure/);
  });

  it("a session id planted before sign-in is not kept: sign-in issues a new one and ends the old", async () => {
    const victim = new WebClient(server.url);
    await victim.signIn(server.ownerToken);
    const old = victim.cookies.get("rqx_session") as string;
    await victim.signIn(server.ownerToken);
    const fresh = victim.cookies.get("rqx_session") as string;
    expect(fresh).not.toBe(old);
    const attacker = new WebClient(server.url);
    attacker.cookies.set("rqx_session", old);
    expect((await attacker.get("/")).status).toBe(303);
    // An id the server never issued is not adopted either.
    const planted = new WebClient(server.url);
    planted.cookies.set("rqx_session", "A".repeat(43));
    await planted.get("/signin");
    await planted.post("/signin", { token: server.ownerToken, next: "/" });
    expect(planted.cookies.get("rqx_session")).not.toBe("A".repeat(43));
  });

  it("sign-out ends the session on the server", async () => {
    const client = new WebClient(server.url);
    await client.signIn(server.ownerToken);
    const id = client.cookies.get("rqx_session") as string;
    const out = await client.post("/signout");
    expect(out.status).toBe(303);
    expect(client.cookies.has("rqx_session")).toBe(false);
    const replay = new WebClient(server.url);
    replay.cookies.set("rqx_session", id);
    expect((await replay.get("/")).status).toBe(303);
  });

  it("revoking the token ends its sessions", async () => {
    const token = await server.createToken("revokee", "editor");
    const client = new WebClient(server.url);
    await client.signIn(token);
    expect((await client.get("/")).status).toBe(200);
    await server.database.client.execute({
      sql: "UPDATE tokens SET revoked_at = ? WHERE token_hash = ?",
      args: [new Date().toISOString(), await hashToken(token)],
    });
    expect((await client.get("/")).status).toBe(303);
  });

  it("an expired session is over, and a session never outlives its token", async () => {
    const client = new WebClient(server.url);
    await client.signIn(server.ownerToken);
    const idHash = await hashToken(client.cookies.get("rqx_session") as string);
    await server.database.client.execute({
      sql: "UPDATE web_sessions SET expires_at = ? WHERE id_hash = ?",
      args: [new Date(Date.now() - 1000).toISOString(), idHash],
    });
    expect((await client.get("/")).status).toBe(303);

    const soon = new Date(Date.now() + 60_000).toISOString();
    const token = await server.createToken("short-lived", "viewer");
    await server.database.client.execute({
      sql: "UPDATE tokens SET expires_at = ? WHERE token_hash = ?",
      args: [soon, await hashToken(token)],
    });
    const short = new WebClient(server.url);
    await short.signIn(token);
    const row = await server.database.client.execute({
      sql: "SELECT expires_at FROM web_sessions WHERE id_hash = ?",
      args: [await hashToken(short.cookies.get("rqx_session") as string)],
    });
    expect(row.rows[0]?.expires_at).toBe(soon);
    const line = short.setCookies.filter((l) => l.startsWith("rqx_session=")).at(-1) as string;
    expect(Number(/Max-Age=(\d+)/.exec(line)?.[1])).toBeLessThanOrEqual(60);
  });

  it("refuses a bad token with the reason and opens no session", async () => {
    const client = new WebClient(server.url);
    await client.get("/signin");
    const before = (await sessionRows()).length;
    const reply = await client.post("/signin", { token: "rqx_notatokenatallnotatokenatall00000", next: "/" });
    expect(reply.status).toBe(401);
    expect(reply.text).toContain("Unknown token");
    expect(reply.text).not.toContain("rqx_notatoken");
    expect((await sessionRows()).length).toBe(before);
  });
});

describe("CSRF", () => {
  it("refuses a sign-in form without the double-submit value", async () => {
    const client = new WebClient(server.url);
    await client.get("/signin");
    const reply = await client.post("/signin", { _csrf: "forged", token: server.ownerToken, next: "/" });
    expect(reply.status).toBe(403);
    expect(client.cookies.has("rqx_session")).toBe(false);
  });

  it("refuses a signed-in form without the session's token, and changes nothing", async () => {
    const client = new WebClient(server.url);
    await client.signIn(server.ownerToken);
    const reply = await client.post("/baselines", { _csrf: "x".repeat(64), name: "forged" });
    expect(reply.status).toBe(403);
    const count = await server.database.client.execute(
      "SELECT count(*) AS n FROM baselines WHERE name = 'forged'",
    );
    expect(Number(count.rows[0]?.n)).toBe(0);
    const signout = await client.post("/signout", { _csrf: "nope" });
    expect(signout.status).toBe(403);
    expect((await client.get("/")).status).toBe(200);
  });

  it("the token of one session does not work in another", async () => {
    const a = new WebClient(server.url);
    const b = new WebClient(server.url);
    await a.signIn(server.ownerToken);
    await b.signIn(server.ownerToken);
    expect(a.csrf).not.toBe(b.csrf);
    const reply = await b.post("/baselines", { _csrf: a.csrf, name: "cross-session" });
    expect(reply.status).toBe(403);
    expect((await b.post("/baselines", { name: "same-session" })).status).toBe(303);
  });
});

describe("headers and limits", () => {
  it("every page carries the CSP (no inline script), no framing, nosniff", async () => {
    const client = new WebClient(server.url);
    for (const path of ["/signin"]) {
      const res = await client.get(path);
      const csp = res.headers.get("content-security-policy") as string;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
    }
  });

  it("serves the one stylesheet and the one script with their types", async () => {
    const css = await fetch(`${server.url}/assets/app.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    const js = await fetch(`${server.url}/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    const again = await fetch(`${server.url}/assets/app.css`, {
      headers: { "if-none-match": css.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
    expect((await fetch(`${server.url}/assets/..%2fapp.ts`)).status).toBe(404);
    expect((await fetch(`${server.url}/assets/_headers`)).status).toBe(404);
  });

  it("API paths and unknown paths keep their JSON answers", async () => {
    const res = await fetch(`${server.url}/no-such-page`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("sign-in attempts are rate-limited per address", async () => {
    const client = new WebClient(server.url);
    await client.get("/signin");
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push(
        (await client.post("/signin", { token: "rqx_wrongwrongwrongwrongwrongwrongwrong0", next: "/" }))
          .status,
      );
    }
    expect(statuses).toContain(429);
    const limited = await client.post("/signin", { token: server.ownerToken, next: "/" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(client.cookies.has("rqx_session")).toBe(false);
  });
});
