/**
 * The My tokens page over real HTTP with Node's token cache on: the new token is on the create answer only
 * (no-store, escaped), never on a later page; a web revocation is refused at once on the MCP faces; revoking
 * the session's own token ends the session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenCache } from "../../src/http/token-cache.js";
import type { HostedServer } from "../helpers/hosted.js";
import { rpcHttp, toolHttp } from "../helpers/rpc-http.js";
import { startWebServer, WebClient } from "./web-client.js";

let server: HostedServer;

beforeAll(async () => {
  server = await startWebServer({ deps: { tokenCache: new TokenCache({ ttlMs: 600_000 }) } });
});
afterAll(async () => server?.close());

const secretOf = (text: string) => /id="new-token"[^>]*value="(rqx_[A-Za-z0-9]+)"/.exec(text)?.[1];

describe("/tokens", () => {
  it("shows a new token once, escaped, with no-store; a revocation on the page is refused at once by the API", async () => {
    const web = new WebClient(server.url);
    await web.signIn(await server.createToken("tess", "viewer"));
    await web.get("/tokens");
    const created = await web.post("/tokens", { name: `<script>alert(1)</script>`, expires_in_days: "7" });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const secret = secretOf(created.text) as string;
    expect(secret).toMatch(/^rqx_/);
    expect(created.text).not.toContain("<script>alert(1)</script>");
    expect(created.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");

    const again = await web.get("/tokens");
    expect(again.text).not.toContain(secret);
    expect(again.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");

    // Used once over the API (now cached), then revoked on the page: the next API request is refused.
    await toolHttp(server.url, secret, "list_epics", {});
    const listed = await toolHttp(server.url, secret, "list_my_tokens", {});
    const id = (listed.tokens as { id: number; current: boolean }[]).find((t) => t.current)?.id as number;
    const revoked = await web.post(`/tokens/${id}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe("/tokens");
    expect(
      (await rpcHttp(server.url, secret, "tools/call", { name: "list_epics", arguments: {} })).status,
    ).toBe(401);
    expect((await web.get("/tokens")).text).toContain("revoked");
  });

  it("a role ceiling above the member's role is refused on the form, and nothing is created", async () => {
    const web = new WebClient(server.url);
    await web.signIn(await server.createToken("vera", "viewer"));
    const page = await web.get("/tokens");
    expect(page.text).not.toContain('<option value="editor"');
    const refused = await web.post("/tokens", { name: "sneaky", role: "editor" });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("cannot act above your own role");
    expect(secretOf(refused.text)).toBeUndefined();
    expect(refused.text).toContain('value="sneaky"');
  });

  it("revoking the token the session was opened with ends the session; another user's token is 404", async () => {
    const other = await server.createToken("otto", "editor");
    const othersId = (await toolHttp(server.url, other, "create_my_token", { name: "otto's" })).id as number;
    const token = await server.createToken("sam", "editor");
    const web = new WebClient(server.url);
    await web.signIn(token);
    await web.get("/tokens");
    expect((await web.post(`/tokens/${othersId}/revoke`)).status).toBe(404);
    const mine = await toolHttp(server.url, token, "list_my_tokens", {});
    const id = (mine.tokens as { id: number; current: boolean }[]).find((t) => t.current)?.id as number;
    const revoked = await web.post(`/tokens/${id}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe("/signin");
    const after = await web.get("/tokens");
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/^\/signin/);
    expect(
      (await rpcHttp(server.url, token, "tools/call", { name: "list_epics", arguments: {} })).status,
    ).toBe(401);
  });
});
