/**
 * Web sessions (issue 13): a personal access token pasted once opens a server-side session. The browser
 * holds a random session id in an HttpOnly, SameSite=Lax cookie (Secure except on http://localhost); the
 * table holds its SHA-256 only. Each sign-in issues a fresh id and ends the session the browser had
 * (rotation: no fixation), a session ends at sign-out, at its expiry, or when its token is revoked or
 * expires. Every form carries the session's CSRF token (csrf.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AuthInfo } from "../core/auth-info.js";
import { hashToken } from "../core/tokens.js";
import type { Database, Tx } from "../db/database.js";
import { findSessionByHash, insertSession, revokeSessionByHash, tokenExpiryOf } from "../db/sessions.repo.js";
import { principalAuth } from "../http/auth.js";
import type { WebEnv, WebSession } from "./context.js";
import { deleteCookie, getCookie, setCookie } from "./cookies.js";
import { csrfTokenFor } from "./csrf.js";

export const SESSION_COOKIE = "rqx_session";
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** 32 random bytes, base64url: the session id (and the pre-sign-in CSRF value). */
export function randomId(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Cookies are Secure everywhere but plain-HTTP localhost (where a browser would drop a Secure cookie). */
export function cookieSecure(c: Context): boolean {
  const url = new URL(c.req.url);
  return !(
    url.protocol === "http:" &&
    (LOCAL_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost"))
  );
}

export function cookieOptions(c: Context, maxAgeSeconds?: number) {
  return {
    path: "/",
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: cookieSecure(c),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

export interface SessionOptions {
  database: Database;
  clock: () => Date;
}

/** The signed-in caller of this request, from the session cookie; undefined when there is none valid. */
export async function resolveSession(
  c: Context<WebEnv>,
  options: SessionOptions,
): Promise<{ auth: AuthInfo; session: WebSession } | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  if (id === undefined || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
  const now = options.clock();
  const found = await options.database.read(async (db) => findSessionByHash(db, await hashToken(id)));
  if (!found || found.sessionRevokedAt !== null || found.sessionExpiresAt <= now.toISOString())
    return undefined;
  const result = principalAuth(found, now);
  if (!result.ok) return undefined;
  return { auth: result.auth, session: { id, csrf: await csrfTokenFor(id) } };
}

/** Who a new session acts as: a checked PAT's principal, or a user whose session token is minted with it. */
export type SessionPrincipal =
  | { auth: Pick<AuthInfo, "tokenId" | "userId" | "workspaceId"> }
  | {
      userId: number;
      workspaceId: number;
      /** Mints the session's own token (credentials.repo insertSessionToken) in the session's transaction. */
      mintToken: (tx: Tx, expiresAt: string) => Promise<number>;
    };

/**
 * Opens a session (its principal already checked), ending the one this browser had, and sets its cookie.
 * The expiry is the sooner of the session lifetime and the token's own expiry. Returns the new id's hash
 * and the token it acts through.
 */
export async function openSession(
  c: Context<WebEnv>,
  options: SessionOptions & { ttlMs: number } & SessionPrincipal,
): Promise<{ idHash: string; tokenId: number }> {
  const now = options.clock();
  const id = randomId();
  let expiresAt = new Date(now.getTime() + options.ttlMs).toISOString();
  if ("auth" in options) {
    const tokenId = options.auth.tokenId;
    const tokenExpiresAt = await options.database.read((db) => tokenExpiryOf(db, tokenId));
    if (tokenExpiresAt !== null && tokenExpiresAt < expiresAt) expiresAt = tokenExpiresAt;
  }
  const previous = getCookie(c, SESSION_COOKIE);
  const idHash = await hashToken(id);
  const previousHash = previous ? await hashToken(previous) : undefined;
  const tokenId = await options.database.write(async (tx) => {
    if (previousHash) await revokeSessionByHash(tx, previousHash, now.toISOString());
    const principal =
      "auth" in options
        ? options.auth
        : {
            tokenId: await options.mintToken(tx, expiresAt),
            userId: options.userId,
            workspaceId: options.workspaceId,
          };
    await insertSession(tx, {
      idHash,
      tokenId: principal.tokenId,
      userId: principal.userId,
      workspaceId: principal.workspaceId,
      createdAt: now.toISOString(),
      expiresAt,
    });
    return principal.tokenId;
  });
  const maxAge = Math.max(1, Math.floor((Date.parse(expiresAt) - now.getTime()) / 1000));
  setCookie(c, SESSION_COOKIE, id, cookieOptions(c, maxAge));
  return { idHash, tokenId };
}

/** Ends this browser's session (sign-out) and clears its cookie. */
export async function closeSession(c: Context<WebEnv>, options: SessionOptions): Promise<void> {
  const id = getCookie(c, SESSION_COOKIE);
  if (id) {
    const idHash = await hashToken(id);
    await options.database.write((tx) => revokeSessionByHash(tx, idHash, options.clock().toISOString()));
  }
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
}

/**
 * Pages behind sign-in: sets `auth` and `session`, or sends the browser to the sign-in page (a GET comes
 * back to where it was after signing in; a form post is not replayed).
 */
export function requireSession(options: SessionOptions): MiddlewareHandler<WebEnv> {
  return async function webSession(c, next) {
    const found = await resolveSession(c, options);
    if (!found) {
      if (c.req.method !== "GET" && c.req.method !== "HEAD") {
        return c.text("Your session has ended: sign in again.", 401);
      }
      const next = new URL(c.req.url);
      return c.redirect(`/signin?next=${encodeURIComponent(next.pathname + next.search)}`, 303);
    }
    c.set("auth", found.auth);
    c.set("session", found.session);
    await next();
  };
}
