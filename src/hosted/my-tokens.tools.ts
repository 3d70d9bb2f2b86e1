/**
 * The caller's own personal access tokens (issue 13, "my tokens"): every member lists, mints and revokes
 * the tokens they hold in their workspace (db/own-tokens.repo.ts decides what they may). A new token's
 * value is in the answer to its creation only: it is stored as a hash, and the audit row of the call names
 * the tool and the caller's token id, never arguments or results. A revocation empties this instance's
 * token cache before the answer (`ctx.credentialsChanged`), so the token is refused from the next request.
 */
import * as z from "zod";
import { DomainError } from "../core/errors.js";
import { ROLES } from "../core/roles.js";
import { createOwnToken, listOwnTokens, revokeOwnToken } from "../db/own-tokens.repo.js";
import { CREATE, hostedTool, READ } from "./access.js";
import { cursor, limit } from "./schemas.js";

export const MAX_TOKEN_DAYS = 365;

const role = z.enum(ROLES);
const ownToken = z.object({
  id: z.number().int(),
  name: z.string(),
  role_ceiling: role.nullable().describe("The token never acts above this role; null: the member's role."),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_by: z.string().nullable().describe("Who minted it; null: the admin CLI or bootstrap."),
  current: z.boolean().describe("The token this call is made with."),
});

export const listMyTokensTool = hostedTool({
  name: "list_my_tokens",
  title: "List my tokens",
  description:
    "Your own personal access tokens in this workspace, newest first: id, name, role ceiling, when created, last used, expires and was revoked, who minted it, and which one this call uses (current). Never shows a token's value. Paged: up to limit tokens; pass next_cursor as cursor for the next page. Use the id with revoke_my_token.",
  input: z.object({ limit: limit().describe("Most tokens to return."), cursor: cursor().optional() }),
  output: z.object({
    tokens: z.array(ownToken),
    next_cursor: z
      .string()
      .optional()
      .describe("Present when more tokens follow: pass it as cursor to get them."),
  }),
  annotations: READ,
  role: "viewer",
  handler: (input, ctx) => ctx.database.read((db) => listOwnTokens(db, ctx.auth, input)),
});

export const createMyTokenTool = hostedTool({
  name: "create_my_token",
  title: "Create a token for myself",
  description:
    "Mints a personal access token for you in this workspace and returns its value (rqx_…) once: it is stored only as a hash and cannot be shown again, so hand it to the user to keep. Optional: expires_in_days (1–365; default never, or when the token you call with expires: a minted token never outlives it) and role, a ceiling no higher than your own role (default: the ceiling of the token you call with). Revoke it with revoke_my_token.",
  input: z.object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .describe("What the token is for, e.g. laptop or CI (1–100 characters)."),
    expires_in_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_TOKEN_DAYS)
      .optional()
      .describe(
        `Days until it expires (1–${MAX_TOKEN_DAYS}), no later than the calling token; default: never, or with the calling token.`,
      ),
    role: role
      .optional()
      .describe("The most the token may do (viewer, editor, admin), at most your own role."),
  }),
  output: z.object({
    id: z.number().int(),
    name: z.string(),
    token: z.string().describe("The token's value: shown this once only."),
    role_ceiling: role.nullable(),
    expires_at: z.string().nullable(),
  }),
  annotations: CREATE,
  role: "viewer",
  handler: (input, ctx) => {
    // A client holding a revocable, short-lived OAuth grant must not turn it into a lasting PAT.
    if (ctx.auth.oauthScopes !== undefined) {
      throw DomainError.forbidden(
        "Forbidden: an OAuth client cannot mint personal access tokens; create one on the web app's My tokens page.",
      );
    }
    return ctx.database.write((tx) => createOwnToken(tx, ctx.auth, input, ctx.now()));
  },
});

export const revokeMyTokenTool = hostedTool({
  name: "revoke_my_token",
  title: "Revoke one of my tokens",
  description:
    "Revokes one of your own tokens in this workspace (its id from list_my_tokens): it is refused from the next request on, and web sessions opened with it end. Revoking the token of this call ends your access through it. Revoking again keeps the first time.",
  input: z.object({ token_id: z.number().int().positive().describe("The token's id (list_my_tokens).") }),
  output: ownToken,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  role: "viewer",
  handler: async (input, ctx) => {
    const revoked = await ctx.database.write((tx) => revokeOwnToken(tx, ctx.auth, input.token_id, ctx.now()));
    // After the commit: a lookup that began before it is not cached (token-cache.ts, generation).
    ctx.credentialsChanged?.();
    return revoked;
  },
});

export const myTokenTools = [listMyTokensTool, createMyTokenTool, revokeMyTokenTool];
