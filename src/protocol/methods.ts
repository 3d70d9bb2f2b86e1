/**
 * The MCP methods, implemented once for every face: `/mcp` (streamable-http.ts), stdio and in-memory
 * (mcp-server.ts), `POST /api/v1/mcp` (jsonrpc.ts) and, for tools/call, the web app.
 *
 * How an adapter uses it:
 *
 *   const outcome = await handleMethod(method, params, env);
 *
 * and sends, for a request with an id:
 *
 *   { ok: true, result }            → `result`
 *   { ok: false, error }            → the JSON-RPC error `{ code, message, data }`; `error.status` is the HTTP
 *                                     status `/api/v1/mcp` answers with (MCP faces ignore it)
 *   { ok: false, error, toolResult } → a tool execution error (the tool ran, or its arguments were refused):
 *                                     MCP faces send `toolResult` (`isError: true`, the same text as
 *                                     `error.message`, or the registry's own rendering) as the result, so
 *                                     the model reads it; `/api/v1/mcp` sends `error`.
 *
 * Each method looks up its target, checks params against the SDK's own request schema (a mismatch is
 * -32602 naming the field, never zod's dump), runs, and observes tools/call, resources/read and
 * prompts/get exactly once (operations.ts). Every error comes from one table (rpc-errors.ts over
 * core/error-table.ts), so the same mistake reads the same on every face. `handleMethod` never throws.
 *
 * The env and outcome types are method-env.ts; failures and params checks method-refusal.ts; what the
 * listings answer method-listing.ts.
 */
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/core";
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { RpcCode } from "../core/error-table.js";
import { DomainError, type FieldError, isDomainError } from "../core/errors.js";
import type { BaseContext } from "../core/registry.js";
import {
  type CompiledTool,
  completionResult,
  contentOf,
  parseToolInput,
  renderFailure,
  renderSuccess,
} from "./compile.js";
import { type Conversation, InputNeeded, openConversation } from "./input-exchange.js";
import { plainCallParams } from "./message-shape.js";
import { baseContext, type MethodEnv, type MethodOutcome, type Result } from "./method-env.js";
import {
  capabilities,
  listedPrompt,
  listTools,
  templateOf,
  unknownPrompt,
  unknownTool,
} from "./method-listing.js";
import { failureOf, LenientInitialize, paramsOf, Refusal } from "./method-refusal.js";
import { matchResource, type Outcome, observeUnknown, runOperation } from "./operations.js";
import { StateRefused } from "./request-state.js";
import { invalidParams, type RpcError, rpcError } from "./rpc-errors.js";
import { selectionFor } from "./tool-selection.js";

export type {
  MethodEnv,
  MethodOutcome,
  ProtocolSession,
  Result,
  ServerNotification,
  ToolErrorResult,
} from "./method-env.js";
export { listTools } from "./method-listing.js";
export type { RpcError } from "./rpc-errors.js";

/**
 * Runs a tool the caller named, observed once whatever happens: arguments parsed (parseToolInput), the
 * handler run with its context, `finish` applied to the output inside the observed operation (a rendering
 * that fails is the call's failure). tools/call renders; the web app takes the output as it is. A
 * `refusal` (the connection's tool selection) fails the call instead of running it.
 */
export function invokeTool<Ctx extends BaseContext, T>(
  env: Pick<MethodEnv<Ctx>, "context" | "observe">,
  tool: CompiledTool<Ctx>,
  args: Record<string, unknown>,
  base: BaseContext,
  finish: (output: unknown) => T,
  refusal?: DomainError,
): Promise<Outcome<T>> {
  // Not async itself: runOperation's promise is the outcome (one promise and its ticks fewer per call).
  return runOperation(env.observe, "tools/call", tool.def.name, args, async (op) => {
    if (refusal) throw refusal;
    const output = await tool.def.handler(parseToolInput(tool, args), env.context(base, op));
    op.output = output;
    return finish(output);
  });
}

/**
 * The request's conversation with the client (input-exchange.ts) where the face carries one; a state
 * that is not this server's, for this caller and request, or is expired is refused with -32602.
 */
async function conversationOf<Ctx extends BaseContext>(
  env: MethodEnv<Ctx>,
  method: string,
  name: string,
  args: unknown,
): Promise<Conversation | undefined> {
  if (!env.input) return undefined;
  try {
    return await openConversation(env.input, method, name, args);
  } catch (error) {
    if (!(error instanceof StateRefused)) throw error;
    throw new Refusal(
      rpcError(RpcCode.InvalidParams, error.message, { field: "requestState", reason: error.reason }),
    );
  }
}

/** The handler's base context with the conversation's `input` and `canAsk`, where there is one. */
function withConversation(base: BaseContext, conversation: Conversation | undefined): BaseContext {
  return conversation ? { ...base, input: conversation.input, canAsk: conversation.canAsk } : base;
}

type Method = <Ctx extends BaseContext>(env: MethodEnv<Ctx>, params: unknown) => Promise<Result> | Result;

const methods: Record<string, Method> = {
  initialize(env, raw) {
    const params = paramsOf(LenientInitialize, "initialize", raw);
    const requested = params.protocolVersion ?? LATEST_PROTOCOL_VERSION;
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
      ? requested
      : LATEST_PROTOCOL_VERSION;
    return {
      protocolVersion,
      capabilities: capabilities(env),
      serverInfo: env.serverInfo,
      ...(env.compiled.instructions ? { instructions: env.compiled.instructions } : {}),
    };
  },

  ping(_env, raw) {
    paramsOf(PingRequestSchema, "ping", raw);
    return {};
  },

  "tools/list"(env, raw) {
    paramsOf(ListToolsRequestSchema, "tools/list", raw);
    return { tools: listTools(env) };
  },

  async "tools/call"(env, raw) {
    // The common shape skips the SDK schema (message-shape.ts); anything else is checked by it as before.
    const params = plainCallParams(raw) ?? paramsOf(CallToolRequestSchema, "tools/call", raw);
    const name = params.name;
    const args = params.arguments ?? {};
    const tool = env.compiled.tools.get(name);
    if (!tool) {
      observeUnknown(env.observe, "tools/call", name, "unknown_tool");
      throw new Refusal(unknownTool(env, name));
    }
    // A tool outside the connection's toolsets, or a write on a read-only one, is refused as the call's
    // own failure (observed and audited like any other); the role stays the handler's check.
    const refusal = selectionFor(env.compiled, env.toolScope).refusal(tool);
    const conversation = env.input ? await conversationOf(env, "tools/call", name, args) : undefined;
    const outcome = await invokeTool(
      env,
      tool,
      args,
      withConversation(baseContext(env, raw), conversation),
      (output) => renderSuccess(tool, output),
      refusal,
    );
    if (outcome.ok) {
      const rendered = outcome.value;
      const result: Result = { content: contentOf(rendered) };
      // Structured content only where the tool advertises an output schema.
      if (rendered.structured && tool.def.output) result.structuredContent = rendered.structured;
      return result;
    }
    if (conversation && outcome.error instanceof InputNeeded)
      return conversation.inputRequired(outcome.error);
    const error = failureOf(env, outcome.error, `tools/call ${name}`);
    const domain = isDomainError(outcome.error) ? outcome.error : new DomainError("internal", error.message);
    const text = renderFailure(tool, domain).text;
    throw new Refusal(error, { isError: true, content: [{ type: "text", text }] });
  },

  "resources/templates/list"(env, raw) {
    paramsOf(ListResourceTemplatesRequestSchema, "resources/templates/list", raw);
    return { resourceTemplates: env.compiled.resources.map(templateOf) };
  },

  async "resources/list"(env, raw) {
    paramsOf(ListResourcesRequestSchema, "resources/list", raw);
    const ctx = env.context(baseContext(env, raw));
    const lists = await Promise.all(env.compiled.resources.map((r) => r.list?.(ctx) ?? Promise.resolve([])));
    return { resources: lists.flat() };
  },

  async "resources/read"(env, raw) {
    const { uri } = paramsOf(ReadResourceRequestSchema, "resources/read", raw);
    const base = baseContext(env, raw);
    for (const resource of env.compiled.resources) {
      const vars = matchResource(resource, uri);
      if (!vars) continue;
      const outcome = await runOperation(
        env.observe,
        "resources/read",
        uri,
        undefined,
        async (op) => ({ contents: await resource.read(vars, uri, env.context(base, op)) }),
        uri,
      );
      if (outcome.ok) return outcome.value;
      throw new Refusal(failureOf(env, outcome.error, `resources/read ${uri}`));
    }
    observeUnknown(env.observe, "resources/read", uri, "not_found");
    const templates = env.compiled.resources.map((r) => r.uriTemplate).join(", ");
    throw new Refusal(
      rpcError(RpcCode.NotFound, `Resource not found: ${uri}. Known URI templates: ${templates}.`, {
        reference_id: uri,
        uri,
      }),
    );
  },

  "prompts/list"(env, raw) {
    paramsOf(ListPromptsRequestSchema, "prompts/list", raw);
    return { prompts: [...env.compiled.prompts.values()].map(listedPrompt) };
  },

  async "prompts/get"(env, raw) {
    const params = paramsOf(GetPromptRequestSchema, "prompts/get", raw);
    const { name } = params;
    const prompt = env.compiled.prompts.get(name);
    if (!prompt) {
      observeUnknown(env.observe, "prompts/get", name, "unknown_prompt");
      throw new Refusal(unknownPrompt(env, name));
    }
    const args = params.arguments ?? {};
    const conversation = await conversationOf(env, "prompts/get", name, args);
    const base = withConversation(baseContext(env, raw), conversation);
    const outcome = await runOperation(env.observe, "prompts/get", name, args, async (op) => {
      const missing: FieldError[] = prompt.arguments
        .filter((a) => a.required && !args[a.name])
        .map((a) => ({ field: `arguments.${a.name}`, message: `Required: ${a.description}` }));
      if (missing.length > 0) {
        const list = missing.map((e) => `${e.field}: ${e.message}`).join("; ");
        throw DomainError.invalid(`Invalid arguments for prompt ${name}: ${list}`, missing);
      }
      return await prompt.get(args, env.context(base, op));
    });
    if (outcome.ok) return outcome.value as unknown as Result;
    if (conversation && outcome.error instanceof InputNeeded)
      return conversation.inputRequired(outcome.error);
    throw new Refusal(failureOf(env, outcome.error, `prompts/get ${name}`));
  },

  async "completion/complete"(env, raw) {
    const { ref, argument, context } = paramsOf(CompleteRequestSchema, "completion/complete", raw);
    const known = context?.arguments ?? {};
    const ctx = () => env.context(baseContext(env, raw));
    let hook: () => Promise<string[]> | string[] | undefined;
    if (ref.type === "ref/prompt") {
      const prompt = env.compiled.prompts.get(ref.name);
      if (!prompt) {
        const available = [...env.compiled.prompts.keys()];
        throw new Refusal(
          invalidParams("completion/complete", [
            {
              field: "params.ref.name",
              message: `Unknown prompt "${ref.name}". Available prompts: ${available.join(", ")}`,
            },
          ]),
        );
      }
      hook = () => prompt.complete?.(argument.name, argument.value, ctx(), known);
    } else {
      const resource = env.compiled.resources.find((r) => r.uriTemplate === ref.uri);
      if (!resource) {
        const templates = env.compiled.resources.map((r) => r.uriTemplate).join(", ");
        throw new Refusal(
          invalidParams("completion/complete", [
            {
              field: "params.ref.uri",
              message: `Unknown resource template "${ref.uri}". Known templates: ${templates}`,
            },
          ]),
        );
      }
      hook = () => resource.complete?.(argument.name, argument.value, ctx(), known);
    }
    try {
      // A definition without a completion hook answers no values (the capability is server-wide).
      return completionResult((await hook()) ?? []);
    } catch (error) {
      throw new Refusal(failureOf(env, error, "completion/complete"));
    }
  },

  "logging/setLevel"(env, raw) {
    const { level } = paramsOf(SetLevelRequestSchema, "logging/setLevel", raw);
    if (env.session) env.session.logLevel = level;
    return {};
  },
};

/** The methods this registry and face answer (a method without anything behind it is "not found"). */
export function supportedMethods<Ctx extends BaseContext>(env: MethodEnv<Ctx>): string[] {
  return Object.keys(methods).filter((m) => supports(env, m));
}

/** Whether a method of `methods` has something behind it for this registry and face. */
function supports<Ctx extends BaseContext>(env: MethodEnv<Ctx>, m: string): boolean {
  const { compiled } = env;
  if (m.startsWith("resources/")) return compiled.resources.length > 0;
  if (m.startsWith("prompts/")) return compiled.prompts.size > 0;
  if (m === "completion/complete") return compiled.completions;
  if (m === "logging/setLevel") return env.session !== undefined;
  return true;
}

function methodNotFound<Ctx extends BaseContext>(env: MethodEnv<Ctx>, method: string): RpcError {
  return rpcError(
    RpcCode.MethodNotFound,
    `Method not found: ${method}. Supported methods: ${supportedMethods(env).join(", ")}.`,
    { method },
  );
}

/** Runs one request. Never throws: every failure is an outcome. */
export async function handleMethod<Ctx extends BaseContext>(
  method: string,
  params: unknown,
  env: MethodEnv<Ctx>,
): Promise<MethodOutcome> {
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!handler || !supports(env, method)) return { ok: false, error: methodNotFound(env, method) };
  try {
    return { ok: true, result: await handler(env, params) };
  } catch (error) {
    if (error instanceof Refusal) {
      return { ok: false, error: error.error, ...(error.toolResult ? { toolResult: error.toolResult } : {}) };
    }
    return { ok: false, error: failureOf(env, error, method) };
  }
}
