/**
 * Which tools one connection sees and may call: its toolsets, read-only mode and the caller's role, applied
 * to the compiled registry by one pure function that every face calls where it lists tools and where it
 * checks a call. Whether a tool writes is the registry's `readOnlyHint`, and who may call it the tool's
 * `role`: never its name.
 */
import { DomainError } from "../core/errors.js";
import type { BaseContext, ToolsetInfo } from "../core/registry.js";
import { type Role, roleAtLeast } from "../core/roles.js";
import type { CompiledRegistry, CompiledTool, ListedTool } from "./compile.js";

export interface ToolScope {
  /** The connection's toolsets (names resolved by `parseToolsets`); absent: every tool. */
  toolsets?: readonly string[];
  /** A read-only connection: no tool that writes is listed or called. */
  readOnly?: boolean;
  /** The caller's role: a tool whose `role` is above it is not listed (its handler refuses a call). */
  role?: Role;
  /**
   * False when the caller's credential may not write at all (an OAuth token granted only `reqlix:read`):
   * no tool that writes is listed; the handler refuses a call, naming the scope (hosted/access.ts).
   */
  mayWrite?: boolean;
}

/** What the selection reads of a compiled tool: registry data only. */
type Selectable = Pick<CompiledTool<BaseContext>, "toolset"> & {
  def: Pick<CompiledTool<BaseContext>["def"], "name" | "annotations" | "role">;
};

export interface ToolSelection {
  /** What `tools/list` answers. */
  tools: ListedTool[];
  /** Why this connection may not call the tool, or undefined when it may (the role is the handler's check). */
  refusal(tool: Selectable): DomainError | undefined;
}

/** A tool writes unless the registry says it only reads. */
export function writes(tool: Selectable): boolean {
  return tool.def.annotations.readOnlyHint !== true;
}

const READ_ONLY_HOW = "/mcp/readonly, /api/v1/mcp/readonly or the header X-MCP-Readonly: true";

export function selectTools<Ctx extends BaseContext>(
  compiled: CompiledRegistry<Ctx>,
  scope: ToolScope,
): ToolSelection {
  const enabled = scope.toolsets ? new Set(scope.toolsets) : undefined;
  const inToolsets = (t: Selectable) => !enabled || t.toolset === undefined || enabled.has(t.toolset);
  const refusal = (t: Selectable): DomainError | undefined => {
    if (!inToolsets(t)) {
      const on = [...(enabled ?? [])].join(",");
      return DomainError.invalid(
        `Tool "${t.def.name}" is in toolset "${t.toolset}", which this connection does not enable (enabled: ${on || "none"}). ` +
          `Add it to the connection: ?toolsets=${on ? `${on},` : ""}${t.toolset} on the URL or the header X-MCP-Toolsets.`,
        [{ field: "name", message: `toolset "${t.toolset}" is not enabled` }],
      );
    }
    if (scope.readOnly && writes(t)) {
      return DomainError.forbidden(
        `Forbidden: ${t.def.name} writes, and this connection is read-only (${READ_ONLY_HOW}). ` +
          "Connect without read-only mode to write, or use read tools.",
      );
    }
    return undefined;
  };
  const roleAllows = (t: Selectable) => !scope.role || !t.def.role || roleAtLeast(scope.role, t.def.role);
  const scopeAllows = (t: Selectable) => scope.mayWrite !== false || !writes(t);
  const tools = [...compiled.tools.values()]
    .filter((t) => refusal(t) === undefined && roleAllows(t) && scopeAllows(t))
    .map((t) => t.listed);
  return { tools, refusal };
}

const selections = new WeakMap<object, Map<string, ToolSelection>>();
/** The same scope object asks again without its key being built (faces reuse scope objects: faces-common.ts). */
const byScopeObject = new WeakMap<ToolScope, { compiled: object; selection: ToolSelection }>();

/** `selectTools`, remembered per compiled registry and scope: a face asks once per request. */
export function selectionFor<Ctx extends BaseContext>(
  compiled: CompiledRegistry<Ctx>,
  scope: ToolScope = {},
): ToolSelection {
  const known = byScopeObject.get(scope);
  if (known?.compiled === compiled) return known.selection;
  const selection = selectionByKey(compiled, scope);
  byScopeObject.set(scope, { compiled, selection });
  return selection;
}

function selectionByKey<Ctx extends BaseContext>(
  compiled: CompiledRegistry<Ctx>,
  scope: ToolScope,
): ToolSelection {
  const key = `${scope.toolsets?.join(",") ?? "*"}|${scope.readOnly === true}|${scope.role ?? ""}|${scope.mayWrite !== false}`;
  let byScope = selections.get(compiled);
  if (!byScope) {
    byScope = new Map();
    selections.set(compiled, byScope);
  }
  let selection = byScope.get(key);
  if (!selection) {
    selection = selectTools(compiled, scope);
    byScope.set(key, selection);
  }
  return selection;
}

/** The toolsets a connection gets when it names none. */
export function defaultToolsets(toolsets: readonly ToolsetInfo[]): string[] {
  return toolsets.filter((s) => s.default).map((s) => s.name);
}

/**
 * A connection's `toolsets` text (query or header: names separated by commas) → the toolset names, with
 * `default` standing for the default toolsets and `all` for every one; absent or blank: the default ones.
 * An unknown name is refused, listing the valid ones.
 */
export function parseToolsets(toolsets: readonly ToolsetInfo[], text: string | undefined): string[] {
  const names = (text ?? "")
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  if (names.length === 0) return defaultToolsets(toolsets);
  const known = new Map(toolsets.map((s) => [s.name, s]));
  const unknown = names.filter((n) => n !== "all" && n !== "default" && !known.has(n));
  if (unknown.length > 0) {
    const valid = toolsets.map((s) => `${s.name}${s.default ? " (default)" : ""}: ${s.description}`);
    throw DomainError.invalid(
      `Unknown toolset${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `"${n}"`).join(", ")}. ` +
        `Valid toolsets (comma-separated; "default" and "all" also work): ${valid.join("; ")}.`,
      unknown.map((n) => ({ field: "toolsets", message: `unknown toolset "${n}"` })),
    );
  }
  const chosen = new Set<string>();
  for (const name of names) {
    if (name === "all") for (const s of toolsets) chosen.add(s.name);
    else if (name === "default") for (const n of defaultToolsets(toolsets)) chosen.add(n);
    else chosen.add(name);
  }
  // In the registry's order, so equal choices share one remembered selection.
  return toolsets.filter((s) => chosen.has(s.name)).map((s) => s.name);
}
