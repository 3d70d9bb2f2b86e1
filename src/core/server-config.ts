/**
 * The Node server's configuration from environment variables, parsed once (every variable is listed in
 * .dev.vars.example and the README). Bad values stop the start with a message naming the variable.
 */
import * as z from "zod";
import { DomainError, type FieldError } from "./errors.js";
import { type IpRange, parseIpRange } from "./ip-ranges.js";
import { isWellFormedToken } from "./tokens.js";

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  );

/** Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For is believed (none by default). */
const trustedProxies = list.transform((entries, ctx): IpRange[] => {
  const ranges: IpRange[] = [];
  for (const entry of entries) {
    const range = parseIpRange(entry);
    if (range) ranges.push(range);
    else
      ctx.addIssue({
        code: "custom",
        message: `"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8)`,
      });
  }
  return ranges;
});

/** A whole number of milliseconds (or connections) in [min, max]. */
const bounded = (what: string, min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: `must be ${what}` })
    .int(`must be a whole number of ${what}`)
    .min(min, `must be ${min}-${max} ${what}`)
    .max(max, `must be ${min}-${max} ${what}`)
    .default(fallback);

/**
 * What `listen` accepts: an IPv4/IPv6 address or a host name. A URL, a port or a path here is a mistake
 * caught before anything starts (the address itself is checked by binding it, before the database opens).
 */
const HOST_SHAPE =
  /^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*(%[\w.-]+)?|[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*)$/;

const schema = z.object({
  HOST: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .regex(HOST_SHAPE, {
      error: (issue) =>
        `must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::1, localhost), not "${String(issue.input)}"`,
    })
    .default("127.0.0.1"),
  PORT: z.coerce
    .number({ error: "must be a port number" })
    .int("must be a whole number")
    .min(0, "must be 0-65535 (0 = any free port)")
    .max(65535, "must be 0-65535 (0 = any free port)")
    .default(8787),
  REQLIX_DB_URL: z.string().trim().min(1, "must not be empty").default("file:.data/reqlix.db"),
  REQLIX_DB_AUTH_TOKEN: z.string().optional(),
  REQLIX_BOOTSTRAP_TOKEN: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v === "" || isWellFormedToken(v),
      "must be rqx_ followed by ≥ 32 letters or digits",
    ),
  REQLIX_ALLOWED_ORIGINS: list,
  REQLIX_ALLOWED_HOSTS: list,
  REQLIX_RATE_LIMIT: z.string().optional(),
  REQLIX_ADMIN_RATE_LIMIT: z.string().optional(),
  REQLIX_TRUSTED_PROXIES: trustedProxies,
  /** Toolsets of an MCP connection that names none (checked against the registry when the app is built). */
  REQLIX_DEFAULT_TOOLSETS: z.string().optional(),
  // The OAuth issuer behind a proxy (issue 12): tokens are bound to `<it>/mcp`.
  REQLIX_PUBLIC_URL: z
    .string()
    .trim()
    .regex(/^https?:\/\/[^/?#\s]+\/?$/, "must be an origin like https://reqlix.example.com (no path)")
    .optional(),
  // Signs the requestState of MCP 2026-07-28 multi-round-trip requests (protocol/request-state.ts); unset:
  // a random key per process, so a question asked before a restart must be asked again.
  REQLIX_STATE_SECRET: z
    .string()
    .min(32, "must be at least 32 characters (e.g. openssl rand -hex 32)")
    .optional(),
  REQLIX_LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error"], { error: "must be debug, info, warn or error" })
    .default("info"),
  // Slow clients (issue item 4): a request's headers, then its whole body, must arrive within these.
  REQLIX_HEADERS_TIMEOUT_MS: bounded("milliseconds", 1, 3_600_000, 10_000),
  REQLIX_REQUEST_TIMEOUT_MS: bounded("milliseconds", 1, 3_600_000, 30_000),
  REQLIX_KEEP_ALIVE_TIMEOUT_MS: bounded("milliseconds", 1, 3_600_000, 5_000),
  REQLIX_MAX_CONNECTIONS: bounded("connections", 1, 1_000_000, 1_000),
  REQLIX_AUDIT_FLUSH_MS: bounded("milliseconds", 0, 60_000, 50),
});

export type ServerConfig = z.output<typeof schema> & { loopback: boolean };

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function parseServerConfig(env: Record<string, string | undefined>): ServerConfig {
  // An empty variable means "not set": shells and .env files often leave them that way.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema
    .refine((c) => c.REQLIX_HEADERS_TIMEOUT_MS <= c.REQLIX_REQUEST_TIMEOUT_MS, {
      path: ["REQLIX_HEADERS_TIMEOUT_MS"],
      message: "must not exceed REQLIX_REQUEST_TIMEOUT_MS (the headers are part of the request)",
    })
    .safeParse(cleaned);
  if (!parsed.success) {
    const errors: FieldError[] = parsed.error.issues.map((i) => ({
      field: i.path.map(String).join("."),
      message: i.message,
    }));
    throw DomainError.invalid(
      `Invalid configuration: ${errors.map((e) => `${e.field} ${e.message}`).join("; ")}`,
      errors,
    );
  }
  return { ...parsed.data, loopback: LOOPBACK.has(parsed.data.HOST.toLowerCase()) };
}

/** A database URL safe to print: credentials and query strings removed. */
export function displayDbUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === "file:") return url.split("?")[0] ?? url;
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString();
  } catch {
    return url.split("?")[0] ?? url;
  }
}
