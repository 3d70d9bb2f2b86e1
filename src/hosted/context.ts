/**
 * What every hosted handler (tool, resource, prompt) receives. Built per request by the faces
 * (`/mcp`, `/api/v1/mcp`) from the authenticated token; handlers never see the HTTP request.
 */

import type { AuthInfo } from "../core/auth-info.js";
import type { BaseContext } from "../core/registry.js";
import type { Database } from "../db/client.js";

export interface HostedContext extends BaseContext {
  /** The caller: user, workspace and role. Every query is scoped by `auth.workspaceId`. */
  auth: AuthInfo;
  database: Database;
  /** Correlates logs and audit rows of this request. */
  requestId: string;
  /** The clock (injected so tests and the Worker agree on time). */
  now(): Date;
  /**
   * Tells the face that who a token acts as may have changed (a token was revoked): the Node server empties
   * its token cache (http/token-cache.ts), so the change applies from the next request. Call it after the
   * write has committed. Every face sets it (http/faces-common.ts); a no-op where nothing is cached (Workers).
   */
  credentialsChanged?(): void;
  /**
   * Set by `hostedTool` for the handler of a tool that may write: the tool's name and, for tools that write
   * history, the caller's `change_note` and `source`. Recorded with every revision the call appends. A
   * read-only tool appends none and gets none.
   */
  change?: { tool: string; changeNote?: string; source?: string };
}
