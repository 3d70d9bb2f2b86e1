/**
 * Input of the admin operations (HTTP admin API and `npm run admin`), validated once here so both faces
 * reject the same things with the same per-field messages.
 */
import * as z from "zod";
import { SLUG_PATTERN, USERNAME_PATTERN } from "./accounts.js";
import { DomainError, type FieldError } from "./errors.js";
import { ROLES } from "./roles.js";

const slug = z
  .string({ error: "must be a string: lower-case letters, digits and dashes, e.g. team-a" })
  .regex(SLUG_PATTERN, "must be 1-63 lower-case letters, digits or dashes, starting with a letter or digit");
const username = z
  .string({ error: "must be a string: letters, digits, '.', '_' or '-', e.g. alice" })
  .regex(USERNAME_PATTERN, "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
const role = z.enum(ROLES, { error: `must be one of ${ROLES.join(", ")}` });
const label = (what: string, max: number) =>
  z
    .string({ error: `must be a string (${what})` })
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`);

export const createWorkspaceInput = z.strictObject({
  slug,
  name: label("the workspace's display name", 200),
});

export const addMemberInput = z.strictObject({ username, role, workspace: slug.optional() });

export const createTokenInput = z.strictObject({
  username,
  name: label("what the token is for, e.g. laptop", 100),
  workspace: slug.optional(),
  expires_in_days: z
    .number({ error: "must be a whole number of days between 1 and 3650" })
    .int("must be a whole number of days between 1 and 3650")
    .min(1, "must be at least 1 day")
    .max(3650, "must be at most 3650 days")
    .optional(),
  /** Optional ceiling: the token never acts above this role even if the member's role is higher. */
  role: role.optional(),
});

/** Tokens on one page of the admin list, and the most one page may ask for. */
export const TOKEN_PAGE_DEFAULT = 100;
const TOKEN_PAGE_MAX = 500;
const pageSize = `must be a whole number from 1 to ${TOKEN_PAGE_MAX} (tokens on one page)`;

/**
 * The admin token list is paged (newest first), as list_my_tokens is: a workspace's tokens grow without
 * bound (CI mints them), and one answer must not. The query string and the CLI give text, hence coerce.
 */
export const listTokensInput = z.strictObject({
  workspace: slug.optional(),
  limit: z.coerce
    .number({ error: pageSize })
    .int(pageSize)
    .min(1, pageSize)
    .max(TOKEN_PAGE_MAX, pageSize)
    .default(TOKEN_PAGE_DEFAULT),
  cursor: z
    .string({ error: "must be the next_cursor of the previous page" })
    .min(1, "must be the next_cursor of the previous page")
    .optional(),
});

/** `npm run admin -- owner-grant|owner-revoke --username U`: the only way ownership changes. */
export const ownerInput = z.strictObject({ username });

export const tokenIdInput = z.coerce
  .number({ error: "must be a token id (a positive whole number)" })
  .int("must be a token id (a positive whole number)")
  .positive("must be a token id (a positive whole number)");

export type CreateWorkspaceInput = z.output<typeof createWorkspaceInput>;
export type AddMemberInput = z.output<typeof addMemberInput>;
export type CreateTokenInput = z.output<typeof createTokenInput>;
export type ListTokensInput = z.output<typeof listTokensInput>;
export type OwnerInput = z.output<typeof ownerInput>;

function fieldErrors(error: z.ZodError, root: string): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    // An unknown key is reported once per key, named, so the caller sees which field to remove.
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        field: [...issue.path.map(String), key].join("."),
        message: "unknown field",
      }));
    }
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : root;
    return [{ field, message: issue.message }];
  });
}

/** Parses `value` or throws `invalid_input` naming each bad field, e.g. "Invalid request: slug: must be …". */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root = "body"): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors = fieldErrors(parsed.error, root);
  const list = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
  throw DomainError.invalid(`Invalid request: ${list}`, errors);
}

/** `POST /api/v1/admin/invitations` and `npm run admin -- invite` (issue 12 item 4). */
export const inviteInput = z.strictObject({
  email: z
    .string({ error: "must be an email address, e.g. ada@example.com" })
    .trim()
    .toLowerCase()
    .regex(
      /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{1,63}$/,
      "must be an email address, e.g. ada@example.com",
    ),
  role,
  workspace: slug.optional(),
  expires_in_hours: z
    .number({ error: "must be a whole number of hours between 1 and 720" })
    .int("must be a whole number of hours between 1 and 720")
    .min(1, "must be at least 1 hour")
    .max(720, "must be at most 720 hours")
    .optional(),
});
export type InviteInput = z.infer<typeof inviteInput>;
