/**
 * The README's reqlix tool table, rendered from the registry (STYLE: generated, and a test fails when the
 * README is stale). Print it with `npx tsx test/local/reqlix/tool-table.ts`.
 */

import { reqlixRegistry } from "../../../src/local/reqlix/registry.js";
import { compileRegistries, type ListedTool } from "../../../src/protocol/compile.js";

interface Prop {
  maxLength?: number;
  maxItems?: number;
  type?: string;
  anyOf?: Prop[];
}

function param(name: string, prop: Prop, required: boolean): string {
  const max = prop.maxLength ?? prop.anyOf?.find((p) => p.maxLength !== undefined)?.maxLength;
  const list = prop.anyOf?.find((p) => p.type === "array")?.maxItems;
  return `\`${name}\`${required ? "" : "?"}${max === undefined ? "" : ` ≤ ${max}`}${list === undefined ? "" : ` (or a list of ≤ ${list})`}`;
}

function row(tool: ListedTool): string {
  const schema = tool.inputSchema as { properties?: Record<string, Prop>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const params = Object.entries(schema.properties ?? {})
    .filter(([name]) => name !== "project_root" && name !== "operation_description")
    .map(([name, prop]) => param(name, prop, required.has(name)))
    .join(", ");
  const what = (tool.description.split("\n")[0] ?? "").trim().replaceAll("|", "\\|");
  const hints = tool.annotations as { readOnlyHint?: boolean; destructiveHint?: boolean };
  const kind = hints.readOnlyHint ? "read" : hints.destructiveHint ? "write (destructive)" : "write";
  return `| \`${tool.name}\` | ${kind} | ${params || "—"} | ${what} |`;
}

export function reqlixToolTable(): string {
  const compiled = compileRegistries([reqlixRegistry({ cwd: "/", env: {}, log: () => {} })]);
  return [
    "| tool | kind | parameters (besides `project_root` ≤ 1000, `operation_description` ≤ 10000) | what it does |",
    "|---|---|---|---|",
    ...compiled.toolList.map(row),
  ].join("\n");
}

if (process.argv[1]?.endsWith("tool-table.ts")) console.log(reqlixToolTable());
