/** GET /healthz (no auth): 200 {status: "ok", version} when the database answers, 503 when it does not. */
import { Hono } from "hono";
import type { AppDeps, AppEnv } from "./context.js";

const PING_TIMEOUT_MS = 3000;

export function healthRoute(deps: Pick<AppDeps, "database" | "logger" | "version">): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  route.get("/healthz", async (c) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        deps.database.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)),
            PING_TIMEOUT_MS,
          );
        }),
      ]);
      return c.json({ status: "ok", version: deps.version });
    } catch (err) {
      deps.logger.log("error", "health check: database unreachable", {
        requestId: c.get("requestId"),
        error: err,
      });
      return c.json({ status: "unavailable", version: deps.version, error: "database unreachable" }, 503);
    } finally {
      clearTimeout(timer);
    }
  });
  return route;
}
