/**
 * The cookies of the web app (session, pre-sign-in CSRF, device), read and written by hand: hono/cookie's general parser and serializer
 * weigh ~1 KiB gzip in the Worker bundle for what is one name=value lookup and one attribute list here.
 * Values are ours (base64url), so they need no escaping.
 */
import type { Context } from "hono";

export interface CookieOptions {
  path: string;
  httpOnly: boolean;
  sameSite: "Lax";
  secure: boolean;
  maxAge?: number;
}

export function getCookie(c: Context, name: string): string | undefined {
  for (const part of (c.req.header("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function setCookie(c: Context, name: string, value: string, o: CookieOptions): void {
  let line = `${name}=${value}; Path=${o.path}; SameSite=${o.sameSite}`;
  if (o.maxAge !== undefined) line += `; Max-Age=${o.maxAge}`;
  if (o.httpOnly) line += "; HttpOnly";
  if (o.secure) line += "; Secure";
  c.header("Set-Cookie", line, { append: true });
}

export function deleteCookie(c: Context, name: string, o: CookieOptions): void {
  setCookie(c, name, "", { ...o, maxAge: 0 });
}
