/**
 * `reqlix-mcp push` and `reqlix-mcp pull`, run in the project root. Exit codes: 0 done; 1 could not finish
 * (server unreachable or failing, files or workspace items that cannot be mapped: the message says which);
 * 2 bad usage (unknown flag, missing URL/token/workspace, token refused, wrong workspace); 3 conflict
 * (the report with both versions on stderr; nothing written on either side).
 */
import { distance } from "../cli-args.js";
import { BridgeUsageError, redact } from "./hosted-client.js";
import { pull } from "./pull.js";
import { push } from "./push.js";
import type { Conflict } from "./reconcile.js";
import type { SyncResult } from "./session.js";
import { resolveTarget } from "./target.js";

export const BRIDGE_COMMANDS = ["push", "pull"] as const;
export type BridgeCommand = (typeof BRIDGE_COMMANDS)[number];

export function bridgeUsage(command: BridgeCommand): string {
  const what =
    command === "push"
      ? 'Sends the requirements changed in the markdown files since the last sync to a hosted reqlix workspace\n(one import; revisions with source "reqlix-mcp push").'
      : "Writes the requirements changed in a hosted reqlix workspace since the last sync into the markdown\nfiles (through the reqlix file tools: locks, atomic writes).";
  return `Usage: reqlix-mcp ${command} [--url <url>] [--token <token>] [--workspace <slug>] [--force] [--json]

${what}
Run it in the project root. Mapping: category → epic, chapter → user story, requirement → requirement with
its index as external id. The last sync is remembered in .reqlix/sync.json.

Options:
  --url <url>          Hosted reqlix server (default: $REQLIX_URL).
  --token <token>      Personal access token of the workspace (default: $REQLIX_TOKEN).
  --workspace <slug>   Workspace slug (default: $REQLIX_WORKSPACE).
  --force              Resolve conflicts in this direction: push → the files' version wins, pull → the
                       workspace's version wins (the other side's change is overwritten).
  --json               Print the result as JSON.
  --help, -h           Print this help.

Exit codes: 0 done, 1 could not finish, 2 bad usage, 3 conflict (both sides changed; report on stderr).
`;
}

const VALUED = ["--url", "--token", "--workspace"] as const;
const SWITCHES = ["--force", "--json", "--help"] as const;

interface BridgeArgs {
  url?: string;
  token?: string;
  workspace?: string;
  force: boolean;
  json: boolean;
  help: boolean;
}

class UsageError extends Error {}

function valid(): string {
  return [...VALUED.map((f) => `${f} <value>`), ...SWITCHES].join(", ");
}

export function parseBridgeArgs(command: BridgeCommand, argv: string[]): BridgeArgs {
  const args: BridgeArgs = { force: false, json: false, help: false };
  const seen = new Set<string>();
  const all: string[] = [...VALUED, ...SWITCHES];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = arg === "-h" ? "--help" : eq === -1 ? arg : arg.slice(0, eq);
    if (!all.includes(name)) {
      if (!arg.startsWith("-"))
        throw new UsageError(`unexpected argument "${arg}". Valid options: ${valid()}.`);
      const near = all.find((f) => distance(name, f) <= 2 || (name.length > 3 && f.startsWith(name)));
      throw new UsageError(
        `unknown option ${name}.${near ? ` Did you mean ${near}?` : ""} Valid options: ${valid()}. Run \`reqlix-mcp ${command} --help\` for details.`,
      );
    }
    if (seen.has(name)) throw new UsageError(`${name} is given twice.`);
    seen.add(name);
    if ((SWITCHES as readonly string[]).includes(name)) {
      if (eq !== -1) throw new UsageError(`${name} takes no value.`);
      args[name.slice(2) as "force" | "json" | "help"] = true;
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "" || (eq === -1 && value.startsWith("--")))
      throw new UsageError(`${name} needs a value: ${name} <${name.slice(2)}>.`);
    args[name.slice(2) as "url" | "token" | "workspace"] = value;
  }
  return args;
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((l) => `${prefix}${l}`)
    .join("\n");
}

function side(label: string, v: Conflict["local"]): string {
  if (!v) return `  ${label}: deleted (or Obsolete in the workspace)`;
  const rev = v.revision !== undefined ? ` (revision ${v.revision}${v.status ? `, ${v.status}` : ""})` : "";
  return `  ${label}${rev}: ${v.title}\n${indent(v.text, "    | ")}`;
}

/** The conflict report: every conflicting requirement with both versions, and how to resolve. */
export function conflictReport(result: SyncResult): string {
  const lines = [
    `reqlix-mcp ${result.action}: ${result.conflicts.length} conflict(s): these requirements changed both in the files and in workspace "${result.workspace}" since the last sync. Nothing was written on either side.`,
  ];
  for (const c of result.conflicts) {
    lines.push("", `${c.index ?? "(new in the workspace)"} ↔ ${c.reference_id ?? "(new in the files)"}`);
    lines.push(side("files", c.local), side("workspace", c.hosted));
  }
  lines.push(
    "",
    "Resolve each one by making both sides say the same (edit the file with reqlix_update_requirement, or the",
    "workspace requirement), or undo the change on one side, then run push or pull again; or choose a winner",
    "for all of them: `reqlix-mcp push --force` (the files win) or `reqlix-mcp pull --force` (the workspace wins).",
  );
  return `${lines.join("\n")}\n`;
}

const LISTED = 20;

function list(label: string, items: string[]): string | undefined {
  if (items.length === 0) return undefined;
  const more = items.length > LISTED ? `, and ${items.length - LISTED} more (--json lists all)` : "";
  return `  ${label} (${items.length}): ${items.slice(0, LISTED).join(", ")}${more}`;
}

export function summary(result: SyncResult): string {
  const p = result.pushed;
  const q = result.pulled;
  const lines = [
    `reqlix-mcp ${result.action}: workspace "${result.workspace}" at ${result.url}: done.`,
    list("created", p.created),
    list("updated in the workspace", p.updated),
    list("made Obsolete", p.obsoleted),
    list("index set as external id", p.external_ids_set),
    list(
      "inserted",
      q.inserted.map((i) => `${i.index} (${i.reference_id})`),
    ),
    list("updated in the files", q.updated),
    list("deleted from the files", q.deleted),
    list("conflicts resolved by --force", result.forced),
    list("changed in the workspace, waiting for pull", result.waiting.pull),
    list("changed in the files, waiting for push", result.waiting.push),
    `  unchanged: ${result.unchanged}`,
  ];
  return `${lines.filter((l) => l !== undefined).join("\n")}\n`;
}

export interface BridgeCliIo {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
}

export async function runBridgeCli(command: BridgeCommand, argv: string[], io: BridgeCliIo): Promise<number> {
  let args: BridgeArgs;
  try {
    args = parseBridgeArgs(command, argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`reqlix-mcp ${command}: ${error.message}\n`);
    return 2;
  }
  if (args.help) {
    io.out(bridgeUsage(command));
    return 0;
  }
  const target = resolveTarget(args, io.env);
  if ("problems" in target) {
    io.err(`reqlix-mcp ${command}: ${target.problems.join("\n  ")}\n`);
    return 2;
  }
  try {
    const run = command === "push" ? push : pull;
    const result = await run({ projectRoot: io.cwd, env: io.env, target, force: args.force });
    if (args.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
    if (result.status === "conflict") {
      io.err(conflictReport(result));
      return 3;
    }
    if (!args.json) io.out(summary(result));
    return 0;
  } catch (error) {
    const message = redact(error instanceof Error ? error.message : String(error), target.token);
    io.err(`reqlix-mcp ${command}: ${message}\n`);
    return error instanceof BridgeUsageError ? 2 : 1;
  }
}
