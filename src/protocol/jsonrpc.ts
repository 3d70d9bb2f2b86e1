/**
 * `POST /api/v1/mcp`: plain JSON-RPC 2.0 with MCP method names and no handshake, over the same compiled
 * registry as `/mcp`. Pure: text in, `{status, body}` out; the HTTP route only moves bytes. Errors follow
 * DESIGN's table: the HTTP status is 400/401/403/429/500 where the table names one, and 200 for errors the
 * JSON-RPC body describes fully (-32601, -32602, -32002, -32009).
 *
 * Batches are refused (-32600): MCP 2025-06-18 removed JSON-RPC batching, and one HTTP status per request
 * keeps the table's statuses meaningful.
 */
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { DomainError, type FieldError, isDomainError } from "../core/errors.js";
import type { BaseContext, PromptDef, ResourceDef } from "../core/registry.js";
import {
  type CompiledRegistry,
  completionResult,
  contentOf,
  parseToolInput,
  renderSuccess,
} from "./compile.js";
import {
  matchResource,
  type Operation,
  type OperationObserver,
  observeUnknown,
  referenceOf,
  runOperation,
} from "./operations.js";
import { selectionFor, type ToolScope } from "./tool-selection.js";

export type JsonRpcId = string | number;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: JsonRpcId; result: unknown }
  | { jsonrpc: "2.0"; id: JsonRpcId | null; error: JsonRpcErrorObject };

/** What the route sends: a status and, unless it is a notification's 202, one JSON-RPC response. */
export interface JsonRpcReply {
  status: number;
  body: JsonRpcResponse | null;
  headers?: Record<string, string>;
}

export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  Unauthorized: -32001,
  NotFound: -32002,
  Forbidden: -32003,
  Conflict: -32009,
  RateLimited: -32029,
} as const;

export function errorReply(
  status: number,
  code: number,
  message: string,
  data?: unknown,
  id: JsonRpcId | null = null,
  headers?: Record<string, string>,
): JsonRpcReply {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { status, body: { jsonrpc: "2.0", id, error }, ...(headers ? { headers } : {}) };
}

export interface JsonRpcOptions<Ctx extends BaseContext> {
  compiled: CompiledRegistry<Ctx>;
  serverInfo: { name: string; version: string };
  /** The connection's toolsets, read-only mode and role (tool-selection.ts); absent: every tool. */
  scope?: ToolScope;
  /** Builds the handler context (the caller, the database) for this request; `op`: see McpServerConfig. */
  context(base: BaseContext, op?: Operation): Ctx;
  /** The request id: returned as `data.correlation_id` on internal errors so a log line can be found. */
  correlationId: string;
  signal?: AbortSignal;
  /** Told once about every tools/call, resources/read and prompts/get (the audit trail). */
  observe?: OperationObserver;
  /** Logs a failure that is not a DomainError, with its stack; the client only sees the correlation id. */
  onInternalError(error: unknown, where: string): void;
}

/** A failure to show as a JSON-RPC error (thrown inside method handlers, caught once in `dispatch`). */
class RpcFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function internalFailure(correlationId: string): RpcFailure {
  return new RpcFailure(
    500,
    JsonRpcCode.InternalError,
    `Internal error. Quote correlation id ${correlationId} when reporting it.`,
    { correlation_id: correlationId },
  );
}

function invalidParams(message: string, errors: FieldError[]): RpcFailure {
  return new RpcFailure(200, JsonRpcCode.InvalidParams, message, { errors });
}

/** `data` only when there is something in it. */
function dataOf(details: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(details).length > 0 ? details : undefined;
}

/** DomainError → HTTP status and JSON-RPC error, per DESIGN's error table. */
export function domainErrorToRpc(error: DomainError, correlationId: string): RpcFailure {
  switch (error.code) {
    case "invalid_input":
      return new RpcFailure(200, JsonRpcCode.InvalidParams, error.message, {
        errors: error.details.errors ?? [],
      });
    case "not_found":
      return new RpcFailure(200, JsonRpcCode.NotFound, error.message, error.details);
    case "conflict":
      return new RpcFailure(200, JsonRpcCode.Conflict, error.message, dataOf(error.details));
    case "forbidden":
      return new RpcFailure(403, JsonRpcCode.Forbidden, error.message, dataOf(error.details));
    case "unauthorized":
      return new RpcFailure(401, JsonRpcCode.Unauthorized, error.message);
    case "rate_limited":
      return new RpcFailure(429, JsonRpcCode.RateLimited, error.message, dataOf(error.details));
    default:
      // unavailable / internal: the DomainError's message is written for the client, but nothing more.
      return new RpcFailure(500, JsonRpcCode.InternalError, error.message, { correlation_id: correlationId });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

type Params = Record<string, unknown>;

interface Call<Ctx extends BaseContext> {
  params: Params;
  options: JsonRpcOptions<Ctx>;
  makeContext(op?: Operation): Ctx;
}

type Method<Ctx extends BaseContext> = (call: Call<Ctx>) => Promise<unknown> | unknown;

function requireString(params: Params, key: string, what: string): string {
  const value = params[key];
  if (typeof value === "string" && value.length > 0) return value;
  throw invalidParams(`params.${key} is required: ${what}`, [
    { field: `params.${key}`, message: value === undefined ? "Required" : "Expected a non-empty string" },
  ]);
}

/** `path` is `object.key` below params, e.g. `ref.name`. */
function nestedString(object: Params, path: string, what: string): string {
  const value = object[path.slice(path.indexOf(".") + 1)];
  if (typeof value === "string" && value.length > 0) return value;
  throw invalidParams(`params.${path} is required: ${what}`, [
    { field: `params.${path}`, message: value === undefined ? "Required" : "Expected a non-empty string" },
  ]);
}

function optionalObject(params: Params, key: string): Record<string, unknown> | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (isPlainObject(value)) return value;
  throw invalidParams(`params.${key} must be an object of named arguments`, [
    { field: `params.${key}`, message: "Expected an object" },
  ]);
}

/** A registry operation's outcome as a result, or thrown as an RpcFailure the dispatcher shows. */
function unwrap<T>(
  outcome: { ok: true; value: T } | { ok: false; error: unknown },
  options: JsonRpcOptions<BaseContext>,
  where: string,
): T {
  if (outcome.ok) return outcome.value;
  const { error } = outcome;
  if (error instanceof RpcFailure) throw error;
  if (isDomainError(error)) {
    if (error.code === "internal" || error.code === "unavailable") options.onInternalError(error, where);
    throw domainErrorToRpc(error, options.correlationId);
  }
  options.onInternalError(error, where);
  throw internalFailure(options.correlationId);
}

function capabilities(compiled: CompiledRegistry<BaseContext>): Record<string, unknown> {
  return {
    tools: {},
    ...(compiled.resources.length > 0 ? { resources: {} } : {}),
    ...(compiled.prompts.size > 0 ? { prompts: {} } : {}),
    ...(compiled.completions ? { completions: {} } : {}),
  };
}

function templateOf(r: ResourceDef<BaseContext>): Record<string, unknown> {
  return {
    uriTemplate: r.uriTemplate,
    name: r.name,
    ...(r.title ? { title: r.title } : {}),
    description: r.description,
    mimeType: r.mimeType,
  };
}

function listedPrompt(p: PromptDef<BaseContext>): Record<string, unknown> {
  return {
    name: p.name,
    ...(p.title ? { title: p.title } : {}),
    description: p.description,
    arguments: p.arguments,
  };
}

const methods: Record<string, Method<BaseContext>> = {
  initialize({ params, options }) {
    const requested = params.protocolVersion;
    const protocolVersion =
      typeof requested === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION;
    return {
      protocolVersion,
      capabilities: capabilities(options.compiled),
      serverInfo: options.serverInfo,
      ...(options.compiled.instructions ? { instructions: options.compiled.instructions } : {}),
    };
  },

  ping: () => ({}),

  "tools/list": ({ options }) => ({ tools: selectionFor(options.compiled, options.scope).tools }),

  async "tools/call"({ params, options, makeContext }) {
    const name = requireString(params, "name", "the name of the tool to call (see tools/list)");
    const args = optionalObject(params, "arguments") ?? {};
    const tool = options.compiled.tools.get(name);
    const selection = selectionFor(options.compiled, options.scope);
    if (!tool) {
      observeUnknown(options.observe, "tools/call", name, "unknown_tool");
      throw new RpcFailure(
        200,
        JsonRpcCode.MethodNotFound,
        `Unknown tool "${name}". Call tools/list for the tools.`,
        {
          name,
          available: selection.tools.map((t) => t.name),
        },
      );
    }
    const outcome = await runOperation(options.observe, "tools/call", name, args, async (op) => {
      const refused = selection.refusal(tool);
      if (refused) throw refused;
      const output = await tool.def.handler(parseToolInput(tool, args), makeContext(op));
      // The entity itself goes to the observer (its reference_id is the audit target), not to the client.
      return Object.assign(renderSuccess(tool, output), { reference_id: referenceOf(args, output) });
    });
    const rendered = unwrap(outcome, options, `tools/call ${name}`);
    // Same rule as /mcp: structured content only where the tool advertises an output schema.
    const structured =
      rendered.structured && tool.def.output ? { structuredContent: rendered.structured } : {};
    return { content: contentOf(rendered), ...structured };
  },

  async "resources/list"({ options, makeContext }) {
    const ctx = makeContext();
    const lists = await Promise.all(
      options.compiled.resources.map((r) => r.list?.(ctx) ?? Promise.resolve([])),
    );
    return { resources: lists.flat() };
  },

  "resources/templates/list": ({ options }) => ({
    resourceTemplates: options.compiled.resources.map(templateOf),
  }),

  async "resources/read"({ params, options, makeContext }) {
    const uri = requireString(params, "uri", "the URI of the resource, e.g. epic://EP-001");
    for (const resource of options.compiled.resources) {
      const vars = matchResource(resource, uri);
      if (!vars) continue;
      const outcome = await runOperation(
        options.observe,
        "resources/read",
        uri,
        undefined,
        async (op) => ({ contents: await resource.read(vars, uri, makeContext(op)) }),
        uri,
      );
      return unwrap(outcome, options, `resources/read ${uri}`);
    }
    observeUnknown(options.observe, "resources/read", uri, "not_found");
    const schemes = options.compiled.resources.map((r) => r.uriTemplate).join(", ");
    throw new RpcFailure(
      200,
      JsonRpcCode.NotFound,
      `Resource not found: ${uri}. Known URI templates: ${schemes}.`,
      {
        reference_id: uri,
        uri,
      },
    );
  },

  "prompts/list": ({ options }) => ({ prompts: [...options.compiled.prompts.values()].map(listedPrompt) }),

  async "prompts/get"({ params, options, makeContext }) {
    const name = requireString(params, "name", "the name of the prompt (see prompts/list)");
    const prompt = options.compiled.prompts.get(name);
    if (!prompt) {
      observeUnknown(options.observe, "prompts/get", name, "unknown_prompt");
      throw new RpcFailure(
        200,
        JsonRpcCode.MethodNotFound,
        `Unknown prompt "${name}". Call prompts/list for the prompts.`,
        { name, available: [...options.compiled.prompts.keys()] },
      );
    }
    const raw = optionalObject(params, "arguments") ?? {};
    const errors: FieldError[] = [];
    const args: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw)) {
      if (typeof value === "string") args[key] = value;
      else errors.push({ field: `arguments.${key}`, message: "Prompt arguments are strings" });
    }
    for (const a of prompt.arguments) {
      if (a.required && !args[a.name])
        errors.push({ field: `arguments.${a.name}`, message: `Required: ${a.description}` });
    }
    if (errors.length > 0) {
      const outcome = await runOperation(options.observe, "prompts/get", name, args, () => {
        throw DomainError.invalid(
          `Invalid arguments for prompt ${name}: ${errors.map((e) => `${e.field}: ${e.message}`).join("; ")}`,
          errors,
        );
      });
      return unwrap(outcome, options, `prompts/get ${name}`);
    }
    const outcome = await runOperation(options.observe, "prompts/get", name, args, (op) =>
      prompt.get(args, makeContext(op)),
    );
    return unwrap(outcome, options, `prompts/get ${name}`);
  },

  async "completion/complete"({ params, options, makeContext }) {
    const { compiled } = options;
    if (!compiled.completions) {
      throw new RpcFailure(
        200,
        JsonRpcCode.MethodNotFound,
        "Method not found: completion/complete (no completions)",
        {
          method: "completion/complete",
        },
      );
    }
    const ref = optionalObject(params, "ref") ?? {};
    const argument = optionalObject(params, "argument") ?? {};
    const context = optionalObject(params, "context");
    const known = optionalObject(context ?? {}, "arguments") ?? {};
    const argName = nestedString(argument, "argument.name", "the argument being completed");
    const value = typeof argument.value === "string" ? argument.value : "";
    const strings = Object.fromEntries(
      Object.entries(known).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
    let hook: (() => Promise<string[]> | string[] | undefined) | undefined;
    if (ref.type === "ref/prompt") {
      const name = nestedString(ref, "ref.name", "the prompt whose argument is completed");
      const prompt = compiled.prompts.get(name);
      if (!prompt) {
        throw invalidParams(`Unknown prompt "${name}". Call prompts/list for the prompts.`, [
          { field: "params.ref.name", message: "Unknown prompt" },
        ]);
      }
      hook = () => prompt.complete?.(argName, value, makeContext(), strings);
    } else if (ref.type === "ref/resource") {
      const uri = nestedString(ref, "ref.uri", "the resource template whose variable is completed");
      const resource = compiled.resources.find((r) => r.uriTemplate === uri);
      if (!resource) {
        throw invalidParams(`Unknown resource template "${uri}". Call resources/templates/list.`, [
          { field: "params.ref.uri", message: "Unknown resource template" },
        ]);
      }
      hook = () => resource.complete?.(argName, value, makeContext(), strings);
    } else {
      throw invalidParams('params.ref.type must be "ref/prompt" or "ref/resource"', [
        { field: "params.ref.type", message: 'Expected "ref/prompt" or "ref/resource"' },
      ]);
    }
    try {
      return completionResult((await hook()) ?? []);
    } catch (error) {
      if (error instanceof RpcFailure) throw error;
      if (isDomainError(error)) throw domainErrorToRpc(error, options.correlationId);
      options.onInternalError(error, "completion/complete");
      throw internalFailure(options.correlationId);
    }
  },
};

export const SUPPORTED_METHODS = Object.keys(methods);

const noProgress = async () => {};
// No stream on this face: a tool's log messages have nowhere to go.
const noLog = async () => {};

/** Parses one HTTP body and answers it. Never throws. */
export async function dispatchJsonRpc<Ctx extends BaseContext>(
  body: string,
  options: JsonRpcOptions<Ctx>,
): Promise<JsonRpcReply> {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return errorReply(400, JsonRpcCode.ParseError, "Parse error: the body is not valid JSON");
  }
  if (Array.isArray(message)) {
    return errorReply(
      400,
      JsonRpcCode.InvalidRequest,
      "Invalid Request: batches are not supported; send one JSON-RPC request per HTTP request",
    );
  }
  if (!isPlainObject(message)) {
    return errorReply(
      400,
      JsonRpcCode.InvalidRequest,
      "Invalid Request: expected a JSON-RPC 2.0 request object",
    );
  }
  const hasId = "id" in message;
  const id = isId(message.id) ? message.id : null;
  const problems: string[] = [];
  if (message.jsonrpc !== "2.0") problems.push('"jsonrpc" must be "2.0"');
  if (typeof message.method !== "string" || message.method.length === 0)
    problems.push('"method" must be a string');
  if (hasId && !isId(message.id)) problems.push('"id" must be a string or a number');
  if ("params" in message && message.params !== undefined && !isPlainObject(message.params)) {
    problems.push('"params" must be an object of named parameters');
  }
  if (problems.length > 0) {
    return errorReply(
      400,
      JsonRpcCode.InvalidRequest,
      `Invalid Request: ${problems.join("; ")}`,
      undefined,
      id,
    );
  }
  const method = message.method as string;
  const params = (message.params ?? {}) as Params;
  // The handler context is built lazily: listing tools needs no database.
  const signal = options.signal ?? new AbortController().signal;
  const base: BaseContext = { signal, progress: noProgress, logToClient: noLog };
  const call: Call<BaseContext> = {
    params,
    options: options as unknown as JsonRpcOptions<BaseContext>,
    makeContext: (op) => options.context(base, op),
  };

  if (!hasId) {
    // A notification: never answered (JSON-RPC 2.0 §4.1). MCP's own notifications need nothing from a
    // stateless server; any other method still runs (and is audited), its result discarded.
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (handler && !method.startsWith("notifications/")) {
      try {
        await handler(call);
      } catch (error) {
        if (!(error instanceof RpcFailure)) options.onInternalError(error, `notification ${method}`);
      }
    }
    return { status: 202, body: null };
  }

  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!handler) {
    return errorReply(
      200,
      JsonRpcCode.MethodNotFound,
      `Method not found: ${method}. Supported methods: ${SUPPORTED_METHODS.join(", ")}.`,
      { method },
      id,
    );
  }
  try {
    const result = await handler(call);
    return { status: 200, body: { jsonrpc: "2.0", id: id as JsonRpcId, result } };
  } catch (error) {
    let failure: RpcFailure;
    if (error instanceof RpcFailure) failure = error;
    else if (isDomainError(error)) failure = domainErrorToRpc(error, options.correlationId);
    else {
      options.onInternalError(error, method);
      failure = internalFailure(options.correlationId);
    }
    return errorReply(failure.status, failure.code, failure.message, failure.data, id);
  }
}
