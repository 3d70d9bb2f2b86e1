/**
 * The companion's command line: the flags it accepts, their validation and its --help text. Anything it
 * does not know is refused (exit 2) rather than ignored: a mistyped `--toolset reqlix` used to start every
 * toolset silently (hardening #13).
 */
import { toolsets } from "./toolsets.js";

/** The npm package that ships every companion command (for the example configuration). */
const PACKAGE = "reqlix-mcp";

const SUMMARIES: Record<string, string> = {
  reqlix: "requirements kept as markdown in the repository (reqlix_* tools)",
  knowledge: "local documentation sets from .knowledge/config.yaml (search_docs, list_docsets)",
  ixchel: "a markdown knowledge graph under .ixchel/ (ixchel_* tools)",
  trace: "requirement ids cited in code, tests and commits (trace_* tools)",
};

interface Flag {
  name: string;
  alias?: string;
  value?: string;
  help: string;
}

function flags(defaults: string[]): Flag[] {
  return [
    {
      name: "--toolsets",
      value: "<list>",
      help: `Comma-separated toolsets to serve (default: ${defaults.join(",")}).`,
    },
    { name: "--version", alias: "-v", help: "Print the version and exit." },
    { name: "--help", alias: "-h", help: "Print this help and exit." },
  ];
}

export type ParsedArgs =
  | { action: "help" }
  | { action: "version" }
  | { action: "serve"; toolsets: string[] }
  | { action: "error"; message: string };

export function usage(program: string, defaults: string[]): string {
  const all = flags(defaults);
  const left = (f: Flag) => `${f.alias ? `${f.alias}, ` : "    "}${f.name}${f.value ? ` ${f.value}` : ""}`;
  const width = Math.max(...all.map((f) => left(f).length)) + 2;
  const names = Object.keys(toolsets);
  const nameWidth = Math.max(...names.map((n) => n.length)) + 2;
  const args = program === PACKAGE ? `-y ${PACKAGE}` : `-y -p ${PACKAGE} ${program}`;
  const traceLine =
    program === PACKAGE
      ? `\n       ${program} trace [--format table|json|markdown|junit] [--fail-on …] [--push URL --token T]   (trace --help)` +
        `\n       ${program} push|pull [--url U --token T --workspace W]   (push --help)`
      : "";
  return `Usage: ${program} [--toolsets <list>] [--version] [--help]${traceLine}

An MCP server over stdio that gives an AI coding assistant file-based tools over the working copy.

Options:
${all.map((f) => `  ${left(f).padEnd(width)}${f.help}`).join("\n")}

Toolsets (default: ${defaults.join(",")}):
${names.map((n) => `  ${n.padEnd(nameWidth)}${SUMMARIES[n] ?? ""}`.trimEnd()).join("\n")}

Environment:
  REQLIX_REQ_REL_PATH        Requirements folder relative to the project root (reqlix toolset).
  IXCHEL_EMBEDDINGS_URL      OpenAI-compatible /embeddings endpoint for hybrid ixchel search (optional).
  IXCHEL_EMBEDDINGS_MODEL    Model name sent to that endpoint.
  IXCHEL_EMBEDDINGS_API_KEY  Bearer token for that endpoint (optional).

Example client configuration (from a checkout, after npm run build; once published: npx ${args}):
  { "mcpServers": { "${program}": { "command": "node", "args": ["/path/to/reqlix/dist/${program}.js"] } } }
`;
}

/** Edit distance, for "did you mean". */
export function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] as number) + 1,
        (next[j - 1] as number) + 1,
        (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] as number;
}

function validList(all: Flag[]): string {
  return all
    .map((f) => `${f.name}${f.value ? ` ${f.value}` : ""}${f.alias ? ` (${f.alias})` : ""}`)
    .join(", ");
}

function refuse(program: string, all: Flag[], problem: string): ParsedArgs {
  return {
    action: "error",
    message: `${problem}\nValid options: ${validList(all)}. Run \`${program} --help\` for details.`,
  };
}

export function parseToolsetList(value: string): string[] {
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new Error("--toolsets needs a comma-separated list, e.g. --toolsets reqlix,knowledge");
  const unknown = names.filter((n) => !(n in toolsets));
  if (unknown.length > 0) {
    throw new Error(
      `Unknown toolset(s): ${unknown.join(", ")}. Available: ${Object.keys(toolsets).join(", ")}`,
    );
  }
  return names;
}

/** Validates the whole command line before anything runs: an unknown flag wins over --help. */
export function parseArgs(program: string, argv: string[], defaults: string[]): ParsedArgs {
  const all = flags(defaults);
  let action: "help" | "version" | undefined;
  let list: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const flag = all.find((f) => f.name === name || f.alias === name);
    if (!flag) {
      if (!arg.startsWith("-")) return refuse(program, all, `unexpected argument "${arg}".`);
      const near = all.find(
        (f) => distance(name, f.name) <= 2 || (name.length > 3 && f.name.startsWith(name)),
      );
      return refuse(program, all, `unknown option ${name}.${near ? ` Did you mean ${near.name}?` : ""}`);
    }
    if (!flag.value) {
      if (eq !== -1) return refuse(program, all, `${flag.name} takes no value.`);
      action ??= flag.name === "--help" ? "help" : "version";
      continue;
    }
    if (list !== undefined) return refuse(program, all, `${flag.name} is given twice.`);
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value.startsWith("-")) {
      return refuse(
        program,
        all,
        `${flag.name} needs a value: ${flag.name} ${flag.value}, e.g. --toolsets reqlix,knowledge.`,
      );
    }
    list = value;
  }
  if (action) return { action };
  if (list === undefined) return { action: "serve", toolsets: defaults };
  try {
    return { action: "serve", toolsets: parseToolsetList(list) };
  } catch (error) {
    return { action: "error", message: (error as Error).message };
  }
}
