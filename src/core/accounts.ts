/** Accounts as repositories return them: workspaces, users, members, tokens (never the token value). */
import type { Role } from "./roles.js";

export interface Workspace {
  id: number;
  slug: string;
  name: string;
  created_at: string;
}

export interface User {
  id: number;
  username: string;
  is_owner: boolean;
  created_at: string;
}

export interface Member {
  workspace: string;
  username: string;
  role: Role;
}

/** A token as listed by the admin API. */
export interface TokenInfo {
  id: number;
  name: string;
  username: string;
  workspace: string;
  role_ceiling: Role | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Username of the admin whose token minted it; null when the admin CLI or bootstrap did. */
  created_by: string | null;
}

/** Slugs are used in URLs and CLI flags: lower-case letters, digits and dashes. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** Usernames: letters, digits, dot, dash, underscore; no spaces so they are safe in logs and flags. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
