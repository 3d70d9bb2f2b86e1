/**
 * A tool, resource or prompt is data: defined once, served by every face (stdio, `/mcp`, `/api/v1/mcp`).
 * Handlers return plain objects; only `protocol/` knows about `content`, `structuredContent`, `isError`
 * and the JSON-RPC envelope.
 */
import type { z } from "zod";
import type { DomainError } from "./errors.js";
import type { Role } from "./roles.js";

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Severities of a log message to the client, lowest first (RFC 5424 names, as MCP uses them). */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** What every face gives a handler, whatever else its own context carries. */
export interface BaseContext {
  /** Aborted when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /** Sends `notifications/progress` when the client asked for it (a progress token); otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends a log message to the client (`notifications/message`) when its log level lets this one through;
   * a no-op where the face has no channel for it (`/api/v1/mcp`). Every face provides it; it is optional
   * only so contexts built by hand in tests need not. A tool that calls it sets `ToolDef.logs`.
   */
  logToClient?(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the client for input (elicitation, sampling, its roots) and resolves with one answer per key, as
   * the client gave it. A tool or prompt handler may call it any number of times. How the answer comes
   * (protocol/input-exchange.ts): on MCP 2026-07-28 the call ends here with an `input_required` result and
   * the client retries the same request with the answers; the handler then runs again from its start and
   * this call resolves. So a handler that asks must not write before its last `input` call, must ask the
   * same things again given the same arguments and answers, and must not catch what `input` throws. Where the connection cannot carry the
   * question (MCP ≤ 2025-11-25, `/api/v1/mcp`, the web app) it rejects with an `invalid_input` DomainError
   * saying so. Optional only so contexts built by hand in tests need not provide it.
   */
  input?(requests: Record<string, InputRequest>): Promise<Record<string, InputAnswer>>;
  /** Whether the client declared what `kind` needs (`input` with it would succeed); false where none can. */
  canAsk?(kind: InputKind): boolean;
}

/** What a handler may ask the client (MCP's server-to-client requests, as `input_required` carries them). */
export type InputRequest =
  | {
      method: "elicitation/create";
      /**
       * A form: `requestedSchema` is a flat object of string, number, integer, boolean or enum-array
       * properties (MCP's restricted schema). An accepted answer is checked against it before the handler
       * sees it (protocol/input-answers.ts).
       */
      params: { message: string; requestedSchema: Record<string, unknown> };
    }
  | {
      method: "sampling/createMessage";
      params: { messages: unknown[]; maxTokens: number } & Record<string, unknown>;
    }
  | { method: "roots/list"; params?: Record<string, never> };

/** The client capability each kind of request needs. */
export type InputKind = "elicitation" | "sampling" | "roots";

/**
 * An answer, as the client sent it: an elicitation's `{ action, content? }` (content checked against the
 * requested schema when accepted), a sampling result (`{ role, content, model, … }`), or `{ roots: [...] }`.
 */
export type InputAnswer = Record<string, unknown>;

/**
 * Content a tool result or prompt message may carry besides text: binary data is base64, as on the wire.
 * Plain data in the shapes MCP uses, so protocol/ passes it through without a second model.
 */
export type ContentItem =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: ResourceContent }
  | {
      type: "resource_link";
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
    };

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of many input types
export type AnyZodObject = z.ZodObject<any>;

export interface ToolDef<
  Ctx extends BaseContext = BaseContext,
  I extends AnyZodObject = AnyZodObject,
  O = unknown,
> {
  /** snake_case verb_noun, ≤ 64 characters. */
  name: string;
  title: string;
  /** Written for the model: when to use it, what it returns, what to call next. */
  description: string;
  input: I;
  /** Schema of the structured result, advertised as `outputSchema`. */
  output?: AnyZodObject;
  /**
   * Honest hints; `readOnlyHint: true` is also the registry's statement that the tool never writes: a
   * read-only connection and a caller who cannot write see only such tools (protocol/tool-selection.ts).
   */
  annotations: ToolAnnotations;
  /**
   * The least role a caller needs (hosted tools: `hostedTool` sets it, from the annotations unless the tool
   * says otherwise). Faces list a tool only to callers whose role reaches it; absent: anyone.
   */
  role?: Role;
  handler(input: z.output<I>, ctx: Ctx): O | Promise<O>;
  /**
   * What the model reads; defaults to the registry's `renderResult`. A string is one text block; a list of
   * content items is the whole result (images, audio, embedded resources, links, text in any order).
   */
  render?(output: O): string | ContentItem[];
  /**
   * The structured content (`structuredContent`, matching `output`) when it is not the handler's whole
   * output: a tool whose text already carries part of the data sends only the rest (no duplicated payload).
   */
  structured?(output: O): Record<string, unknown>;
  /**
   * The handler sends log messages (`ctx.logToClient`). `/mcp` then streams its answer to a client that
   * accepts SSE, so the messages reach it before the result (a JSON answer has no room for them).
   */
  logs?: boolean;
  /**
   * Arguments mirrored into HTTP headers (MCP 2026-07-28, SEP-2243): argument name → header name, so a
   * gateway can route on it without reading the body. The argument must be a top-level string, integer or
   * boolean; the client sends `Mcp-Param-<header>` and `/mcp` refuses a request whose header disagrees
   * with the body (HTTP 400, -32020). Listed as `x-mcp-header` on the property (protocol/compile.ts).
   */
  headers?: Record<string, string>;
}

/** One resource's contents: text, or binary data as base64 in `blob`. */
export type ResourceContent =
  | { uri: string; mimeType: string; text: string; blob?: never }
  | { uri: string; mimeType: string; blob: string; text?: never };

/** Completion values for one argument (MCP allows at most 100 per answer; more are cut and `hasMore` set). */
export type CompletionValues = string[];

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
  /**
   * Suggestions for a template variable (`completion/complete` with `ref/resource`): `variable` is its
   * name, `value` what the user typed so far, `known` the variables already filled in.
   */
  complete?(
    variable: string,
    value: string,
    ctx: Ctx,
    known: Record<string, string>,
  ): Promise<CompletionValues> | CompletionValues;
}

export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptMessage {
  role: "user" | "assistant";
  /** Text, an image or audio (base64), an embedded resource or a resource link. */
  content: ContentItem;
}

export interface PromptDef<Ctx extends BaseContext = BaseContext> {
  name: string;
  title?: string;
  description: string;
  arguments: PromptArgument[];
  get(args: Record<string, string>, ctx: Ctx): Promise<{ description: string; messages: PromptMessage[] }>;
  /**
   * Suggestions for an argument (`completion/complete` with `ref/prompt`): `argument` is its name, `value`
   * what the user typed so far, `known` the arguments already filled in.
   */
  complete?(
    argument: string,
    value: string,
    ctx: Ctx,
    known: Record<string, string>,
  ): Promise<CompletionValues> | CompletionValues;
}

/** How a tool's outcome is shown to the model: the text block, and optional structured content. */
export interface RenderedResult {
  /** The result as text (all of it when `content` is absent; its text items joined when present). */
  text: string;
  /** The result's content blocks when they are more than one text block (images, audio, resources). */
  content?: ContentItem[];
  structured?: Record<string, unknown>;
}

/**
 * A named group of a registry's tools that a connection chooses (hosted: `?toolsets=` or `X-MCP-Toolsets`).
 * In a registry that declares toolsets, every tool belongs to exactly one (checked when compiled).
 */
export interface ToolsetInfo {
  name: string;
  /** One line for the README and for the error that lists the valid names. */
  description: string;
  /** Enabled when a connection names no toolsets. */
  default: boolean;
  tools: readonly string[];
}

export interface Registry<Ctx extends BaseContext = BaseContext> {
  /** Toolset name (`reqlix`, `knowledge`, `ixchel`, `hosted`). */
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool list; each tool is typed where defined
  tools: ToolDef<Ctx, any, any>[];
  /** The registry's tools in named groups a connection can choose (absent: no choice, all are served). */
  toolsets?: ToolsetInfo[];
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

/** A toolset as defined: its tools themselves, flattened by `groupTools` into a registry's two fields. */
export interface ToolsetGroup<Ctx extends BaseContext> extends Omit<ToolsetInfo, "tools"> {
  // biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool list; each tool is typed where defined
  tools: ToolDef<Ctx, any, any>[];
}

/** Groups → the registry's `tools` (in group order) and `toolsets` (names only): one definition of both. */
export function groupTools<Ctx extends BaseContext>(
  groups: ToolsetGroup<Ctx>[],
): Pick<Registry<Ctx>, "tools" | "toolsets"> {
  return {
    tools: groups.flatMap((g) => g.tools),
    toolsets: groups.map((g) => ({ ...g, tools: g.tools.map((t) => t.name) })),
  };
}
