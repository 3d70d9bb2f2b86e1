/**
 * OAuth 2.1 authorization server rules (issue 12 item 3), pure: scopes and the role they cap, PKCE (S256
 * only), redirect URI and client metadata checks, and the credential formats. No I/O: Web Crypto only, so
 * Node and the Worker share this file. The endpoints live in http/oauth-*.ts, the rows in db/oauth.repo.ts.
 */
import { type Role, roleAtLeast } from "./roles.js";

export const SCOPES = ["reqlix:read", "reqlix:write", "reqlix:admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope caps the member's role at (effective role = the lower of the two). */
export const SCOPE_ROLE: Record<Scope, Role> = {
  "reqlix:read": "viewer",
  "reqlix:write": "editor",
  "reqlix:admin": "admin",
};

/**
 * Whether a credential with these OAuth scopes may write at all (absent: not an OAuth token, so yes). One
 * rule for the handlers' refusal (hosted/access.ts) and for what tools/list shows (http/faces-common.ts).
 */
export function scopesAllowWrites(scopes: readonly string[] | undefined): boolean {
  return scopes === undefined || scopes.includes("reqlix:write") || scopes.includes("reqlix:admin");
}

/** Asked when a client names no scope: read and write, never admin unless asked for by name. */
export const DEFAULT_SCOPE = "reqlix:read reqlix:write";

/** Lifetimes: codes are single-use and short-lived; access tokens short; refresh tokens rotate. */
export const CODE_TTL_MS = 60_000;
export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60_000;

/** Credential prefixes: told apart from a PAT (`rqx_`) before any lookup, and redacted from logs. */
export const ACCESS_PREFIX = "rqa_";
export const REFRESH_PREFIX = "rqr_";
export const CODE_PREFIX = "rqc_";
export const SECRET_PREFIX = "rqs_";
export const DCR_CLIENT_PREFIX = "rqcl_";

const CREDENTIAL = /^rq[arcs]_[A-Za-z0-9_-]{43}$/;

export function isAccessToken(value: string): boolean {
  return value.startsWith(ACCESS_PREFIX) && CREDENTIAL.test(value);
}

/** 32 random bytes, base64url. */
export function randomSecret(prefix: string): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return prefix + base64url(bytes);
}

export function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge. */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** RFC 7636 4.1: 43–128 unreserved characters. */
export const VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
export const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!VERIFIER_PATTERN.test(verifier)) return false;
  const computed = await pkceChallenge(verifier);
  if (computed.length !== challenge.length) return false;
  let diff = 0;
  for (let i = 0; i < computed.length; i++) diff |= computed.charCodeAt(i) ^ challenge.charCodeAt(i);
  return diff === 0;
}

/** The scopes of a `scope` parameter; an unknown one is named in the error. */
export function parseScope(
  value: string | undefined,
): { ok: true; scopes: Scope[] } | { ok: false; error: string } {
  const words = (value ?? "").split(" ").filter((w) => w !== "");
  if (words.length === 0) return parseScope(DEFAULT_SCOPE);
  const scopes: Scope[] = [];
  for (const word of words) {
    if (!(SCOPES as readonly string[]).includes(word)) {
      return { ok: false, error: `Unknown scope "${word}": use ${SCOPES.join(", ")}.` };
    }
    if (!scopes.includes(word as Scope)) scopes.push(word as Scope);
  }
  return { ok: true, scopes: SCOPES.filter((s) => scopes.includes(s)) };
}

/** The role a set of scopes caps the member at: the strongest scope granted. */
export function scopeRole(scopes: readonly Scope[]): Role {
  let role: Role = "viewer";
  for (const s of scopes) if (roleAtLeast(SCOPE_ROLE[s], role)) role = SCOPE_ROLE[s];
  return role;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname) || hostname.endsWith(".localhost");
}

/**
 * A redirect URI a client may register: absolute, no fragment; https, http only on loopback (native apps,
 * RFC 8252), or a private-use scheme of a native app (`cursor://…`) — never javascript:, data:, file: and the
 * like. It is matched exactly afterwards (string equality).
 */
export function redirectUriProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `redirect_uri "${value}" is not an absolute URL.`;
  }
  if (url.hash !== "" || value.includes("#")) return `redirect_uri "${value}" must not contain a fragment.`;
  const scheme = url.protocol.slice(0, -1);
  if (scheme === "https") return undefined;
  if (scheme === "http") {
    return isLoopbackHost(url.hostname)
      ? undefined
      : `redirect_uri "${value}" uses http on a host other than loopback: use https.`;
  }
  if (["javascript", "data", "file", "vbscript", "blob", "about", "ws", "wss", "ftp"].includes(scheme)) {
    return `redirect_uri "${value}" uses the scheme ${scheme}:, which cannot receive an authorization code.`;
  }
  // A private-use scheme must look like a reversed domain or an app name (RFC 8252 7.1).
  return /^[a-z][a-z0-9+.-]*$/.test(scheme) ? undefined : `redirect_uri "${value}" has an invalid scheme.`;
}

/** Client metadata accepted from a registration or a client ID metadata document. */
export interface ClientMetadata {
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: "none" | "client_secret_post" | "client_secret_basic";
  grant_types: string[];
  response_types: string[];
  client_uri?: string;
  scope?: string;
}

const AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"] as const;

/** Checks RFC 7591 metadata; `defaultAuth` is what a registration gets without the field. */
export function checkClientMetadata(
  input: unknown,
  defaultAuth: ClientMetadata["token_endpoint_auth_method"],
): { ok: true; metadata: ClientMetadata } | { ok: false; error: string } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, error: "Client metadata must be a JSON object." };
  }
  const m = input as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string")) {
    return { ok: false, error: "redirect_uris must be a non-empty array of URLs." };
  }
  if (uris.length > 20) return { ok: false, error: "At most 20 redirect_uris." };
  for (const uri of uris as string[]) {
    if (uri.length > 2000) return { ok: false, error: "A redirect_uri is longer than 2,000 characters." };
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, error: problem };
  }
  const method = m.token_endpoint_auth_method ?? defaultAuth;
  if (typeof method !== "string" || !(AUTH_METHODS as readonly string[]).includes(method)) {
    return {
      ok: false,
      error: `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}.`,
    };
  }
  const grantTypes = m.grant_types ?? ["authorization_code", "refresh_token"];
  if (
    !Array.isArray(grantTypes) ||
    !grantTypes.every((g) => g === "authorization_code" || g === "refresh_token")
  ) {
    return { ok: false, error: "grant_types may hold only authorization_code and refresh_token." };
  }
  const responseTypes = m.response_types ?? ["code"];
  if (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === "code")) {
    return { ok: false, error: 'response_types may hold only "code".' };
  }
  const name = m.client_name;
  if (name !== undefined && (typeof name !== "string" || name.length > 200)) {
    return { ok: false, error: "client_name must be text of at most 200 characters." };
  }
  const clientUri = typeof m.client_uri === "string" ? m.client_uri : undefined;
  const scope = typeof m.scope === "string" ? m.scope : undefined;
  if (scope !== undefined) {
    const parsed = parseScope(scope);
    if (!parsed.ok) return parsed;
  }
  return {
    ok: true,
    metadata: {
      ...(typeof name === "string" && name.trim() !== "" ? { client_name: name.trim() } : {}),
      redirect_uris: uris as string[],
      token_endpoint_auth_method: method as ClientMetadata["token_endpoint_auth_method"],
      grant_types: grantTypes as string[],
      response_types: responseTypes as string[],
      ...(clientUri ? { client_uri: clientUri } : {}),
      ...(scope ? { scope } : {}),
    },
  };
}

/** The resource every token is bound to (RFC 8707): this server's MCP endpoint. */
export function resourceOf(issuer: string): string {
  return `${issuer}/mcp`;
}

/** RFC 9728: where a resource's metadata is, for a resource path like `/mcp`. */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}/.well-known/oauth-protected-resource/mcp`;
}

/** RFC 8414 metadata of this authorization server. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/** RFC 9728 metadata of the MCP endpoint. Clients ask for the scopes listed here when they name none. */
export function protectedResourceMetadata(issuer: string) {
  return {
    resource: resourceOf(issuer),
    authorization_servers: [issuer],
    scopes_supported: DEFAULT_SCOPE.split(" "),
    bearer_methods_supported: ["header"],
    resource_name: "reqlix",
  };
}
