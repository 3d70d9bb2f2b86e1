/**
 * `npm run admin -- <command>`: the admin operations straight on the database, for bootstrap and
 * recovery (no server, no token needed: access to the database is the credential). Same validation and
 * the same operations as the HTTP admin API.
 */
import { createWriteStream, readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import {
  addMemberInput,
  createTokenInput,
  createWorkspaceInput,
  listTokensInput,
  ownerInput,
  parseInput,
  tokenIdInput,
} from "../core/admin-input.js";
import { DomainError, isDomainError } from "../core/errors.js";
import { importInputOf } from "../core/interchange/formats.js";
import { formatNames } from "../core/interchange/registry.js";
import { displayDbUrl } from "../core/server-config.js";
import {
  addMemberOp,
  createTokenOp,
  createWorkspaceOp,
  listOwnersOp,
  listTokensOp,
  type OpContext,
  revokeTokenOp,
  setOwnerOp,
} from "../db/admin-ops.js";
import { bootstrap } from "../db/bootstrap.js";
import { type Database, DEFAULT_DB_URL, openDatabase } from "../db/client.js";
import { exportOp, type InterchangeCaller, importOp } from "../db/interchange-ops.js";
import { migrateDatabase } from "../db/migrate.js";
import { findUserByUsername, listOwners } from "../db/users.repo.js";
import { getWorkspaceBySlug, listWorkspaces } from "../db/workspaces.repo.js";
import { ACCOUNT_USAGE, type PasswordSource, runAccountCommand } from "./admin-accounts.js";

export const USAGE = `Usage: npm run admin -- <command> [options]

Commands (database: --db URL, else REQLIX_DB_URL, else ${DEFAULT_DB_URL}; auth token: REQLIX_DB_AUTH_TOKEN):
  migrate                                         apply pending migrations (also run before every command)
  bootstrap                                       on an empty database: workspace "default", owner "admin", a token
  workspace-create --slug S --name N              create a workspace (with its seed types)
  workspace-list                                  list workspaces
  member-add --username U --role R [--workspace S]   add a user (created if new) or change their role
  token-create --username U --name N [--workspace S] [--expires-in-days D] [--role R]
                                                  create a token; printed once
  token-list [--workspace S] [--limit N] [--cursor C]
                                                  list tokens, newest first, N a page (default 100,
                                                  at most 500; never their values); pass next_cursor
                                                  as --cursor for the next page
  token-revoke --id N                             revoke a token from the next request on
${ACCOUNT_USAGE}
  owner-list                                      list the instance owners
  owner-grant --username U                        make U an instance owner (administers every workspace)
  owner-revoke --username U                       take ownership away from U (never from the last owner)
  export --workspace W --format F [--epic EP-001] [--out FILE]
                                                  export a workspace or one epic (stdout without --out)
  import --workspace W --format F --file FILE [--apply] [--username U] [--epic-depth auto|0-9]
                                                  plan an import (dry run) or --apply it in one transaction;
                                                  revisions record U (default: the first owner) and FILE;
                                                  --epic-depth: ReqIF's hierarchy rule (epic_depth, default auto)
Formats: ${formatNames().join(", ")} (docs/interchange.md).
Roles: viewer, editor, admin. --workspace defaults to "default". Output is JSON.
Ownership is a flag on the user, changed only here: no token, not even an owner's, can change it. An owner's
powers come only through tokens minted by this CLI or by the owner themselves (created_by in token-list).`;

export interface CliIo {
  env: Record<string, string | undefined>;
  /** Where set-password reads the password; default the terminal or stdin (admin-accounts.ts). */
  password?: PasswordSource;
  out(text: string): void;
  err(text: string): void;
}

const OPTIONS = {
  db: { type: "string" },
  slug: { type: "string" },
  name: { type: "string" },
  username: { type: "string" },
  role: { type: "string" },
  workspace: { type: "string" },
  "expires-in-days": { type: "string" },
  id: { type: "string" },
  format: { type: "string" },
  epic: { type: "string" },
  out: { type: "string" },
  file: { type: "string" },
  apply: { type: "boolean" },
  "epic-depth": { type: "string" },
  user: { type: "string" },
  email: { type: "string" },
  "expires-in-hours": { type: "string" },
  "base-url": { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "string" ? string : boolean;
};

/** The admin CLI acts in a workspace as admin (the database is the credential), as `username` or the first owner. */
async function cliCaller(database: Database, values: Values): Promise<InterchangeCaller> {
  const slug = values.workspace ?? "default";
  const ws = await database.read((db) => getWorkspaceBySlug(db, slug));
  const user = values.username
    ? await database.read((db) => findUserByUsername(db, values.username as string))
    : (await database.read((db) => listOwners(db)))[0];
  if (!user) {
    throw DomainError.invalid(`No user "${values.username}". Pass --username of an existing user.`, [
      { field: "username", message: "unknown user" },
    ]);
  }
  return {
    workspaceId: ws.id,
    workspaceSlug: ws.slug,
    role: "admin",
    userId: user.id,
    channel: "cli",
    now: new Date(),
  };
}

function required(values: Values, names: (keyof Values)[]): void {
  const missing = names.filter((n) => values[n] === undefined);
  if (missing.length > 0) {
    throw DomainError.invalid(
      "missing options",
      missing.map((m) => ({ field: String(m), message: "required" })),
    );
  }
}

/** Flags → the API's field names; absent flags stay absent so "required" errors name the field. */
function fields(values: Values, keys: (keyof Values)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const v = values[key];
    if (v === undefined) continue;
    if (key === "expires-in-days") {
      out.expires_in_days = /^\d+$/.test(String(v)) ? Number(v) : v;
    } else {
      out[key] = v;
    }
  }
  return out;
}

async function run(command: string, values: Values, database: Database, io: CliIo): Promise<void> {
  const ctx: OpContext = { actor: { kind: "cli" }, now: new Date() };
  const print = (value: unknown) => io.out(`${JSON.stringify(value, null, 2)}\n`);
  switch (command) {
    case "migrate":
      print({ migrated: true });
      return;
    case "bootstrap": {
      const token = io.env.REQLIX_BOOTSTRAP_TOKEN;
      const result = await bootstrap(database, token ? { token } : {});
      print(
        result.created
          ? {
              created: true,
              workspace: result.workspace,
              username: result.username,
              token_id: result.tokenId,
              ...(result.fromEnv ? {} : { token: result.token }),
            }
          : { created: false, note: "the database already has users; nothing done" },
      );
      return;
    }
    case "workspace-create":
      print(
        await createWorkspaceOp(
          database,
          ctx,
          parseInput(createWorkspaceInput, fields(values, ["slug", "name"]), "options"),
        ),
      );
      return;
    case "workspace-list":
      print({ workspaces: await database.read((db) => listWorkspaces(db)) });
      return;
    case "member-add":
      print(
        await addMemberOp(
          database,
          ctx,
          parseInput(addMemberInput, fields(values, ["username", "role", "workspace"]), "options"),
        ),
      );
      return;
    case "token-create": {
      const input = parseInput(
        createTokenInput,
        fields(values, ["username", "name", "workspace", "expires-in-days", "role"]),
        "options",
      );
      print(await createTokenOp(database, ctx, input));
      return;
    }
    case "token-list":
      print(
        await listTokensOp(
          database,
          ctx,
          parseInput(listTokensInput, fields(values, ["workspace", "limit", "cursor"]), "options"),
        ),
      );
      return;
    case "token-revoke":
      print(await revokeTokenOp(database, ctx, parseInput(tokenIdInput, values.id, "id")));
      return;
    case "owner-list":
      print({ owners: await listOwnersOp(database) });
      return;
    case "export": {
      required(values, ["format"]);
      const caller = await cliCaller(database, values);
      const file = values.out ? createWriteStream(values.out) : undefined;
      await exportOp(
        database,
        caller,
        { format: values.format as string, epic: values.epic },
        {
          write: (chunk) => {
            if (!file && typeof chunk === "string") return io.out(chunk);
            const sink = file ?? process.stdout;
            return new Promise<void>((resolve, reject) =>
              sink.write(chunk, (err) => (err ? reject(err) : resolve())),
            );
          },
        },
      );
      if (file) {
        await new Promise<void>((resolve, reject) =>
          file.end((err?: Error | null) => (err ? reject(err) : resolve())),
        );
        io.err(
          `exported ${caller.workspaceSlug}${values.epic ? ` ${values.epic}` : ""} as ${values.format} to ${values.out}\n`,
        );
      }
      return;
    }
    case "import": {
      required(values, ["format", "file"]);
      const depth = values["epic-depth"];
      if (depth !== undefined && values.format !== "reqif") {
        throw DomainError.invalid(`--epic-depth sets ReqIF's hierarchy rule; use it with --format reqif.`, [
          { field: "epic_depth", message: "sets ReqIF's hierarchy rule: use it with --format reqif" },
        ]);
      }
      const caller = await cliCaller(database, values);
      const path = values.file as string;
      const report = await importOp(
        database,
        caller,
        { format: values.format as string, dryRun: values.apply !== true },
        // The HTTP route's query parameter of the same name (docs/interchange.md, the hierarchy rule).
        importInputOf(readFileSync(path), basename(path), depth === undefined ? {} : { epic_depth: depth }),
      );
      print(report);
      return;
    }
    case "set-password":
    case "invite":
      print(await runAccountCommand(command, values, database, ctx, io));
      return;
    case "owner-grant":
    case "owner-revoke": {
      const input = parseInput(ownerInput, fields(values, ["username"]), "options");
      print(await setOwnerOp(database, ctx, { ...input, owner: command === "owner-grant" }));
      return;
    }
  }
}

const COMMANDS = new Set([
  "migrate",
  "bootstrap",
  "workspace-create",
  "workspace-list",
  "member-add",
  "token-create",
  "token-list",
  "token-revoke",
  "owner-list",
  "set-password",
  "invite",
  "owner-grant",
  "owner-revoke",
  "export",
  "import",
]);

/** Runs one command; returns the exit code (0 ok, 1 failure, 2 bad usage or input). */
export async function runAdmin(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`reqlix admin: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}\n`);
    return 2;
  }
  const [command, ...extra] = parsed.positionals;
  if (parsed.values.help || command === undefined || command === "help") {
    io.out(`${USAGE}\n`);
    return command === undefined && !parsed.values.help ? 2 : 0;
  }
  if (!COMMANDS.has(command) || extra.length > 0) {
    io.err(
      `reqlix admin: ${COMMANDS.has(command) ? `unexpected argument "${extra[0]}"` : `unknown command "${command}"`}\n\n${USAGE}\n`,
    );
    return 2;
  }
  const url = parsed.values.db ?? io.env.REQLIX_DB_URL ?? DEFAULT_DB_URL;
  let database: Database | undefined;
  try {
    const authToken = io.env.REQLIX_DB_AUTH_TOKEN;
    database = await openDatabase({ url, ...(authToken ? { authToken } : {}) });
    await migrateDatabase(database);
    await run(command, parsed.values, database, io);
    return 0;
  } catch (err) {
    if (isDomainError(err) && Array.isArray(err.details.problems)) {
      // A malformed import file: where each problem is.
      const problems = err.details.problems as {
        message: string;
        line?: number;
        column?: number;
        path?: string;
      }[];
      const lines = problems.map(
        (p) =>
          `  ${p.line !== undefined ? `line ${p.line}, column ${p.column}: ` : ""}${p.path ? `${p.path}: ` : ""}${p.message}\n`,
      );
      io.err(`reqlix admin: ${err.message}\n${lines.join("")}`);
      return 2;
    }
    if (isDomainError(err) && err.details.errors && err.message.startsWith("The import was refused")) {
      io.err(
        `reqlix admin: ${err.message}\n${err.details.errors.map((e) => `  ${e.field}: ${e.message}\n`).join("")}`,
      );
      return 2;
    }
    if (isDomainError(err)) {
      const bad = err.details.errors ?? [];
      // Name the flags the user typed (--expires-in-days), not the API's field names.
      const lines = bad.map((e) => `  --${e.field.replaceAll("_", "-")}: ${e.message}`);
      io.err(
        `reqlix admin: ${bad.length > 0 ? "invalid options" : err.message}\n${lines.map((l) => `${l}\n`).join("")}`,
      );
      return err.code === "invalid_input" ? 2 : 1;
    }
    io.err(
      `reqlix admin: ${command} failed on ${displayDbUrl(url)}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  } finally {
    await database?.close();
  }
}
