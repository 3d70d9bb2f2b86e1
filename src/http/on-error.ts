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
