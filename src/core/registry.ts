/**
 * A tool, resource or prompt is data: defined once, served by every face (stdio, `/mcp`, `/api/v1/mcp`).
 * Handlers return plain objects; only `protocol/` knows about `content`, `structuredContent`, `isError`
 * and the JSON-RPC envelope.
 */
import type { z } from "zod";
import type { DomainError } from "./errors.js";

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What every face gives a handler, whatever else its own context carries. */
export interface BaseContext {
  /** Aborted when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /** Sends `notifications/progress` when the client asked for it (a progress token); otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of many input types
export type AnyZodObject = z.ZodObject<any>;

export interface ToolDef<Ctx extends BaseContext = BaseContext, I extends AnyZodObject = AnyZodObject, O = unknown> {
  /** snake_case verb_noun, ≤ 64 characters. */
  name: string;
  title: string;
  /** Written for the model: when to use it, what it returns, what to call next. */
  description: string;
  input: I;
  /** Schema of the structured result, advertised as `outputSchema`. */
  output?: AnyZodObject;
  annotations: ToolAnnotations;
  handler(input: z.output<I>, ctx: Ctx): O | Promise<O>;
  /** The text block the model reads; defaults to the registry's `renderResult`. */
  render?(output: O): string;
}

export interface ResourceContent {
  uri: string;
  mimeType: string;
  text: string;
}

export interface ResourceDef<Ctx extends BaseContext = BaseContext> {
  /** RFC 6570 template as listed in `resources/templates/list`, e.g. `epic://{epic_id}`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
  /** Returns the template's variables when `uri` belongs to this resource, else `undefined`. */
  match(uri: string): Record<string, string> | undefined;
  read(params: Record<string, string>, uri: string, ctx: Ctx): Promise<ResourceContent[]> | ResourceContent[];
  /** Concrete resources for `resources/list` (optional; templates are always listed). */
  list?(ctx: Ctx): Promise<{ uri: string; name: string; description?: string; mimeType?: string }[]>;
}

export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: { type: "text"; text: string };
}

export interface PromptDef<Ctx extends BaseContext = BaseContext> {
  name: string;
  title?: string;
  description: string;
  arguments: PromptArgument[];
  get(args: Record<string, string>, ctx: Ctx): Promise<{ description: string; messages: PromptMessage[] }>;
}

/** How a tool's outcome is shown to the model: the text block, and optional structured content. */
export interface RenderedResult {
  text: string;
  structured?: Record<string, unknown>;
}

export interface Registry<Ctx extends BaseContext = BaseContext> {
  /** Toolset name (`reqlix`, `knowledge`, `ixchel`, `hosted`). */
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool list; each tool is typed where defined
  tools: ToolDef<Ctx, any, any>[];
  resources?: ResourceDef<Ctx>[];
  prompts?: PromptDef<Ctx>[];
  /** Server `instructions` contributed by this toolset. */
  instructions?: string;
  /** Renders a handler's plain result; default: pretty JSON text plus the object as structured content. */
  renderResult?(output: unknown): RenderedResult;
  /** Renders a failure (a DomainError, or an input validation failure turned into one). */
  renderError?(error: DomainError): RenderedResult;
}

/** Helper that keeps a tool's input type while erasing it for the registry's list. */
export function defineTool<Ctx extends BaseContext, I extends AnyZodObject, O>(
  def: ToolDef<Ctx, I, O>,
): ToolDef<Ctx, I, O> {
  return def;
}
