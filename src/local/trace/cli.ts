/**
 * `reqlix-mcp trace`: the trace matrix for CI. Exit codes: 0 printed and every chosen gate passed; 1 a gate
 * failed; 2 bad usage (unknown flag, bad value, malformed .reqlix/trace.yaml, token refused, snapshot
 * rejected); 3 could not finish (server unreachable or failing, file system).
 */
import { basename } from "node:path";
import { DomainError } from "../../core/errors.js";
import { checkProjectRoot } from "../reqlix/paths.js";
import { type HostedTarget, pushSnapshot } from "./hosted.js";
import { buildIndex, HostedResolver } from "./index-model.js";
import { FORMATS, type Format, type Matrix, render } from "./report.js";
import { scanProject } from "./scan.js";
import { snapshotBody } from "./snapshot.js";

export const GATES = ["uncovered", "impl_only", "test_only", "orphan", "suspect"] as const;
type Gate = (typeof GATES)[number];

export const TRACE_USAGE = `Usage: reqlix-mcp trace [options]

Scans the working copy for requirement citations (REQ-012, US-3, G.GI.3, pinned as REQ-012@3) and prints
the coverage matrix. Configuration: .reqlix/trace.yaml (see the README).

Options:
  --format table|json|markdown|junit   Output format (default: table).
  --fail-on <list>      Exit 1 when any of: uncovered, impl_only, test_only, orphan, suspect.
  --status <list>       Only requirements with these statuses (e.g. Active); local ones are Active.
  --root <dir>          Project root (default: the current directory).
  --url <url>           Hosted reqlix server, to resolve hosted ids (default: $REQLIX_URL).
  --token <token>       Its personal access token (default: $REQLIX_TOKEN).
  --push <url>          Also send the snapshot to this server (POST /api/v1/traces); implies --url.
  --repo <name>         Repository name for --push (default: the root folder's name).
  --commit <sha>        Commit for --push (default: HEAD).
  --help                Print this help.

Exit codes: 0 ok, 1 a --fail-on gate failed, 2 bad usage or input, 3 could not finish.
`;

class UsageError extends Error {}

interface Args {
  format: Format;
  failOn: Gate[];
  status: string[] | undefined;
  root: string;
  url: string | undefined;
  token: string | undefined;
  push: string | undefined;
  repo: string | undefined;
  commit: string | undefined;
  help: boolean;
}

const VALUED = [
  "--format",
  "--fail-on",
  "--status",
  "--root",
  "--url",
  "--token",
  "--push",
  "--repo",
  "--commit",
];

function list(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function parseTraceArgs(
  argv: string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): Args {
  const values = new Map<string, string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUED.includes(name))
      throw new UsageError(`unknown option "${arg}". Run reqlix-mcp trace --help for the options.`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("--")))
      throw new UsageError(`${name} needs a value. Run reqlix-mcp trace --help for the options.`);
    if (values.has(name)) throw new UsageError(`${name} is given twice.`);
    values.set(name, value);
  }
  const format = (values.get("--format") ?? "table") as Format;
  if (!FORMATS.includes(format))
    throw new UsageError(`--format "${format}" is not one of ${FORMATS.join(", ")}.`);
  const failOn = list(values.get("--fail-on") ?? "") as Gate[];
  const bad = failOn.filter((g) => !GATES.includes(g));
  if (bad.length > 0)
    throw new UsageError(`--fail-on: unknown gate(s) ${bad.join(", ")}. Choose from ${GATES.join(", ")}.`);
  if (values.has("--fail-on") && failOn.length === 0)
    throw new UsageError(`--fail-on needs gates: ${GATES.join(", ")}.`);
  const push = values.get("--push");
  const url = push ?? values.get("--url") ?? env.REQLIX_URL?.trim() ?? undefined;
  const token = values.get("--token") ?? env.REQLIX_TOKEN?.trim() ?? undefined;
  for (const [flag, u] of [
    ["--push", push],
    ["--url", values.get("--url")],
  ] as const) {
    if (u !== undefined && !/^https?:\/\/[^\s/]+/.test(u))
      throw new UsageError(`${flag} "${u}" must be an http(s) URL, e.g. https://reqlix.example.com.`);
  }
  if (push && !token)
    throw new UsageError("--push needs --token (or REQLIX_TOKEN): a personal access token of an editor.");
  if (!push && (values.has("--repo") || values.has("--commit")))
    throw new UsageError("--repo and --commit go with --push.");
  const repo = values.get("--repo");
  if (repo !== undefined && (repo.length < 1 || repo.length > 200))
    throw new UsageError("--repo must be 1–200 characters.");
  const commit = values.get("--commit");
  if (commit !== undefined && !/^[0-9a-fA-F]{7,64}$/.test(commit))
    throw new UsageError(`--commit "${commit}" must be 7–64 hexadecimal characters.`);
  const status = values.has("--status") ? list(values.get("--status") as string) : undefined;
  if (status && status.length === 0) throw new UsageError("--status needs statuses, e.g. --status Active.");
  return {
    format,
    failOn,
    status,
    root: values.get("--root") ?? cwd,
    url: url || undefined,
    token: token || undefined,
    push,
    repo,
    commit,
    help,
  };
}

export interface TraceCliIo {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
}

/** Runs the CLI; returns the exit code. */
export async function runTraceCli(argv: string[], io: TraceCliIo): Promise<number> {
  let args: Args;
  try {
    args = parseTraceArgs(argv, io.cwd, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`reqlix-mcp trace: ${error.message}\n`);
    return 2;
  }
  if (args.help) {
    io.out(TRACE_USAGE);
    return 0;
  }
  try {
    const root = await checkProjectRoot(args.root.startsWith("/") ? args.root : `${io.cwd}/${args.root}`);
    const target: HostedTarget | undefined =
      args.url && args.token ? { url: args.url, token: args.token } : undefined;
    const scan = await scanProject(root, { env: io.env, persist: true });
    const index = await buildIndex(scan, new HostedResolver(target));
    if (target && index.hosted_error) throw hostedFailure(index.hosted_error);
    const statuses = args.status?.map((s) => s.toLowerCase());
    const keep = (status: string | null) =>
      !statuses || (status !== null && statuses.includes(status.toLowerCase()));
    const rows = index.coverage.rows.filter((r) => keep(r.status));
    const suspects = index.coverage.suspects.filter((c) => keep(index.info.get(c.id)?.status ?? null));
    const summary: Record<string, number> = { covered: 0, impl_only: 0, test_only: 0, uncovered: 0 };
    for (const r of rows) summary[r.coverage] = (summary[r.coverage] ?? 0) + 1;
    summary.orphan = index.coverage.orphans.length;
    summary.suspect = suspects.length;
    summary.unknown = rows.filter((r) => r.exists === null).length;
    const failed = args.failOn.filter((g) =>
      g === "orphan" || g === "suspect" ? (summary[g] ?? 0) > 0 : (summary[g] ?? 0) > 0,
    );
    const matrix: Matrix = {
      summary,
      rows,
      orphans: index.coverage.orphans,
      suspects,
      gates: { checked: args.failOn, failed },
      scan: { files: scan.files, skipped: scan.skipped, scanned_at: scan.scanned_at, git: scan.git },
      hosted_error: index.hosted_error,
    };
    if (args.push && target) {
      const commit = args.commit ?? scan.head.sha;
      if (!commit)
        throw DomainError.invalid("--push needs --commit: this folder has no git HEAD to take it from.");
      matrix.push = await pushSnapshot(
        target,
        snapshotBody(index, {
          repository: args.repo ?? basename(root),
          commit: commit.toLowerCase(),
          branch: scan.head.branch,
        }),
      );
      if (args.format !== "json") io.err(`Pushed snapshot: ${JSON.stringify(matrix.push)}\n`);
    }
    io.out(render(matrix, args.format));
    return failed.length > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof DomainError) {
      io.err(`reqlix-mcp trace: ${error.message}\n`);
      return error.code === "unavailable" || error.code === "internal" ? 3 : 2;
    }
    io.err(`reqlix-mcp trace: ${(error as Error).message}\n`);
    return 3;
  }
}

/** The CLI over this process's arguments, folder, environment and standard streams; sets the exit code. */
export async function runTraceProcess(argv: string[]): Promise<void> {
  // A reader that stops early (`| head`) closes the pipe: the rest of the report has nowhere to go, which is
  // neither the scan's failure nor a crash; the exit code stays the gates'.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
  process.exitCode = await runTraceCli(argv, {
    cwd: process.cwd(),
    env: process.env,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
}

function hostedFailure(message: string): DomainError {
  if (/\(401/.test(message)) return new DomainError("unauthorized", message);
  if (/\(403/.test(message)) return DomainError.forbidden(message);
  return new DomainError("unavailable", message);
}
