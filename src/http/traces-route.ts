/**
 * `POST /api/v1/traces`: a `reqlix-mcp trace` push (hosted/trace-push.ts). Behind the auth middleware and
 * its own body cap (app.ts: far above the 1 MiB of other routes, since 100,000 citations are ~20 MB).
 * 201 when the repository + commit is new, 200 when it was already stored (identical: unchanged; other
 * content: replaced in place). Bad input → 400 naming the fields, viewer → 403, no/bad token → 401.
 */
import { type Context, Hono } from "hono";
import { DomainError } from "../core/errors.js";
import { pushTraceSnapshot } from "../hosted/trace-push.js";
import type { AppDeps, AppEnv } from "./context.js";

/** Default cap of a trace push body; `AppDeps.maxTraceBodyBytes` overrides it. */
export const DEFAULT_MAX_TRACE_BODY_BYTES = 64 * 1024 * 1024;
export const TRACES_PATH = "/api/v1/traces";

/** 400 naming one field, in the shape of a snapshot error (`field` and `errors`). */
function invalid(message: string, field: string, problem: string): DomainError {
  const error = DomainError.invalid(message, [{ field, message: problem }]);
  error.details.field = field;
  return error;
}

async function jsonBody(c: Context<AppEnv>): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw invalid(
      "Send the snapshot as JSON with Content-Type: application/json.",
      "content-type",
      "must be application/json",
    );
  }
  const text = await c.req.text();
  if (text.trim() === "") {
    throw invalid("Request body is empty: send the trace snapshot as a JSON object.", "body", "required");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(
      "Request body is not valid JSON: send the trace snapshot as a JSON object.",
      "body",
      "not valid JSON",
    );
  }
}

export function tracesRoute(deps: Pick<AppDeps, "database" | "clock">): Hono<AppEnv> {
  const clock = deps.clock ?? (() => new Date());
  const route = new Hono<AppEnv>();
  route.post("/", async (c) => {
    const stored = await pushTraceSnapshot(
      { database: deps.database, auth: c.get("auth"), now: clock(), requestId: c.get("requestId") },
      () => jsonBody(c),
    );
    return c.json(stored, stored.created ? 201 : 200);
  });
  return route;
}
