/**
 * The authorization request (issue 12), checked the same way when the consent page is shown and when it is
 * answered. Order matters (RFC 6749 4.1.2.1, no open redirect): first the client and its exact redirect URI;
 * until both are proven the answer is an error page, never a redirect. After that, errors go back to the
 * client's redirect URI with `error`, `state` and `iss` (RFC 9207). PKCE is required with S256 (plain is
 * refused), `state` is required, the resource must be this server's `/mcp` (RFC 8707).
 */
import {
  CHALLENGE_PATTERN,
  type ClientMetadata,
  CODE_PREFIX,
  CODE_TTL_MS,
  parseScope,
  randomSecret,
  resourceOf,
  type Scope,
  scopeRole,
} from "../core/oauth.js";
import { minRole } from "../core/roles.js";
import { hashToken } from "../core/tokens.js";
import type { Database } from "../db/database.js";
import { createGrantWithCode, findClient, type OAuthClientRow, saveClient } from "../db/oauth.repo.js";
import type { AuthInfo } from "./context.js";
import { type DocumentOptions, fetchClientDocument, isMetadataDocumentId } from "./oauth-client-document.js";

/** A metadata document is fetched again when the copy we hold is older than this. */
export const DOCUMENT_REFRESH_MS = 10 * 60_000;

/** The parameters of an authorization request, as they travel from the query to the consent form. */
export const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "scope",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;

export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

export interface AuthorizeRequest {
  client: OAuthClientRow;
  redirectUri: string;
  state: string;
  scopes: Scope[];
  codeChallenge: string;
  resource: string;
  params: AuthorizeParams;
}

export type AuthorizeCheck =
  | { kind: "ok"; request: AuthorizeRequest }
  /** Shown as a page: the client or its redirect URI is not proven, so nothing is sent anywhere. */
  | { kind: "page"; status: 400; message: string }
  | { kind: "redirect"; location: string };

export interface AuthorizeDeps {
  database: Database;
  clock: () => Date;
  issuer: string;
  documents?: DocumentOptions;
}

export function redirectWith(redirectUri: string, values: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(values)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

async function clientFor(
  deps: AuthorizeDeps,
  clientId: string,
): Promise<{ ok: true; client: OAuthClientRow } | { ok: false; message: string }> {
  const known = await deps.database.read((db) => findClient(db, clientId));
  if (!isMetadataDocumentId(clientId)) {
    return known
      ? { ok: true, client: known }
      : { ok: false, message: "Unknown client_id: the application must register with this server first." };
  }
  const now = deps.clock();
  if (known && now.getTime() - Date.parse(known.updatedAt) < DOCUMENT_REFRESH_MS)
    return { ok: true, client: known };
  const fetched = await fetchClientDocument(clientId, deps.documents);
  if (!fetched.ok)
    return { ok: false, message: `The client's metadata document was refused: ${fetched.error}` };
  const metadata: ClientMetadata = fetched.metadata;
  const client = await deps.database.write((tx) =>
    saveClient(
      tx,
      {
        clientId,
        secretHash: null,
        source: "metadata_document",
        name: metadata.client_name ?? new URL(clientId).host,
        redirectUris: metadata.redirect_uris,
        authMethod: "none",
        metadata: { ...metadata },
      },
      now.toISOString(),
    ),
  );
  return { ok: true, client };
}

export async function checkAuthorizeRequest(
  deps: AuthorizeDeps,
  params: AuthorizeParams,
): Promise<AuthorizeCheck> {
  const clientId = params.client_id;
  if (!clientId)
    return { kind: "page", status: 400, message: "The request names no client (client_id is missing)." };
  const found = await clientFor(deps, clientId);
  if (!found.ok) return { kind: "page", status: 400, message: found.message };
  const client = found.client;
  const registered = JSON.parse(client.redirectUris) as string[];
  const redirectUri = params.redirect_uri;
  if (!redirectUri) {
    return { kind: "page", status: 400, message: "The request names no redirect_uri: it is required." };
  }
  // Exact string comparison: no prefix, no normalisation, no wildcard.
  if (!registered.includes(redirectUri)) {
    return {
      kind: "page",
      status: 400,
      message: "The redirect_uri is not one this client registered: nothing was sent to it.",
    };
  }
  const back = (error: string, description: string): AuthorizeCheck => ({
    kind: "redirect",
    location: redirectWith(redirectUri, {
      error,
      error_description: description,
      state: params.state,
      iss: deps.issuer,
    }),
  });
  if (params.response_type !== "code") {
    return back("unsupported_response_type", 'response_type must be "code".');
  }
  if (!params.state) return back("invalid_request", "state is required.");
  if (!params.code_challenge) return back("invalid_request", "PKCE is required: send code_challenge (S256).");
  if (params.code_challenge_method !== "S256") {
    return back("invalid_request", "code_challenge_method must be S256 (plain is not accepted).");
  }
  if (!CHALLENGE_PATTERN.test(params.code_challenge)) {
    return back("invalid_request", "code_challenge must be 43 base64url characters (S256).");
  }
  const scope = parseScope(params.scope);
  if (!scope.ok) return back("invalid_scope", scope.error);
  const resource = resourceOf(deps.issuer);
  if (params.resource !== undefined && params.resource !== resource) {
    return back("invalid_target", `This server issues tokens for ${resource} only.`);
  }
  return {
    kind: "ok",
    request: {
      client,
      redirectUri,
      state: params.state,
      scopes: scope.scopes,
      codeChallenge: params.code_challenge,
      resource,
      params,
    },
  };
}

/** The consent given: a grant with its code; the location to send the browser back to. */
export async function approve(
  deps: AuthorizeDeps,
  request: AuthorizeRequest,
  auth: AuthInfo,
): Promise<string> {
  const code = randomSecret(CODE_PREFIX);
  const now = deps.clock();
  const codeHash = await hashToken(code);
  await deps.database.write((tx) =>
    createGrantWithCode(tx, {
      clientRowId: request.client.id,
      clientName: request.client.name,
      userId: auth.userId,
      workspaceId: auth.workspaceId,
      scope: request.scopes.join(" "),
      // Never more than the session could do itself (its token may carry a role ceiling).
      role: minRole(scopeRole(request.scopes), auth.role),
      resource: request.resource,
      codeHash,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      codeExpiresAt: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
    }),
  );
  return redirectWith(request.redirectUri, { code, state: request.state, iss: deps.issuer });
}

export function deny(deps: AuthorizeDeps, request: AuthorizeRequest): string {
  return redirectWith(request.redirectUri, {
    error: "access_denied",
    error_description: "The user declined.",
    state: request.state,
    iss: deps.issuer,
  });
}
