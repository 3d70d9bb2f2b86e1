/**
 * `reqlix-mcp`: the stdio companion. One MCP server over stdin/stdout whose toolsets work on the files of
 * the working copy. Logs go to stderr only.
 */
import type { BaseContext } from "../core/registry.js";
import { compileRegistries } from "../protocol/compile.js";
import { createMcpServer } from "../protocol/mcp-server.js";
import { type BothErasConnection, serveBothEras } from "../protocol/modern/stdio-eras.js";
import { BRIDGE_COMMANDS, type BridgeCommand, runBridgeCli } from "./bridge/cli.js";
import { parseArgs, usage } from "./cli-args.js";
import type { LocalContext, LocalEnvironment } from "./context.js";
import { JsonRpcStdioServerTransport } from "./stdio-transport.js";
import { toolsets } from "./toolsets.js";
import { runTraceProcess } from "./trace/cli.js";

declare const __REQLIX_VERSION__: string | undefined;
const VERSION = typeof __REQLIX_VERSION__ === "string" ? __REQLIX_VERSION__ : "0.0.0-dev";

export interface CompanionOptions {
  /** Program name for --help and the MCP server name. */
  program: string;
  /** Toolsets to serve when --toolsets is not given (default: all). */
  defaultToolsets?: string[];
}

function log(message: string, fields?: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), msg: message, ...fields })}\n`);
}

export async function runCompanion(options: CompanionOptions): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "trace") {
    // `reqlix-mcp trace …`: the CI report, not the MCP server.
    await runTraceProcess(argv.slice(1));
    return;
  }
  if ((BRIDGE_COMMANDS as readonly string[]).includes(argv[0] ?? "")) {
    // `reqlix-mcp push|pull …`: the bridge to a hosted workspace, run in the project root.
    process.exitCode = await runBridgeCli(argv[0] as BridgeCommand, argv.slice(1), {
      cwd: process.cwd(),
      env: process.env,
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
    });
    return;
  }
  const defaults = options.defaultToolsets ?? Object.keys(toolsets);
  const parsed = parseArgs(options.program, argv, defaults);
  if (parsed.action === "error") {
    process.stderr.write(`${options.program}: ${parsed.message}\n`);
    process.exitCode = 2;
    return;
  }
  if (parsed.action === "help") {
    process.stdout.write(usage(options.program, defaults));
    return;
  }
  if (parsed.action === "version") {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const selected = parsed.toolsets;
  const environment: LocalEnvironment = { cwd: process.cwd(), env: process.env, log };
  const registries = selected.map((name) => (toolsets[name] as (typeof toolsets)[string])(environment));
  const compiled = compileRegistries(registries);
  const context = (base: BaseContext): LocalContext => ({ ...base, ...environment });
  const onInternalError = (error: unknown, where: string) => {
    log("internal error", {
      where,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return `Internal error in ${where}: ${error instanceof Error ? error.message : String(error)}`;
  };
  const server = createMcpServer<LocalContext>({
    name: options.program,
    version: VERSION,
    compiled,
    context,
    onInternalError,
  });
  // Answers unparsable lines with -32700 / -32600 instead of dropping them (knowledge-docsets REQ-8).
  const transport = new JsonRpcStdioServerTransport();
  let connection: BothErasConnection | undefined;
  const shutdown = async () => {
    await (connection ?? server).close().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  process.stdin.on("end", shutdown);
  // MCP 2026-07-28 (its first request carries the envelope) or the 2025 era (initialize), per connection.
  connection = await serveBothEras(transport, {
    legacy: server,
    modern: { compiled, serverInfo: { name: options.program, version: VERSION }, context, onInternalError },
    onerror: (error) => log("protocol error", { error: error.message }),
  });
  log("ready", { program: options.program, version: VERSION, toolsets: selected });
}
