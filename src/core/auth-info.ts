/**
 * Who is calling: set by the auth middleware from a valid personal access token and handed to every face
 * and handler. In core/ because the hosted handlers (hosted/) and the HTTP middleware (http/) both need it,
 * and hosted/ must not import http/ (docs/ARCHITECTURE.md, Layers).
 */
import type { Role } from "./roles.js";

export interface AuthInfo {
  userId: number;
  username: string;
  workspaceId: number;
  workspaceSlug: string;
  /** The member's role in the token's workspace (viewer, editor, admin). */
  role: Role;
  tokenId: number;
  /**
   * Instance-wide admin rights: the token's user has the `is_owner` flag and the token is one they could
   * legitimately hold (http/auth.ts carriesOwnerPowers).
   */
  isOwner: boolean;
  /**
   * Present when the caller is an OAuth client (issue 12): the scopes the member granted it. The role is
   * already capped by them; besides, a client without `reqlix:write` or `reqlix:admin` may call no write
   * tool (not even those a viewer may), and no client mints personal access tokens (hosted/access.ts).
   */
  oauthScopes?: readonly string[];
}
