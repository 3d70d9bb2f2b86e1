/**
 * DNS-rebinding protection for /mcp and /api/v1/mcp (DESIGN: the SDK transport does not check Host or
 * Origin). A browser page on a foreign origin that resolves to this server sends its own Origin (and Host):
 * such requests get 403. Clients that are not browsers send no Origin and pass.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv, Logger } from "./context.js";
import { errorJson } from "./json-errors.js";

const LOCAL_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLocalHostname(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOCAL_HOSTNAMES.has(h) || h.endsWith(".localhost");
}

/** `example.com:8787` → `example.com`; `[::1]:8787` → `[::1]`. */
function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  return h.split(":")[0] ?? h;
}

export interface OriginCheckOptions {
  /** Full origins (`https://app.example.com`) allowed besides localhost. */
  allowedOrigins?: string[];
  /** When set, the Host must be localhost or one of these host names. */
  allowedHosts?: string[];
  logger?: Logger;
}

export function originCheck(options: OriginCheckOptions): MiddlewareHandler<AppEnv> {
  const origins = new Set(
    (options.allowedOrigins ?? []).map((o) => o.trim().replace(/\/+$/, "").toLowerCase()),
  );
  const hosts = options.allowedHosts ? new Set(options.allowedHosts.map((h) => hostnameOf(h))) : undefined;
  return async function originCheckMiddleware(c, next) {
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let allowed = false;
      try {
        const url = new URL(origin);
        allowed = isLocalHostname(url.hostname) || origins.has(url.origin.toLowerCase());
      } catch {
        allowed = false; // "null" and garbage are never trusted
      }
      if (!allowed) {
        options.logger?.log("warn", "foreign origin refused", { requestId: c.get("requestId"), origin });
        return errorJson(
          c,
          403,
          "forbidden",
          `Forbidden: Origin ${origin} is not allowed. Allow it with REQLIX_ALLOWED_ORIGINS if it is yours.`,
        );
      }
    }
    if (hosts) {
      const host = c.req.header("host") ?? "";
      const name = hostnameOf(host);
      if (!isLocalHostname(name) && !hosts.has(name)) {
        options.logger?.log("warn", "foreign host refused", { requestId: c.get("requestId"), host });
        return errorJson(
          c,
          403,
          "forbidden",
          `Forbidden: Host ${host} is not allowed. Allow it with REQLIX_ALLOWED_HOSTS if it is yours.`,
        );
      }
    }
    await next();
  };
}
