/**
 * Registry → MCP server (SDK low-level `Server`). Used by the stdio companion and by `/mcp`. Tool
 * arguments are validated here with the registry's zod schemas, so every face reports bad input the same
 * way and a toolset can choose how its errors read (reqlix answers JSON, G.C.6).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { DomainError, isDomainError } from "../core/errors.js";
import type { BaseContext } from "../core/registry.js";
import {
  type CompiledRegistry,
  completionResult,
  contentOf,
  parseToolInput,
  renderFailure,
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

type ServerOptions = ConstructorParameters<typeof Server>[1];

export interface McpServerConfig<Ctx extends BaseContext> {
  name: string;
  version: string;
  compiled: CompiledRegistry<Ctx>;
  /**
   * Builds the handler context for one request from the SDK's per-request data; `op` is the operation it
   * serves (absent for listings), so a face can audit a write inside the write's transaction.
   */
  context(base: BaseContext, op?: Operation): Ctx;
  /** Called for every failure that is not a DomainError (logged by the face; the model sees a generic text). */
  onInternalError?(error: unknown, where: string): string | undefined;
  /** Told once about every tools/call, resources/read and prompts/get, whatever the outcome (audit). */
  observe?: OperationObserver;
  /** The connection's toolsets, read-only mode and role (tool-selection.ts); absent: every tool. */
  scope?: ToolScope;
  /** Extra server options (e.g. a Workers-safe `jsonSchemaValidator`). */
  serverOptions?: Partial<NonNullable<ServerOptions>>;
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: {
    method: "notifications/progress" | "notifications/message";
    params: Record<string, unknown>;
  }) => Promise<void>;
};

const SEVERITY = new Map<LoggingLevel, number>(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** The client's `logging/setLevel`, per server instance (per connection on stdio, per request on /mcp). */
interface LogThreshold {
  level: LoggingLevel | undefined;
}

function baseContext(extra: Extra, threshold: LogThreshold): BaseContext {
  const token = extra._meta?.progressToken;
  return {
    signal: extra.signal,
    async logToClient(level, data, logger) {
      // Without a setLevel the client gets every message (as the SDK's own sendLoggingMessage does).
      const min = threshold.level;
      if (min !== undefined && (SEVERITY.get(level) ?? 0) < (SEVERITY.get(min) ?? 0)) return;
      await extra.sendNotification({
        method: "notifications/message",
        params: { level, data, ...(logger === undefined ? {} : { logger }) },
      });
    },
    async progress(progress, total, message) {
      if (token === undefined) return;
      await extra.sendNotification({
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

/**
 * A JSON-RPC error for the SDK to send. Not the SDK's `McpError`: its constructor puts "MCP error <code>: "
 * in front of the message, and the SDK sends `message` as it is, so every SDK-based client (which wraps the
 * answer in an McpError of its own) showed "MCP error -32002: MCP error -32002: …". The SDK's request
 * handler reads `code`, `message` and `data` from whatever is thrown.
 */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The same codes as `/api/v1/mcp` (DESIGN's error table), for the requests that fail as protocol errors. */
const MCP_CODES: Partial<Record<DomainError["code"], number>> = {
  invalid_input: ErrorCode.InvalidParams,
  not_found: -32002,
  conflict: -32009,
  forbidden: -32003,
  unauthorized: -32001,
  rate_limited: -32029,
};

function toMcpError(error: DomainError): ProtocolError {
  return new ProtocolError(MCP_CODES[error.code] ?? ErrorCode.InternalError, error.message, error.details);
}

/** Request params that do not fit the method's schema: -32602 naming each field (DESIGN's error table). */
function invalidParams(method: string, error: z.ZodError): ProtocolError {
  const errors = error.issues.map((issue) => {
    // Named as /api/v1/mcp names them: `params.arguments`.
    const path = issue.path.map(String);
    return { field: path.length > 0 ? path.join(".") : "(request)", message: issue.message };
  });
  const list = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
  return new ProtocolError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${list}`, { errors });
}

type AnyRequestSchema = Parameters<Server["setRequestHandler"]>[0];
type AnyRequestHandler = Parameters<Server["setRequestHandler"]>[1];

/**
 * The SDK's Protocol parses a request with the method's zod schema before any handler runs and answers a
 * mismatch (`arguments: 5`) with -32603 and zod's text. Every handler, the SDK's own (initialize, ping)
 * included, is registered here behind a schema that checks only the method, and the real schema is applied
 * inside, where a mismatch becomes -32602 with the field named.
 */
/** Method-only schemas, built once per method: `/mcp` builds a server per request, and making a zod object
 * for each of its ~12 handlers every time was most of that server's construction cost. */
const methodOnly = new Map<string, AnyRequestSchema>();

function methodOnlySchema(method: string): AnyRequestSchema {
  let schema = methodOnly.get(method);
  if (!schema) {
    schema = z.object({ method: z.literal(method) }).loose() as unknown as AnyRequestSchema;
    methodOnly.set(method, schema);
  }
  return schema;
}

class RegistryServer extends Server {
  override setRequestHandler(schema: AnyRequestSchema, handler: AnyRequestHandler): void {
    const shape = (schema as unknown as { shape: { method: { value: string } } }).shape;
    const method = shape.method.value;
    const strict = schema as unknown as z.ZodType;
    const loose = methodOnlySchema(method);
    const guarded = (async (request: unknown, extra: Parameters<AnyRequestHandler>[1]) => {
      const parsed = strict.safeParse(request);
      if (!parsed.success) throw invalidParams(method, parsed.error);
      return handler(parsed.data as never, extra);
    }) as AnyRequestHandler;
    // Server's own tools/call wrapper validates params first (in zod's words) and checks the result and
    // task fields; ours are checked here and built to the schema, and tasks are not offered.
    if (method === "tools/call") Protocol.prototype.setRequestHandler.call(this, loose, guarded as never);
    else super.setRequestHandler(loose, guarded);
  }
}

export function createMcpServer<Ctx extends BaseContext>(config: McpServerConfig<Ctx>): Server {
  const { compiled } = config;
  const hasResources = compiled.resources.length > 0;
  const hasPrompts = compiled.prompts.size > 0;
  const server = new RegistryServer(
    { name: config.name, version: config.version },
    {
      capabilities: {
        tools: {},
        ...(hasResources ? { resources: {} } : {}),
        ...(hasPrompts ? { prompts: {} } : {}),
        ...(compiled.completions ? { completions: {} } : {}),
        logging: {},
      },
      ...(compiled.instructions ? { instructions: compiled.instructions } : {}),
      ...config.serverOptions,
    },
  );

  const internal = (error: unknown, where: string): string =>
    config.onInternalError?.(error, where) ?? "Internal error";

  const threshold: LogThreshold = { level: undefined };
  // Replaces the SDK's handler, which keeps the level where our handler contexts cannot read it.
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    threshold.level = request.params.level;
    return {};
  });
  const context = (extra: unknown, op?: Operation): Ctx =>
    config.context(baseContext(extra as Extra, threshold), op);

  const selection = selectionFor(compiled, config.scope);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: selection.tools }) as never);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = compiled.tools.get(request.params.name);
    if (!tool) {
      observeUnknown(config.observe, "tools/call", request.params.name, "unknown_tool");
      const names = selection.tools.map((t) => t.name).join(", ");
      return {
        isError: true,
        content: [
          { type: "text", text: `Unknown tool "${request.params.name}". Available tools: ${names}.` },
        ],
      };
    }
    const args = request.params.arguments;
    const outcome = await runOperation(config.observe, "tools/call", tool.def.name, args, async (op) => {
      const refused = selection.refusal(tool);
      if (refused) throw refused;
      const input = parseToolInput(tool, args);
      const ctx = context(extra, op);
      const output = await tool.def.handler(input, ctx);
      // reference_id is only for the observer (the audit target of a create); the client gets `rendered`.
      return { rendered: renderSuccess(tool, output), reference_id: referenceOf(args, output) };
    });
    if (outcome.ok) {
      const { rendered } = outcome.value;
      return {
        content: contentOf(rendered) as CallToolResult["content"],
        ...(rendered.structured && tool.def.output ? { structuredContent: rendered.structured } : {}),
      };
    }
    const { error } = outcome;
    const domain = isDomainError(error)
      ? error
      : new DomainError("internal", internal(error, `tools/call ${tool.def.name}`));
    const rendered = renderFailure(tool, domain);
    return { isError: true, content: [{ type: "text", text: rendered.text }] };
  });

  if (hasResources) {
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: compiled.resources.map((r) => ({
        uriTemplate: r.uriTemplate,
        name: r.name,
        ...(r.title ? { title: r.title } : {}),
        description: r.description,
        mimeType: r.mimeType,
      })),
    }));
    server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
      const ctx = context(extra);
      const lists = await Promise.all(compiled.resources.map((r) => r.list?.(ctx) ?? Promise.resolve([])));
      return { resources: lists.flat() };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      for (const resource of compiled.resources) {
        const params = matchResource(resource, uri);
        if (!params) continue;
        const outcome = await runOperation(
          config.observe,
          "resources/read",
          uri,
          undefined,
          async (op) => {
            const ctx = context(extra, op);
            return { contents: await resource.read(params, uri, ctx) };
          },
          uri,
        );
        if (outcome.ok) return outcome.value;
        if (isDomainError(outcome.error)) throw toMcpError(outcome.error);
        throw new ProtocolError(ErrorCode.InternalError, internal(outcome.error, `resources/read ${uri}`));
      }
      observeUnknown(config.observe, "resources/read", uri, "not_found");
      throw new ProtocolError(-32002, `Resource not found: ${uri}`, { uri });
    });
  }

  if (hasPrompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: [...compiled.prompts.values()].map((p) => ({
        name: p.name,
        ...(p.title ? { title: p.title } : {}),
        description: p.description,
        arguments: p.arguments,
      })),
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      const prompt = compiled.prompts.get(request.params.name);
      if (!prompt) {
        observeUnknown(config.observe, "prompts/get", request.params.name, "unknown_prompt");
        throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}"`, {
          name: request.params.name,
        });
      }
      const args = request.params.arguments ?? {};
      const outcome = await runOperation(config.observe, "prompts/get", prompt.name, args, async (op) => {
        const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
        if (missing.length > 0) {
          throw DomainError.invalid(
            `Missing required argument(s): ${missing.join(", ")}`,
            missing.map((field) => ({ field, message: "required" })),
          );
        }
        const ctx = context(extra, op);
        return await prompt.get(args, ctx);
      });
      if (outcome.ok) return outcome.value;
      const { error } = outcome;
      if (isDomainError(error)) throw toMcpError(error);
      throw new ProtocolError(ErrorCode.InternalError, internal(error, `prompts/get ${prompt.name}`));
    });
  }

  if (compiled.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      const { ref, argument } = request.params;
      const known = request.params.context?.arguments ?? {};
      if (ref.type === "ref/prompt") {
        const prompt = compiled.prompts.get(ref.name);
        if (!prompt) {
          throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt "${ref.name}"`, {
            name: ref.name,
          });
        }
        return await complete(() => prompt.complete?.(argument.name, argument.value, context(extra), known));
      }
      const resource = compiled.resources.find((r) => r.uriTemplate === ref.uri);
      if (!resource) {
        const templates = compiled.resources.map((r) => r.uriTemplate).join(", ");
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `Unknown resource template "${ref.uri}". Known templates: ${templates}`,
          { uri: ref.uri },
        );
      }
      return await complete(() => resource.complete?.(argument.name, argument.value, context(extra), known));
    });
  }

  /** A definition without a completion hook answers no values (the capability is server-wide). */
  async function complete(fn: () => Promise<string[]> | string[] | undefined) {
    try {
      return completionResult((await fn()) ?? []);
    } catch (error) {
      if (isDomainError(error)) throw toMcpError(error);
      throw new ProtocolError(ErrorCode.InternalError, internal(error, "completion/complete"));
    }
  }

  return server;
}
