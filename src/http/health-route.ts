/**
 * GET /healthz (no auth): 200 {status: "ok", version} when the database answers and can be written, 503
 * {status: "unavailable", error: <reason>} when it cannot be reached or cannot be written (a read-only
 * file or replica: reads would work while every write fails).
 *
 * The write probe is a rolled-back write behind the write queue: cheap, but not free, so its outcome is
 * kept for WRITE_PROBE_TTL_MS and probes run one at a time however many checks arrive.
 */
import { Hono } from "hono";
import { databaseProblem } from "../db/database-errors.js";
import type { AppDeps, AppEnv } from "./context.js";

const PING_TIMEOUT_MS = 3000;
const WRITE_PROBE_TTL_MS = 5000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

export function healthRoute(deps: Pick<AppDeps, "database" | "logger" | "version">): Hono<AppEnv> {
  const route = new Hono<AppEnv>();
  /** The last write probe: when it ran and what it found (undefined = writable). */
  let probe: { at: number; result: Promise<unknown> } | undefined;
  const writeProblem = (): Promise<unknown> => {
    if (!probe || Date.now() - probe.at > WRITE_PROBE_TTL_MS) {
      probe = {
        at: Date.now(),
        result: withTimeout(deps.database.probeWrite()).then(
          () => undefined,
          (err: unknown) => err ?? new Error("write probe failed"),
        ),
      };
    }
    return probe.result;
  };

  route.get("/healthz", async (c) => {
    try {
      await withTimeout(deps.database.ping());
    } catch (err) {
      deps.logger.log("error", "health check: database unreachable", {
        requestId: c.get("requestId"),
        error: err,
      });
      return c.json({ status: "unavailable", version: deps.version, error: "database unreachable" }, 503);
    }
    const problem = await writeProblem();
    if (problem !== undefined) {
      const { reason } = databaseProblem(problem);
      deps.logger.log("error", "health check: database cannot be written", {
        requestId: c.get("requestId"),
        error: problem,
      });
      return c.json({ status: "unavailable", version: deps.version, error: `database: ${reason}` }, 503);
    }
    return c.json({ status: "ok", version: deps.version });
  });
  return route;
}
