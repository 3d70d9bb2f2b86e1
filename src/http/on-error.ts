/**
 * The one onError of the app: a DomainError becomes its status and message; an HTTPException its own
 * response; anything else is logged with the request id and answered "Internal error" + the id, never a
 * stack trace or SQL (DESIGN's error table).
 */
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { isDomainError } from "../core/errors.js";
import type { AppEnv, Logger } from "./context.js";
import { errorJson, HTTP_STATUS } from "./json-errors.js";

/** The database cannot be reached (closed client, network failure to a remote libSQL): a 503, not a bug. */
export function isDatabaseUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code === "CLIENT_CLOSED" || code === "ECONNREFUSED" || code === "ECONNRESET" || code === "ENOTFOUND")
      return true;
    if (e instanceof TypeError && /fetch failed|network/i.test(e.message)) return true;
  }
  return false;
}

export function onError(logger: Logger): ErrorHandler<AppEnv> {
  return function handleError(err, c) {
    const requestId = c.get("requestId");
    if (isDomainError(err) && err.code !== "internal") {
      if (err.code === "unavailable") {
        logger.log("warn", "dependency unavailable", { requestId, error: err.message, cause: err.cause });
      }
      if (err.code === "unauthorized") c.header("WWW-Authenticate", 'Bearer realm="reqlix"');
      return errorJson(c, HTTP_STATUS[err.code], err.code, err.message, err.details);
    }
    if (err instanceof HTTPException) return err.getResponse();
    if (isDatabaseUnreachable(err)) {
      logger.log("error", "database unreachable", { requestId, path: c.req.path, error: err });
      return errorJson(
        c,
        503,
        "unavailable",
        `Service unavailable: the database cannot be reached (request id ${requestId}).`,
        {
          correlation_id: requestId,
        },
      );
    }
    logger.log("error", "unhandled error", {
      requestId,
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
    });
    return errorJson(c, 500, "internal", `Internal error (request id ${requestId}).`, {
      correlation_id: requestId,
    });
  };
}
