/** Request bodies over the limit (1 MiB by default) → 413, before any route reads them. */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./context.js";
import { errorJson } from "./json-errors.js";

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function limitBody(maxBytes = DEFAULT_MAX_BODY_BYTES): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      errorJson(
        c,
        413,
        "payload_too_large",
        `Request body is larger than ${maxBytes} bytes; send a smaller request.`,
        { max_bytes: maxBytes },
        -32600,
      ),
  });
}
