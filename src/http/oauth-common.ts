/**
 * What the OAuth endpoints share (issue 12): the issuer of a request, the JSON error shape of RFC 6749 5.2,
 * CORS for browser-based clients (no cookies are involved on these endpoints), and client authentication at
 * the token and revocation endpoints.
 */
import type { Context, MiddlewareHandler } from "hono";
import { hashToken } from "../core/tokens.js";
import type { Database } from "../db/database.js";
import { findClient, type OAuthClientRow } from "../db/oauth.repo.js";
import type { AppEnv } from "./context.js";

/**
 * The issuer (and so the resource `<issuer>/mcp`) is this request's origin, or `REQLIX_PUBLIC_URL` when set
 * (behind a proxy that rewrites the Host).
 */
export function issuerOf(c: Context, publicUrl?: string): string {
  return publicUrl ? publicUrl.replace(/\/+$/, "") : new URL(c.req.url).origin;
}

export function oauthError(
  c: Context,
  status: 400 | 401 | 403 | 429 | 500,
  error: string,
  description: string,
): Response {
  c.header("Cache-Control", "no-store");
  if (status === 401) c.header("WWW-Authenticate", 'Basic realm="reqlix-oauth"');
  return c.json({ error, error_description: description }, status);
}

/** Any origin may call these endpoints: they take no cookies, and a browser client needs to read them. */
export function oauthCors(): MiddlewareHandler<AppEnv> {
  return async function cors(c, next) {
    if (c.req.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
          "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
          "Access-Control-Max-Age": "600",
        },
      });
    }
    await next();
    c.res.headers.set("Access-Control-Allow-Origin", "*");
  };
}

/** The form of an OAuth request (`application/x-www-form-urlencoded`, RFC 6749). */
export async function oauthForm(c: Context): Promise<Record<string, string>> {
  const type = c.req.header("content-type") ?? "";
  if (!type.includes("application/x-www-form-urlencoded")) return {};
  const params = new URLSearchParams(await c.req.text());
  const form: Record<string, string> = {};
  for (const [k, v] of params) {
    // RFC 6749 3.2: a parameter sent twice is an error; keep the first and let the checks refuse the rest.
    if (k in form) form[`${k}#twice`] = v;
    else form[k] = v;
  }
  return form;
}

export type ClientCheck = { ok: true; client: OAuthClientRow } | { ok: false; response: Response };

/**
 * RFC 6749 2.3: the client named by HTTP Basic or the form, with its secret when it has one (compared by
 * hash). A public client (`none`) names itself; PKCE and the code binding prove the rest.
 */
export async function authenticateClient(
  c: Context,
  database: Database,
  form: Record<string, string>,
): Promise<ClientCheck> {
  let clientId = form.client_id;
  let secret = form.client_secret;
  let method: "basic" | "post" | "none" = secret ? "post" : "none";
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (basic) {
    let decoded = "";
    try {
      decoded = atob(basic[1] as string);
    } catch {
      return { ok: false, response: oauthError(c, 401, "invalid_client", "Malformed Basic credentials.") };
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) {
      return { ok: false, response: oauthError(c, 401, "invalid_client", "Malformed Basic credentials.") };
    }
    clientId = decodeURIComponent(decoded.slice(0, colon));
    secret = decodeURIComponent(decoded.slice(colon + 1));
    method = "basic";
  }
  if (!clientId) {
    return { ok: false, response: oauthError(c, 401, "invalid_client", "Name the client: send client_id.") };
  }
  const client = await database.read((db) => findClient(db, clientId));
  if (!client) {
    return {
      ok: false,
      response: oauthError(c, 401, "invalid_client", "Unknown client_id: register the client first."),
    };
  }
  if (client.secretHash === null) return { ok: true, client };
  const expected = client.authMethod === "client_secret_basic" ? "basic" : "post";
  if (!secret || method !== expected || (await hashToken(secret)) !== client.secretHash) {
    return {
      ok: false,
      response: oauthError(
        c,
        401,
        "invalid_client",
        `Client authentication failed: send the client secret by ${client.authMethod}.`,
      ),
    };
  }
  return { ok: true, client };
}
