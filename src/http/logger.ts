/**
 * JSON-lines logger (one object per line: time, level, msg, fields). Anything that looks like a token
 * (`rqx_…`, a Bearer value) and any field named like a secret is redacted before it is written.
 */
import type { Logger, LogLevel } from "./context.js";

const LEVELS: LogLevel[] = ["debug", "info", "warn", "error"];
const SECRET_KEY =
  /^(authorization|token|secret|password|auth_token|authtoken|cookie|code|code_verifier|refresh_token|access_token|client_secret)$/i;
/** PATs (`rqx_`) and the OAuth credentials (`rqa_` access, `rqr_` refresh, `rqc_` code, `rqs_` secret). */
const TOKEN_TEXT = /(rq[xarcs]_)[A-Za-z0-9_-]+/g;
const BEARER_TEXT = /(Bearer\s+)[^\s"',;]+/gi;

export function redactText(text: string): string {
  return text.replace(TOKEN_TEXT, "$1[REDACTED]").replace(BEARER_TEXT, "$1[REDACTED]");
}

/** Deep copy with secrets replaced; cycles and depth are bounded so a log line can never throw. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 6) return "[…]";
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message) };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && typeof v === "string" ? "[REDACTED]" : redact(v, depth + 1);
  }
  return out;
}

export interface JsonLoggerOptions {
  /** Receives one JSON line (no newline). Default: console.log (stdout on Node, the Workers log). */
  write?: (line: string) => void;
  level?: LogLevel;
  clock?: () => Date;
}

export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => console.log(line));
  const min = LEVELS.indexOf(options.level ?? "info");
  const clock = options.clock ?? (() => new Date());
  return {
    log(level, msg, fields) {
      if (LEVELS.indexOf(level) < min) return;
      const entry = {
        time: clock().toISOString(),
        level,
        msg: redactText(msg),
        ...(redact(fields ?? {}) as object),
      };
      let line: string;
      try {
        line = JSON.stringify(entry);
      } catch {
        line = JSON.stringify({ time: entry.time, level, msg: entry.msg, note: "fields not serializable" });
      }
      write(line);
    },
  };
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && (LEVELS as string[]).includes(value);
}
