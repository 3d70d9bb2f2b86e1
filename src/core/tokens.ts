/**
 * Personal access tokens (DESIGN): `rqx_` + 32 random bytes in base62, shown once, stored as a SHA-256 hex
 * hash. Web Crypto only, so Node and the Worker share this file.
 */
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 32 bytes need at most 43 base62 digits (62^43 > 2^256). */
const BODY_LENGTH = 43;

export const TOKEN_PREFIX = "rqx_";
/** What a well-formed token looks like (`rqx_` + ≥ 32 of `[A-Za-z0-9]`); checked before any lookup. */
export const TOKEN_PATTERN = /^rqx_[A-Za-z0-9]{32,}$/;

export function isWellFormedToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

function base62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(BODY_LENGTH, "0");
}

export function generateToken(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return TOKEN_PREFIX + base62(bytes);
}

/** Lower-case hex SHA-256 of the whole token string. */
export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A short, non-secret hint for logs and lists (`rqx_AbC…`): never enough to use the token. */
export function tokenHint(token: string): string {
  return `${token.slice(0, 7)}…`;
}
