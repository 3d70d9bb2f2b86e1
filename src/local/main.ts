/**
 * `reqlix-mcp`: the stdio companion. One MCP server over stdin/stdout whose toolsets work on the files of
 * the working copy. Logs go to stderr only.
 */
import { compileRegistries } from "../protocol/compile.js";
import { createMcpServer } from "../protocol/mcp-server.js";
import type { LocalContext, LocalEnvironment } from "./context.js";
import { JsonRpcStdioServerTransport } from "./stdio-transport.js";
import { toolsets } from "./toolsets.js";
import { runTraceCli } from "./trace/cli.js";

declare const __REQLIX_VERSION__: string | undefined;
const VERSION = typeof __REQLIX_VERSION__ === "string" ? __REQLIX_VERSION__ : "0.0.0-dev";

export interface CompanionOptions {
  /** Program name for --help and the MCP server name. */
  program: string;
  /** Toolsets to serve when --toolsets is not given (default: all). */
  defaultToolsets?: string[];
}

function usage(program: string, defaults?: string[]): string {
  const names = Object.keys(toolsets).join(",");
  const defaultList = defaults ? defaults.join(",") : names || "all";
  return `Usage: ${program} [--toolsets ${names || "<list>"}] [--help] [--version]
       ${program} trace [--format table|json|markdown|junit] [--fail-on …] [--push URL --token T]   (trace --help)

An MCP server over stdio that gives an AI coding assistant file-based tools over the working copy.

Options:
  --toolsets <list>  Comma-separated toolsets to enable (default: ${defaultList}).
  --version          Print the version and exit.
  --help             Print this help and exit.

Environment:
  REQLIX_REQ_REL_PATH      Requirements folder relative to the project root (reqlix toolset).
  IXCHEL_EMBEDDINGS_URL    OpenAI-compatible /embeddings endpoint for hybrid ixchel search (optional).
  IXCHEL_EMBEDDINGS_MODEL  Model name sent to that endpoint.

Example client configuration:
  { "mcpServers": { "reqlix": { "command": "npx", "args": ["-y", "reqlix-mcp"] } } }
`;
}

function log(message: string, fields?: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), msg: message, ...fields })}\n`);
}

export function parseToolsets(argv: string[], defaults: string[]): string[] {
  const i = argv.findIndex((a) => a === "--toolsets" || a.startsWith("--toolsets="));
  if (i === -1) return defaults;
  const arg = argv[i] as string;
  const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[i + 1];
  if (!value) throw new Error("--toolsets needs a comma-separated list, e.g. --toolsets reqlix,knowledge");
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(n in toolsets));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown toolset(s): ${unknown.join(", ")}. Available: ${Object.keys(toolsets).join(", ")}`,
    );
  }
  return names;
}

export async function runCompanion(options: CompanionOptions): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "trace") {
    // `reqlix-mcp trace …`: the CI report, not the MCP server.
    process.exitCode = await runTraceCli(argv.slice(1), {
      cwd: process.cwd(),
      env: process.env,
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
    });
    return;
  }
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(usage(options.program, options.defaultToolsets));
    return;
  }
  if (argv.includes("--version") || argv.includes("-v")) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  let selected: string[];
  try {
    selected = parseToolsets(argv, options.defaultToolsets ?? Object.keys(toolsets));
  } catch (error) {
    process.stderr.write(`${options.program}: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const environment: LocalEnvironment = { cwd: process.cwd(), env: process.env, log };
  const registries = selected.map((name) => (toolsets[name] as (typeof toolsets)[string])(environment));
  const compiled = compileRegistries(registries);
  const server = createMcpServer<LocalContext>({
    name: options.program,
    version: VERSION,
    compiled,
    context: (base) => ({ ...base, ...environment }),
    onInternalError(error, where) {
      log("internal error", {
        where,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      return `Internal error in ${where}: ${error instanceof Error ? error.message : String(error)}`;
    },
  });
  // Answers unparsable lines with -32700 / -32600 instead of dropping them (knowledge-docsets REQ-8).
  const transport = new JsonRpcStdioServerTransport();
  const shutdown = async () => {
    await server.close().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  process.stdin.on("end", shutdown);
  await server.connect(transport);
  log("ready", { program: options.program, version: VERSION, toolsets: selected });
}
