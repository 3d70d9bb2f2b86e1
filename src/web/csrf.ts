/**
 * CSRF protection of every form (issue 13). Signed in: a synchronizer token derived from the session id
 * (SHA-256 of a label and the id): unguessable without the HttpOnly cookie, bound to the session, new at
 * every sign-in. Before sign-in (the sign-in form itself): a double-submit value, a random cookie that
 * the form must echo. Forms post `application/x-www-form-urlencoded`; a mismatch is 403 and changes nothing.
 */
import type { Context, MiddlewareHandler } from "hono";
import { hashToken } from "../core/tokens.js";
import type { WebEnv } from "./context.js";

export const CSRF_FIELD = "_csrf";
export const PRESIGN_COOKIE = "rqx_presign";

export async function csrfTokenFor(sessionId: string): Promise<string> {
  return hashToken(`reqlix-web-csrf:${sessionId}`);
}

/** Compares two strings in time independent of where they differ. */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length || a.length === 0) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const forms = new WeakMap<Request, Record<string, string>>();

/** The submitted form, parsed once per request (the CSRF guard and the page both read it). */
export async function formOf(c: Context): Promise<Record<string, string>> {
  const cached = forms.get(c.req.raw);
  if (cached) return cached;
  const body = await c.req.parseBody();
  const form: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") form[k] = v;
  forms.set(c.req.raw, form);
  return form;
}

/** Unsafe methods of a signed-in session must carry its synchronizer token. */
export function requireCsrf(): MiddlewareHandler<WebEnv> {
  return async function webCsrf(c, next) {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const form = await formOf(c);
    const sent = form[CSRF_FIELD] ?? "";
    if (!sameSecret(sent, c.get("session").csrf)) {
      return c.text(
        "This form has expired or did not come from this site: reload the page and try again.",
        403,
      );
    }
    return next();
  };
}
