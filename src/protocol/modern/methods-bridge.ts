/**
 * The methods the 2026-07-28 adapter serves, in the shape of the protocol core's `handleMethod` (one
 * implementation per method; an outcome, never a throw). Until the core lands this bridge runs them with
 * today's shared helpers (compile.ts, operations.ts), exactly as `protocol/mcp-server.ts` does.
 */
import { DomainError, isDomainError } from "../../core/errors.js";
import type { BaseContext, ContentItem } from "../../core/registry.js";
import {
  type CompiledRegistry,
  completionResult,
  contentOf,
  parseToolInput,
  renderFailure,
  renderSuccess,
} from "../compile.js";
import {
  matchResource,
  type Operation,
  type OperationObserver,
  observeUnknown,
  referenceOf,
  runOperation,
} from "../operations.js";

export type Result = Record<string, unknown>;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface ToolErrorResult extends Result {
  isError: true;
  content: ContentItem[];
}

export type MethodOutcome =
  | { ok: true; result: Result }
  | { ok: false; error: RpcError; toolResult?: ToolErrorResult };

export type ServerNotification = {
  method: "notifications/progress" | "notifications/message";
  params: Record<string, unknown>;
};

export interface MethodEnv<Ctx extends BaseContext> {
  compiled: CompiledRegistry<Ctx>;
  serverInfo: { name: string; version: string };
  context(base: BaseContext, op?: Operation): Ctx;
  observe?: OperationObserver;
  onInternalError(error: unknown, where: string): string | undefined;
  correlationId?: string;
  signal: AbortSignal;
  notify?(notification: ServerNotification): Promise<void>;
}

const CODES: Partial<Record<DomainError["code"], number>> = {
  invalid_input: -32602,
  not_found: -32002,
  conflict: -32009,
  forbidden: -32003,
  unauthorized: -32001,
  rate_limited: -32029,
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Refusal extends Error {
  constructor(
    readonly error: RpcError,
    readonly toolResult?: ToolErrorResult,
  ) {
    super(error.message);
  }
}

function failureOf<Ctx extends BaseContext>(env: MethodEnv<Ctx>, error: unknown, where: string): RpcError {
  if (error instanceof Refusal) return error.error;
  if (isDomainError(error) && error.code !== "internal") {
    const data = Object.keys(error.details).length > 0 ? error.details : undefined;
    return { code: CODES[error.code] ?? -32603, message: error.message, ...(data ? { data } : {}) };
  }
  const message = env.onInternalError(error, where) ?? "Internal error";
  return { code: -32603, message };
}

function baseContext<Ctx extends BaseContext>(env: MethodEnv<Ctx>, params: unknown): BaseContext {
  const meta = isPlainObject(params) && isPlainObject(params._meta) ? params._meta : undefined;
  const token = meta?.progressToken as string | number | undefined;
  const notify = env.notify;
  return {
    signal: env.signal,
    async logToClient(level, data, logger) {
      await notify?.({
        method: "notifications/message",
        params: { level, data, ...(logger === undefined ? {} : { logger }) },
      });
    },
    async progress(progress, total, message) {
      if (token === undefined || !notify) return;
      await notify({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      });
    },
  };
}

type Method = <Ctx extends BaseContext>(
  env: MethodEnv<Ctx>,
  params: Record<string, unknown>,
) => Promise<Result>;

const methods: Record<string, Method> = {
  async "tools/list"(env) {
    return { tools: env.compiled.toolList };
  },
  async "tools/call"(env, params) {
    const name = String(params.name);
    const args = params.arguments ?? {};
    const tool = env.compiled.tools.get(name);
    if (!tool) {
      observeUnknown(env.observe, "tools/call", name, "unknown_tool");
      const names = [...env.compiled.tools.keys()].join(", ");
      const text = `Unknown tool "${name}". Available tools: ${names}.`;
      throw new Refusal(
        { code: -32602, message: text },
        { isError: true, content: [{ type: "text", text }] },
      );
    }
    const base = baseContext(env, params);
    const outcome = await runOperation(env.observe, "tools/call", name, args, async (op) => {
      const output = await tool.def.handler(parseToolInput(tool, args), env.context(base, op));
      return { rendered: renderSuccess(tool, output), reference_id: referenceOf(args, output) };
    });
    if (outcome.ok) {
      const { rendered } = outcome.value;
      return {
        content: contentOf(rendered),
        ...(rendered.structured && tool.def.output ? { structuredContent: rendered.structured } : {}),
      };
    }
    const error = failureOf(env, outcome.error, `tools/call ${name}`);
    const domain = isDomainError(outcome.error) ? outcome.error : new DomainError("internal", error.message);
    throw new Refusal(error, {
      isError: true,
      content: [{ type: "text", text: renderFailure(tool, domain).text }],
    });
  },
  async "resources/templates/list"(env) {
    return {
      resourceTemplates: env.compiled.resources.map((r) => ({
        uriTemplate: r.uriTemplate,
        name: r.name,
        ...(r.title ? { title: r.title } : {}),
        description: r.description,
        mimeType: r.mimeType,
      })),
    };
  },
  async "resources/list"(env, params) {
    const ctx = env.context(baseContext(env, params));
    const lists = await Promise.all(env.compiled.resources.map((r) => r.list?.(ctx) ?? Promise.resolve([])));
    return { resources: lists.flat() };
  },
  async "resources/read"(env, params) {
    const uri = String(params.uri);
    const base = baseContext(env, params);
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
    throw new Refusal({ code: -32002, message: `Resource not found: ${uri}`, data: { uri } });
  },
  async "prompts/list"(env) {
    return {
      prompts: [...env.compiled.prompts.values()].map((p) => ({
        name: p.name,
        ...(p.title ? { title: p.title } : {}),
        description: p.description,
        arguments: p.arguments,
      })),
    };
  },
  async "prompts/get"(env, params) {
    const name = String(params.name);
    const prompt = env.compiled.prompts.get(name);
    if (!prompt) {
      observeUnknown(env.observe, "prompts/get", name, "unknown_prompt");
      throw new Refusal({ code: -32602, message: `Unknown prompt "${name}"`, data: { name } });
    }
    const args = (params.arguments ?? {}) as Record<string, string>;
    const base = baseContext(env, params);
    const outcome = await runOperation(env.observe, "prompts/get", name, args, async (op) => {
      const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
      if (missing.length > 0) {
        throw DomainError.invalid(
          `Missing required argument(s): ${missing.join(", ")}`,
          missing.map((field) => ({ field, message: "required" })),
        );
      }
      return await prompt.get(args, env.context(base, op));
    });
    if (outcome.ok) return outcome.value as unknown as Result;
    throw new Refusal(failureOf(env, outcome.error, `prompts/get ${name}`));
  },
  async "completion/complete"(env, params) {
    const ref = params.ref as { type: string; name?: string; uri?: string };
    const argument = params.argument as { name: string; value: string };
    const known = ((params.context as { arguments?: Record<string, string> } | undefined)?.arguments ??
      {}) as Record<string, string>;
    const ctx = () => env.context(baseContext(env, params));
    let hook: () => Promise<string[]> | string[] | undefined;
    if (ref.type === "ref/prompt") {
      const prompt = env.compiled.prompts.get(String(ref.name));
      if (!prompt) throw new Refusal({ code: -32602, message: `Unknown prompt "${ref.name}"` });
      hook = () => prompt.complete?.(argument.name, argument.value, ctx(), known);
    } else {
      const resource = env.compiled.resources.find((r) => r.uriTemplate === ref.uri);
      if (!resource) throw new Refusal({ code: -32602, message: `Unknown resource template "${ref.uri}"` });
      hook = () => resource.complete?.(argument.name, argument.value, ctx(), known);
    }
    return completionResult((await hook()) ?? []);
  },
};

/** The methods this registry answers. */
export function supportedMethods<Ctx extends BaseContext>(env: MethodEnv<Ctx>): string[] {
  const { compiled } = env;
  return Object.keys(methods).filter((m) => {
    if (m.startsWith("resources/")) return compiled.resources.length > 0;
    if (m.startsWith("prompts/")) return compiled.prompts.size > 0;
    if (m === "completion/complete") return compiled.completions;
    return true;
  });
}

export async function handleMethod<Ctx extends BaseContext>(
  method: string,
  params: unknown,
  env: MethodEnv<Ctx>,
): Promise<MethodOutcome> {
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!handler) return { ok: false, error: { code: -32601, message: `Method not found: ${method}` } };
  try {
    return { ok: true, result: await handler(env, isPlainObject(params) ? params : {}) };
  } catch (error) {
    if (error instanceof Refusal) {
      return { ok: false, error: error.error, ...(error.toolResult ? { toolResult: error.toolResult } : {}) };
    }
    return { ok: false, error: failureOf(env, error, method) };
  }
}
