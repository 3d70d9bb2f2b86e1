/**
 * OAuth over plain HTTP for the protocol and security tests (no browser): register a client (RFC 7591),
 * build a PKCE pair, answer the consent form as a signed-in WebClient, exchange and refresh at the token
 * endpoint. The end-to-end tests use the MCP SDK's own client instead (oauth-client.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import type { WebClient } from "../web/web-client.js";

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uri: string;
}

export async function registerClient(
  base: string,
  redirectUri = "http://127.0.0.1:61999/callback",
  extra: Record<string, unknown> = {},
): Promise<RegisteredClient> {
  const res = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "HTTP test client",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      ...extra,
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { client_id: string; client_secret?: string };
  return { ...body, redirect_uri: redirectUri };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** The query of an authorization request (every parameter overridable, `undefined` drops one). */
export function authorizeQuery(
  client: RegisteredClient,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
): string {
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    state: "state-123",
    scope: "reqlix:read reqlix:write",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...overrides,
  };
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return query.toString();
}

/** Shows the consent page to a signed-in `web` client and approves it; returns the redirect's query. */
export async function approveAs(
  web: WebClient,
  client: RegisteredClient,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
): Promise<URLSearchParams> {
  const query = authorizeQuery(client, challenge, overrides);
  const page = await web.get(`/oauth/authorize?${query}`);
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.text.slice(0, 300)}`);
  const reply = await web.post("/oauth/authorize", {
    ...Object.fromEntries(new URLSearchParams(query)),
    decision: "approve",
  });
  if (reply.status !== 303 || !reply.location) throw new Error(`consent answer: ${reply.status}`);
  return new URL(reply.location).searchParams;
}

export async function tokenRequest(base: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
}

export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  scope: string;
  expires_in: number;
}

/** Consent, then the code exchange: a fresh grant's tokens. */
export async function grantTokens(
  base: string,
  web: WebClient,
  client: RegisteredClient,
  scope = "reqlix:read reqlix:write",
): Promise<TokenAnswer> {
  const { verifier, challenge } = pkcePair();
  const back = await approveAs(web, client, challenge, { scope });
  const res = await tokenRequest(base, {
    grant_type: "authorization_code",
    code: back.get("code") as string,
    redirect_uri: client.redirect_uri,
    code_verifier: verifier,
    client_id: client.client_id,
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()) as TokenAnswer;
}
