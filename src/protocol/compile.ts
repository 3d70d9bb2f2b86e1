/**
 * Turns registries into what the faces serve, once: JSON schemas are computed here and reused for every
 * request (building a server per request must not convert schemas again).
 */
import * as z from "zod";
import { DomainError, type FieldError } from "../core/errors.js";
import type {
  BaseContext,
  ContentItem,
  PromptDef,
  Registry,
  RenderedResult,
  ResourceDef,
  ToolDef,
  ToolsetInfo,
} from "../core/registry.js";
import { unstorableText, unstorableTextProblem } from "../core/text.js";
import { flatKnownArguments, unknownArguments } from "./argument-errors.js";
import { withHeaderDeclarations } from "./param-headers.js";

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

export interface CompiledTool<Ctx extends BaseContext> {
  // biome-ignore lint/suspicious/noExplicitAny: erased per-tool input type
  def: ToolDef<Ctx, any, any>;
  registry: Registry<Ctx>;
  listed: ListedTool;
  /** The toolset it belongs to, when its registry declares toolsets. */
  toolset?: string;
}

export interface CompiledRegistry<Ctx extends BaseContext> {
  tools: Map<string, CompiledTool<Ctx>>;
  toolList: ListedTool[];
  /** The toolsets a connection may choose from (hosted); empty when no registry declares any. */
  toolsets: ToolsetInfo[];
  resources: ResourceDef<Ctx>[];
  prompts: Map<string, PromptDef<Ctx>>;
  instructions: string | undefined;
  /** Some prompt or resource template offers argument completion: the `completions` capability. */
  completions: boolean;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  // MCP's default dialect is JSON Schema 2020-12, which is what zod emits: left out unless the tool's
  // schema names its dialect itself (`.meta({ $schema })`), which is then kept as written (SEP-1613).
  if (z.globalRegistry.get(schema)?.$schema === undefined) delete out.$schema;
  return leanSchema(out, io) as Record<string, unknown>;
}

export function compileRegistries<Ctx extends BaseContext>(
  registries: Registry<Ctx>[],
): CompiledRegistry<Ctx> {
  const tools = new Map<string, CompiledTool<Ctx>>();
  const prompts = new Map<string, PromptDef<Ctx>>();
  const resources: ResourceDef<Ctx>[] = [];
  const instructions: string[] = [];
  const toolsets: ToolsetInfo[] = [];
  for (const registry of registries) {
    for (const def of registry.tools) {
      if (tools.has(def.name)) throw new Error(`Tool ${def.name} is defined twice`);
      const listed: ListedTool = {
        name: def.name,
        title: def.title,
        description: def.description,
        inputSchema: withHeaderDeclarations(def, jsonSchema(def.input, "input")),
        annotations: listedAnnotations(def),
      };
      if (def.output) listed.outputSchema = jsonSchema(def.output, "output");
      const toolset = registry.toolsets?.find((set) => set.tools.includes(def.name))?.name;
      tools.set(def.name, { def, registry, listed, ...(toolset ? { toolset } : {}) });
    }
    checkToolsets(registry, toolsets);
    toolsets.push(...(registry.toolsets ?? []));
    for (const p of registry.prompts ?? []) {
      if (prompts.has(p.name)) throw new Error(`Prompt ${p.name} is defined twice`);
      prompts.set(p.name, p);
    }
    resources.push(...(registry.resources ?? []));
    if (registry.instructions) instructions.push(registry.instructions);
  }
  return {
    tools,
    toolList: [...tools.values()].map((t) => t.listed),
    toolsets,
    resources,
    prompts,
    instructions: instructions.length > 0 ? instructions.join("\n\n") : undefined,
    completions:
      resources.some((r) => r.complete !== undefined) || [...prompts.values()].some((p) => p.complete),
  };
}

/** Every tool of a registry with toolsets is in exactly one of them, and every name is unique. */
function checkToolsets<Ctx extends BaseContext>(registry: Registry<Ctx>, seen: ToolsetInfo[]): void {
  if (!registry.toolsets) return;
  const names = new Set(seen.map((s) => s.name));
  for (const set of registry.toolsets) {
    if (names.has(set.name)) throw new Error(`Toolset ${set.name} is defined twice`);
    names.add(set.name);
  }
  for (const def of registry.tools) {
    const owners = registry.toolsets.filter((s) => s.tools.includes(def.name)).map((s) => s.name);
    if (owners.length !== 1)
      throw new Error(
        `Tool ${def.name} must be in exactly one toolset of ${registry.name}, is in ${owners.length}`,
      );
  }
  for (const set of registry.toolsets) {
    const stray = set.tools.filter((name) => !registry.tools.some((t) => t.name === name));
    if (stray.length > 0) throw new Error(`Toolset ${set.name} names unknown tools: ${stray.join(", ")}`);
  }
}

/**
 * The annotations as listed: `title` is the tool's own (MCP lists it at the top level since 2025-06-18),
 * and a read tool's destructive and idempotent hints are left out: MCP defines them only for writes.
 */
function listedAnnotations<Ctx extends BaseContext>(def: ToolDef<Ctx>): Record<string, unknown> {
  if (def.annotations.readOnlyHint !== true) return { ...def.annotations };
  const { destructiveHint: _d, idempotentHint: _i, ...read } = def.annotations;
  return read;
}

/**
 * zod's JSON schema less what says nothing (every tools/list pays for it, bench/tools-list-tokens.ts):
 * the safe-integer bounds of `.int()`, `propertyNames: {type: string}` (JSON keys are strings), an empty
 * `additionalProperties`; in output schemas also `additionalProperties: false` (the server's own answer
 * is what it is; a client only needs the fields named) and a field's description when the same field
 * already carried it earlier in the same schema (an entity's `revision`, `updated_at` in every item).
 */
function leanSchema(schema: unknown, io: "input" | "output"): unknown {
  const described = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== "object" || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
      if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
      if (key === "propertyNames" && isStringType(value)) continue;
      if (key === "additionalProperties" && isEmptyObject(value)) continue;
      if (key === "additionalProperties" && value === false && io === "output") continue;
      out[key] = key === "properties" && isPlainObject(value) ? properties(value) : walk(value);
    }
    return out;
  };
  const properties = (props: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(props).map(([name, field]) => {
        if (io === "output" && isPlainObject(field) && typeof field.description === "string") {
          const key = `${name}\u0000${field.description}`;
          if (described.has(key)) {
            const { description: _said, ...rest } = field;
            return [name, walk(rest)];
          }
          described.add(key);
        }
        return [name, walk(field)];
      }),
    );
  return walk(schema);
}

function isEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}

function isStringType(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 1 && value.type === "string";
}

/** zod issues → the per-field list every face reports (`data.errors`, or the text the model reads). */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join(".") : "(arguments)",
    message: issue.message,
  }));
}

export function invalidArguments(toolName: string, error: z.ZodError): DomainError {
  return argumentError(toolName, fieldErrors(error));
}

function argumentError(toolName: string, errors: FieldError[]): DomainError {
  const list = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
  return DomainError.invalid(`Invalid arguments for ${toolName}: ${list}`, errors);
}

/**
 * Validates arguments against the tool's schema; throws a DomainError naming each bad field. Before the
 * schema: arguments the tool does not take (with a did-you-mean, item 13) and text that cannot be stored
 * as sent (NUL, lone surrogates: item 5), for every string of every tool, nested ones included.
 */
export function parseToolInput<Ctx extends BaseContext>(tool: CompiledTool<Ctx>, args: unknown): unknown {
  const input = args ?? {};
  // The common call (flat, known names, storable text) skips the two walks, which build arrays per key.
  if (flatKnownArguments(tool.def.input, input) && storableValues(input as Record<string, unknown>)) {
    const parsed = tool.def.input.safeParse(input);
    if (parsed.success) return parsed.data;
    throw argumentError(tool.def.name, fieldErrors(parsed.error));
  }
  const early = [...unknownArguments(tool.def.input, input), ...unstorableText(input)];
  const parsed = tool.def.input.safeParse(input);
  if (early.length === 0 && parsed.success) return parsed.data;
  // A field already refused for its characters or its name is not listed again for its format.
  const named = new Set(early.map((e) => e.field));
  const rest = parsed.success ? [] : fieldErrors(parsed.error).filter((e) => !named.has(e.field));
  throw argumentError(tool.def.name, [...early, ...rest]);
}

/** Every string value of a flat object can be stored as sent (see core/text.ts). */
function storableValues(input: Record<string, unknown>): boolean {
  for (const key in input) {
    const v = input[key];
    if (typeof v === "string" && unstorableTextProblem(v) !== undefined) return false;
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function renderSuccess<Ctx extends BaseContext>(
  tool: CompiledTool<Ctx>,
  output: unknown,
): RenderedResult {
  const { def, registry } = tool;
  if (def.render) {
    const shown = def.render(output);
    const data = def.structured ? def.structured(output) : output;
    const structured = isPlainObject(data) ? { structured: data } : {};
    if (typeof shown === "string") return { text: shown, ...structured };
    return { text: textOf(shown), content: shown, ...structured };
  }
  if (registry.renderResult) return registry.renderResult(output);
  const rendered: RenderedResult = {
    text: typeof output === "string" ? output : JSON.stringify(output, null, 2),
  };
  if (isPlainObject(output)) rendered.structured = output;
  return rendered;
}

/** The text items of a content list, joined (what a text-only reader of the result sees). */
function textOf(items: ContentItem[]): string {
  return items
    .filter((i): i is Extract<ContentItem, { type: "text" }> => i.type === "text")
    .map((i) => i.text)
    .join("\n");
}

/** The content blocks of a rendered result: its own list, or its text as one block. */
export function contentOf(rendered: RenderedResult): ContentItem[] {
  return rendered.content ?? [{ type: "text", text: rendered.text }];
}

/** At most 100 values per answer (MCP completion); `total` and `hasMore` say what was cut. */
export function completionResult(values: string[]): {
  completion: { values: string[]; total: number; hasMore: boolean };
} {
  return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
}

export function renderFailure<Ctx extends BaseContext>(
  tool: CompiledTool<Ctx> | undefined,
  error: DomainError,
): RenderedResult {
  if (tool?.registry.renderError) return tool.registry.renderError(error);
  // No structured content on failures: a client validates it against the tool's output schema.
  return { text: error.message };
}
