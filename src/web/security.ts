/**
 * Response headers of every web page: a CSP without inline scripts or styles (the one script bundle and the
 * one stylesheet are same-origin files), no framing, no sniffing, no referrer leaking ids to other sites.
 */
import type { MiddlewareHandler } from "hono";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The policy with `form-action` also allowing `source` (a CSP source expression): the OAuth consent form's
 * answer redirects to the client's redirect URI, and browsers check form-action on redirects too.
 */
export function policyWithFormAction(source: string): string {
  return CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${source}`);
}

export const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
};

export function securityHeaders(): MiddlewareHandler {
  return async function webSecurityHeaders(c, next) {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      // A page may have widened its own policy (the OAuth consent form redirects to the client).
      if (name === "Content-Security-Policy" && c.res.headers.has(name)) continue;
      c.res.headers.set(name, value);
    }
    // Pages show a user's data: never kept by a shared cache, nor shown again from the back button after sign-out.
    if (!c.res.headers.has("Cache-Control")) c.res.headers.set("Cache-Control", "no-store");
  };
}
