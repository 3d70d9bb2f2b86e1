/**
 * The admin API (JSON, behind auth): workspaces, members and tokens. Workspace admins act on their own
 * workspace, the instance owner on any. Bad input → 400 naming each field; unknown user or workspace → 404;
 * not allowed → 403; over the per-token admin limit → 429 with Retry-After.
 */
import { type Context, Hono } from "hono";
import {
  addMemberInput,
  createTokenInput,
  createWorkspaceInput,
  inviteInput,
  listTokensInput,
  parseInput,
  tokenIdInput,
} from "../core/admin-input.js";
import { DomainError } from "../core/errors.js";
import { inviteOp } from "../db/account-ops.js";
import {
  type AdminActor,
  addMemberOp,
  createTokenOp,
  createWorkspaceOp,
  listTokensOp,
  type OpContext,
  revokeTokenOp,
} from "../db/admin-ops.js";
import type { AppDeps, AppEnv } from "./context.js";
import { rateLimit } from "./rate-limit.js";

async function jsonBody(c: Context<AppEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") {
    throw DomainError.invalid("Request body is empty: send a JSON object.", [
      { field: "body", message: "required" },
    ]);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw DomainError.invalid("Request body is not valid JSON: send a JSON object.", [
      { field: "body", message: "not valid JSON" },
    ]);
  }
}

export function adminRoute(
  deps: Pick<AppDeps, "database" | "clock" | "logger" | "rateLimiter" | "adminRateLimiter" | "tokenCache">,
): Hono<AppEnv> {
  const { database } = deps;
  const clock = deps.clock ?? (() => new Date());
  const route = new Hono<AppEnv>();
  // Per token, in a bucket apart from the token's MCP traffic (keys `admin:token:N`).
  const limiter = deps.adminRateLimiter ?? deps.rateLimiter;
  if (limiter) route.use("*", rateLimit({ limiter, logger: deps.logger, keyPrefix: "admin:" }));

  // Every write below (revoking a token and setting a member's role certainly; the others to keep the rule
  // simple) empties the token cache before its answer is sent, whatever its outcome (token-cache.ts).
  const invalidating = <T>(work: () => Promise<T>): Promise<T> =>
    work().finally(() => deps.tokenCache?.invalidate());

  const ctxOf = (c: Context<AppEnv>): OpContext => {
    const auth = c.get("auth");
    const actor: AdminActor = { kind: "token", ...auth };
    return { actor, now: clock(), requestId: c.get("requestId") };
  };

  route.post("/workspaces", async (c) => {
    const input = parseInput(createWorkspaceInput, await jsonBody(c));
    return c.json(await invalidating(() => createWorkspaceOp(database, ctxOf(c), input)), 201);
  });

  route.post("/members", async (c) => {
    const input = parseInput(addMemberInput, await jsonBody(c));
    return c.json(await invalidating(() => addMemberOp(database, ctxOf(c), input)), 201);
  });

  // An invitation link (issue 12 item 4): its secret is in this answer only.
  route.post("/invitations", async (c) => {
    const input = parseInput(inviteInput, await jsonBody(c));
    const created = await inviteOp(database, ctxOf(c), input);
    c.header("Cache-Control", "no-store");
    return c.json({ ...created, link: `${new URL(c.req.url).origin}${created.path}` }, 201);
  });

  route.post("/tokens", async (c) => {
    const input = parseInput(createTokenInput, await jsonBody(c));
    const created = await invalidating(() => createTokenOp(database, ctxOf(c), input));
    // The only time the token is shown: keep it out of every cache.
    c.header("Cache-Control", "no-store");
    return c.json(created, 201);
  });

  route.get("/tokens", async (c) => {
    const input = parseInput(listTokensInput, c.req.query(), "query");
    return c.json(await listTokensOp(database, ctxOf(c), input));
  });

  route.delete("/tokens/:id", async (c) => {
    const id = parseInput(tokenIdInput, c.req.param("id"), "id");
    return c.json(await invalidating(() => revokeTokenOp(database, ctxOf(c), id)));
  });

  return route;
}
