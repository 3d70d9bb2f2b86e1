/**
 * Generates the README's tables of the hosted server's tools, resource templates and prompts from the
 * registry itself (STYLE: the README's tool list is generated; CI fails when it is stale).
 *
 *   npm run docs:tools   rewrite the tables in README.md
 *   npm run docs:check   exit 1 when README.md is stale (also a test in `npm test`)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { BaseContext } from "../src/core/registry.js";
import { hostedRegistry } from "../src/hosted/registry.js";
import { type CompiledRegistry, compileRegistries } from "../src/protocol/compile.js";

export const README = resolve(import.meta.dirname, "../README.md");
export const BEGIN = "<!-- generated: hosted tools (npm run docs:tools) -->";
export const END = "<!-- /generated: hosted tools -->";

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

function argumentsOf(schema: Record<string, unknown>): string {
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set((schema.required as string[] | undefined) ?? []);
  if (properties.length === 0) return "—";
  return properties.map((p) => `\`${p}${required.has(p) ? "" : "?"}\``).join(", ");
}

function access(annotations: Record<string, unknown>): string {
  if (annotations.readOnlyHint) return "read";
  return annotations.destructiveHint ? "write (overwrites/removes)" : "write";
}

export function renderToolDocs<Ctx extends BaseContext>(compiled: CompiledRegistry<Ctx>): string {
  const lines = [
    BEGIN,
    "",
    `**Tools** (${compiled.toolList.length}; \`?\` marks an optional argument; viewers may call the read tools, comment, and manage their own tokens)`,
    "",
    "| Tool | Toolset | Access | What it does | Arguments |",
    "|---|---|---|---|---|",
    ...[...compiled.tools.values()].map(
      ({ listed: t, toolset }) =>
        `| \`${t.name}\` | ${toolset ?? "—"} | ${access(t.annotations)} | ${cell(firstSentence(t.description))} | ${argumentsOf(t.inputSchema)} |`,
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
  lines.push("", END);
  return lines.join("\n");
}

/** README text with the generated block replaced; throws when the markers are missing. */
export function withGeneratedDocs(readme: string, block: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin === -1 || end === -1 || end < begin) {
    throw new Error(`README.md must contain the markers ${BEGIN} and ${END} (in the hosted-mcp section)`);
  }
  return readme.slice(0, begin) + block + readme.slice(end + END.length);
}

export function expectedReadme(readme: string): string {
  return withGeneratedDocs(readme, renderToolDocs(compileRegistries([hostedRegistry])));
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
