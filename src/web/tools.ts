/**
 * The web app's only way to the data: a hosted registry tool, called with the session's AuthInfo through
 * the same compiled registry, argument parsing, role checks and audit seam as `/mcp` and `/api/v1/mcp`
 * (channel `web`). No second domain path: a page reads and writes exactly what a tool call would.
 */
import type { Context } from "hono";
import { DomainError, isDomainError } from "../core/errors.js";
import type { AppEnv } from "../http/context.js";
import { auditFor, compiledFor, requestScope } from "../http/faces-common.js";
import { invokeTool } from "../protocol/methods.js";
import { internalMessage } from "../protocol/rpc-errors.js";
import type { WebDeps, WebEnv } from "./context.js";

export type ToolResult<T> = { ok: true; value: T } | { ok: false; error: DomainError };

const noProgress = async () => {};
const noLog = async () => {};

/** Calls tool `name` as the signed-in caller; a failure comes back as a DomainError (internal ones logged). */
export async function callTool<T = Record<string, unknown>>(
  c: Context<WebEnv>,
  deps: WebDeps,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult<T>> {
  const tool = compiledFor(deps).tools.get(name);
  if (!tool) throw new Error(`web: no tool named ${name} in the registry`);
  const scope = requestScope(c as unknown as Context<AppEnv>, deps, auditFor(deps), "web");
  const base = { signal: c.req.raw.signal, progress: noProgress, logToClient: noLog };
  const outcome = await invokeTool(scope, tool, args, base, (output) => output as T);
  if (outcome.ok) return { ok: true, value: outcome.value };
  if (isDomainError(outcome.error)) return { ok: false, error: outcome.error };
  scope.logInternal(outcome.error, `web ${name}`);
  return { ok: false, error: new DomainError("internal", internalMessage(scope.requestId)) };
}

/** Like callTool, but a failure throws (the page's error handler shows it with its HTTP status). */
export async function readTool<T = Record<string, unknown>>(
  c: Context<WebEnv>,
  deps: WebDeps,
  name: string,
  args: Record<string, unknown>,
): Promise<T> {
  const result = await callTool<T>(c, deps, name, args);
  if (!result.ok) throw result.error;
  return result.value;
}
