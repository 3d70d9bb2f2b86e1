/**
 * Generates every tool table of the README from the registries themselves (STYLE: the README's tool lists
 * are generated; CI fails when one is stale): the hosted server's tools, resource templates and prompts,
 * and one table per companion toolset (src/local/toolsets.ts), each between its own markers.
 *
 *   npm run docs:tools   rewrite the tables in README.md
 *   npm run docs:check   exit 1 when README.md is stale (also a test in `npm test`)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { BaseContext } from "../src/core/registry.js";
import { hostedRegistry } from "../src/hosted/registry.js";
import { toolsets } from "../src/local/toolsets.js";
import { type CompiledRegistry, compileRegistries, type ListedTool } from "../src/protocol/compile.js";

export const README = resolve(import.meta.dirname, "../README.md");

/** The markers around the generated block of one toolset (`hosted`, or a companion toolset's name). */
export function markers(key: string): { begin: string; end: string } {
  return {
    begin: `<!-- generated: ${key} tools (npm run docs:tools) -->`,
    end: `<!-- /generated: ${key} tools -->`,
  };
}

export const BEGIN = markers("hosted").begin;
export const END = markers("hosted").end;

function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
}

/** The first sentence: what the tool is for, without the longer guidance meant for the model. */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const end = /[.!?](?=\s|$)/g;
  for (let m = end.exec(flat); m; m = end.exec(flat)) {
    const before = flat.slice(0, m.index);
    // "e.g." and "i.e." end no sentence; neither does a period inside parentheses.
    if (/\b(e\.g|i\.e|etc|vs)$/i.test(before)) continue;
    if ((before.match(/\(/g) ?? []).length > (before.match(/\)/g) ?? []).length) continue;
    return flat.slice(0, m.index + 1);
  }
  return flat;
}

function propertiesOf(tool: ListedTool): string[] {
  return Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
}

/** Arguments every tool of a toolset takes (`project_root` in reqlix): named once above its table. */
function commonArguments(tools: ListedTool[]): string[] {
  if (tools.length < 2) return [];
  const [first, ...rest] = tools.map(propertiesOf);
  return (first ?? []).filter((p) => rest.every((props) => props.includes(p)));
}

/** The first tool's schema narrowed to `names` (whether each is required reads as there). */
function commonSchema(tools: ListedTool[], names: string[]): Record<string, unknown> {
  const schema = tools[0]?.inputSchema ?? {};
  const properties = (schema.properties as Record<string, unknown> | undefined) ?? {};
  return {
    properties: Object.fromEntries(names.map((n) => [n, properties[n]])),
    required: ((schema.required as string[] | undefined) ?? []).filter((r) => names.includes(r)),
  };
}

function argumentsOf(schema: Record<string, unknown>, skip: string[] = []): string {
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {}).filter(
    (p) => !skip.includes(p),
  );
  const required = new Set((schema.required as string[] | undefined) ?? []);
  if (properties.length === 0) return "—";
  return properties.map((p) => `\`${p}${required.has(p) ? "" : "?"}\``).join(", ");
}

function access(annotations: Record<string, unknown>): string {
  if (annotations.readOnlyHint) return "read";
  return annotations.destructiveHint ? "write (overwrites/removes)" : "write";
}

/** What the header of a block says besides the count: who may call what (hosted), or nothing. */
export interface BlockOptions {
  key: string;
  note?: string;
}

export function renderToolDocs<Ctx extends BaseContext>(
  compiled: CompiledRegistry<Ctx>,
  options: BlockOptions = { key: "hosted", note: HOSTED_NOTE },
): string {
  const common = commonArguments(compiled.toolList);
  const notes = [
    "`?` marks an optional argument",
    ...(common.length > 0
      ? [`every tool also takes ${argumentsOf(commonSchema(compiled.toolList, common))}`]
      : []),
    ...(options.note ? [options.note] : []),
  ];
  const { begin, end } = markers(options.key);
  const withToolsets = compiled.toolsets.length > 0;
  const lines = [
    begin,
    "",
    `**Tools** (${compiled.toolList.length}; ${notes.join("; ")})`,
    "",
    // The Toolset column only where a connection chooses toolsets (hosted); a companion serves all its tools.
    withToolsets
      ? "| Tool | Toolset | Access | What it does | Arguments |"
      : "| Tool | Access | What it does | Arguments |",
    withToolsets ? "|---|---|---|---|---|" : "|---|---|---|---|",
    ...[...compiled.tools.values()].map(
      ({ listed: t, toolset }) =>
        `| \`${t.name}\` |${withToolsets ? ` ${toolset ?? "—"} |` : ""} ${access(t.annotations)} | ${cell(firstSentence(t.description))} | ${argumentsOf(t.inputSchema, common)} |`,
    ),
  ];
  if (compiled.toolsets.length > 0) {
    lines.push(
      "",
      "**Toolsets** (`?toolsets=` on the URL or `X-MCP-Toolsets`; `default` and `all` also work)",
      "",
      "| Toolset | Default | What it holds |",
      "|---|---|---|",
      ...compiled.toolsets.map(
        (s) =>
          `| \`${s.name}\` | ${s.default ? "yes" : "no"} | ${cell(s.description)} (${s.tools.length} tools) |`,
      ),
    );
  }
  if (compiled.resources.length > 0) {
    lines.push(
      "",
      "**Resource templates** (`resources/read`)",
      "",
      "| URI | Type | What it returns |",
      "|---|---|---|",
      ...compiled.resources.map(
        (r) => `| \`${r.uriTemplate}\` | ${r.mimeType} | ${cell(firstSentence(r.description))} |`,
      ),
    );
  }
  if (compiled.prompts.size > 0) {
    lines.push(
      "",
      "**Prompts** (`prompts/get`)",
      "",
      "| Prompt | What it does | Arguments |",
      "|---|---|---|",
      ...[...compiled.prompts.values()].map(
        (p) =>
          `| \`${p.name}\` | ${cell(firstSentence(p.description))} | ${
            p.arguments.map((a) => `\`${a.name}${a.required ? "" : "?"}\``).join(", ") || "—"
          } |`,
      ),
    );
  }
  lines.push("", end);
  return lines.join("\n");
}

const HOSTED_NOTE = "viewers may call the read tools, comment, and manage their own tokens";

/** Every generated block: the hosted registry, then each companion toolset as `reqlix-mcp` builds it. */
export function renderAllBlocks(): { key: string; block: string }[] {
  // Building a companion registry touches no file: the environment is only read when a tool runs.
  const env = { cwd: "/", env: {}, log() {} };
  return [
    { key: "hosted", block: renderToolDocs(compileRegistries([hostedRegistry])) },
    ...Object.entries(toolsets).map(([key, build]) => ({
      key,
      block: renderToolDocs(compileRegistries([build(env)]), { key }),
    })),
  ];
}

/** README text with the generated block of `key` replaced; throws when its markers are missing. */
export function withGeneratedDocs(readme: string, block: string, key = "hosted"): string {
  const { begin: BEGIN, end: END } = markers(key);
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin === -1 || end === -1 || end < begin) {
    throw new Error(
      `README.md must contain the markers ${BEGIN} and ${END} (in the section of that toolset)`,
    );
  }
  return readme.slice(0, begin) + block + readme.slice(end + END.length);
}

export function expectedReadme(readme: string): string {
  return renderAllBlocks().reduce((text, { key, block }) => withGeneratedDocs(text, block, key), readme);
}

function main(): void {
  const current = readFileSync(README, "utf8");
  const expected = expectedReadme(current);
  if (process.argv.includes("--check")) {
    if (current !== expected) {
      process.stderr.write(
        "README.md's tool tables are stale: run `npm run docs:tools` and commit README.md.\n",
      );
      process.exit(1);
    }
    process.stdout.write("README.md's tool tables match the registry.\n");
    return;
  }
  if (current !== expected) writeFileSync(README, expected);
  process.stdout.write(
    current === expected ? "README.md already up to date.\n" : "README.md tool tables regenerated.\n",
  );
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
