/**
 * Sessions of a user rather than of a token (issue 12 item 4): after a password sign-in or an accepted
 * invitation the session acts through a `session` token minted for it (credentials.repo.ts), in one of
 * the user's workspaces. Which workspace: the one asked for when the user is a member there, else the
 * only one, else the first by slug, and the browser is sent to `/workspaces` to choose (the choice can be
 * changed there at any time; each change is a new session in the other workspace).
 */
import type { Context } from "hono";
import { insertSessionToken, membershipsOfUser, type UserMembership } from "../db/credentials.repo.js";
import type { WebDeps, WebEnv } from "./context.js";
import { DEFAULT_SESSION_TTL_MS, openSession } from "./session.js";

export interface UserSessionResult {
  /** Where the browser goes next. */
  location: string;
  workspace: UserMembership;
  idHash: string;
  tokenId: number;
}

/**
 * Opens a session for `userId` in a workspace of theirs and says where to go; undefined when the user is
 * a member of no workspace.
 */
export async function openUserSession(
  c: Context<WebEnv>,
  deps: WebDeps,
  input: { userId: number; method: string; next: string; workspace?: string | number },
): Promise<UserSessionResult | undefined> {
  const clock = deps.clock ?? (() => new Date());
  const all = await deps.database.read((ex) => membershipsOfUser(ex, input.userId));
  const asked = all.find((m) => m.slug === input.workspace || m.workspaceId === input.workspace);
  const workspace = asked ?? all[0];
  if (!workspace) return undefined;
  const opened = await openSession(c, {
    database: deps.database,
    clock,
    ttlMs: deps.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS,
    userId: input.userId,
    workspaceId: workspace.workspaceId,
    mintToken: (tx, expiresAt) =>
      insertSessionToken(tx, {
        userId: input.userId,
        workspaceId: workspace.workspaceId,
        expiresAt,
        method: input.method,
      }),
  });
  const location =
    asked || all.length === 1 ? input.next : `/workspaces?next=${encodeURIComponent(input.next)}`;
  return { location, workspace, ...opened };
}
