/**
 * What the hosted tools/list costs a model, in tokens of a real tokenizer (js-tiktoken, o200k_base; the
 * cl100k_base count beside it): per toolset, the default list, and the full list, each as served now and
 * as it was served before the lean schemas (zod's JSON schema as emitted, every annotation), computed from
 * the same registry in the same run. Target: the default list ≤ 6,000 tokens (issue 12, item 6).
 *
 *   npx tsx bench/tools-list-tokens.ts
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getEncoding } from "js-tiktoken";
import * as z from "zod";
import { hostedRegistry } from "../src/hosted/registry.js";
import { type CompiledTool, compileRegistries, type ListedTool } from "../src/protocol/compile.js";
import { parseToolsets, selectTools } from "../src/protocol/tool-selection.js";

const TARGET = 6000;
/** The full hosted tools/list at commit e174c11 (before toolsets and lean schemas), o200k_base. */
const ORIGINAL_FULL = 34_795;
const o200k = getEncoding("o200k_base");
const cl100k = getEncoding("cl100k_base");

/** Tokens of a tools/list result as sent: `{"tools":[…]}`. */
export function listTokens(tools: ListedTool[], encoding = o200k): number {
  return encoding.encode(JSON.stringify({ tools })).length;
}

const compiled = compileRegistries([hostedRegistry]);

/** A tool as it was listed before the lean schemas: zod's output as is, the title and every hint. */
function unleaned(tool: CompiledTool<never>): ListedTool {
  const schema = (s: z.ZodType, io: "input" | "output") => {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Record<
      string,
      unknown
    >;
    return rest;
  };
  const { def } = tool;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: schema(def.input, "input"),
    annotations: { title: def.title, ...def.annotations },
    ...(def.output ? { outputSchema: schema(def.output, "output") } : {}),
  };
}

interface Row {
  list: string;
  tools: number;
  before: number;
  after: number;
  cl100k: number;
}

function row(list: string, names: Set<string>): Row {
  const chosen = [...compiled.tools.values()].filter((t) => names.has(t.def.name));
  const after = chosen.map((t) => t.listed);
  return {
    list,
    tools: chosen.length,
    before: listTokens(chosen.map((t) => unleaned(t as CompiledTool<never>))),
    after: listTokens(after),
    cl100k: listTokens(after, cl100k),
  };
}

const names = (toolsets: string[], role?: "viewer" | "editor" | "admin") =>
  new Set(selectTools(compiled, { toolsets, ...(role ? { role } : {}) }).tools.map((t) => t.name));

const defaults = parseToolsets(compiled.toolsets, undefined);
const rows: Row[] = [
  ...compiled.toolsets.map((s) => row(`toolset ${s.name}${s.default ? " (default)" : ""}`, names([s.name]))),
  row(`default (${defaults.join(", ")}), editor or admin`, names(defaults, "admin")),
  row("default, viewer", names(defaults, "viewer")),
  row(
    "default, read-only",
    new Set(selectTools(compiled, { toolsets: defaults, readOnly: true }).tools.map((t) => t.name)),
  ),
  row("full list (all toolsets)", names(parseToolsets(compiled.toolsets, "all"))),
];
const full = rows[rows.length - 1] as Row;
const defaultRow = rows.find((r) => r.list.startsWith("default (")) as Row;

const lines = [
  "# hosted tools/list in tokens",
  "",
  `${new Date().toISOString()}; o200k_base (js-tiktoken) unless noted; before = the same tools as listed before the lean schemas (zod's schema as emitted, the title and every hint in annotations).`,
  "",
  "| list | tools | before | after | after ÷ before | after, cl100k_base | share of the full list |",
  "|---|---:|---:|---:|---:|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.list} | ${r.tools} | ${r.before} | ${r.after} | ${(r.after / r.before).toFixed(2)} | ${r.cl100k} | ${((100 * r.after) / full.after).toFixed(0)}% |`,
  ),
  "",
  `Default list: ${defaultRow.after} tokens (target ≤ ${TARGET}: ${defaultRow.after <= TARGET ? "met" : "NOT met"}), ${((100 * defaultRow.after) / full.after).toFixed(0)}% of the full list of ${full.after}, which is what every connection got before toolsets.`,
  `(Before this work, at commit e174c11, the full list was ${ORIGINAL_FULL} tokens: the "before" column above already has this work's shorter descriptions and write outputs, only not the lean pass.)`,
];
const text = `${lines.join("\n")}\n`;
process.stdout.write(text);
const out = join(import.meta.dirname, "results");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "tools-list-tokens.md"), text);
writeFileSync(join(out, "tools-list-tokens.json"), `${JSON.stringify({ target: TARGET, rows }, null, 2)}\n`);
