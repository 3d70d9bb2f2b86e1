/**
 * Registry → MCP server (SDK low-level `Server`). Used by the stdio companion and by `/mcp`. Tool
 * arguments are validated here with the registry's zod schemas, so every face reports bad input the same
 * way and a toolset can choose how its errors read (reqlix answers JSON, G.C.6).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { DomainError, isDomainError } from "../core/errors.js";
import type { BaseContext } from "../core/registry.js";
import { type CompiledRegistry, parseToolInput, renderFailure, renderSuccess } from "./compile.js";

type ServerOptions = ConstructorParameters<typeof Server>[1];

export interface McpServerConfig<Ctx extends BaseContext> {
  name: string;
  version: string;
  compiled: CompiledRegistry<Ctx>;
  /** Builds the handler context for one request from the SDK's per-request data. */
  context(base: BaseContext): Ctx;
  /** Called for every failure that is not a DomainError (logged by the face; the model sees a generic text). */
  onInternalError?(error: unknown, where: string): string | undefined;
  /** Extra server options (e.g. a Workers-safe `jsonSchemaValidator`). */
  serverOptions?: Partial<NonNullable<ServerOptions>>;
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: "notifications/progress"; params: Record<string, unknown> }) => Promise<void>;
};

function baseContext(extra: Extra): BaseContext {
  const token = extra._meta?.progressToken;
  return {
    signal: extra.signal,
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

function toMcpError(error: DomainError): McpError {
  const code = error.code === "not_found" ? -32002 : error.code === "invalid_input" ? ErrorCode.InvalidParams : -32603;
  return new McpError(code, error.message, error.details);
}

export function createMcpServer<Ctx extends BaseContext>(config: McpServerConfig<Ctx>): Server {
  const { compiled } = config;
  const hasResources = compiled.resources.length > 0;
  const hasPrompts = compiled.prompts.size > 0;
  const server = new Server(
    { name: config.name, version: config.version },
    {
      capabilities: {
        tools: {},
        ...(hasResources ? { resources: {} } : {}),
        ...(hasPrompts ? { prompts: {} } : {}),
        logging: {},
      },
      ...(compiled.instructions ? { instructions: compiled.instructions } : {}),
      ...config.serverOptions,
    },
  );

  const internal = (error: unknown, where: string): string =>
    config.onInternalError?.(error, where) ?? "Internal error";

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: compiled.toolList }) as never);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = compiled.tools.get(request.params.name);
    if (!tool) {
      const names = [...compiled.tools.keys()].join(", ");
      return {
        isError: true,
        content: [{ type: "text", text: `Unknown tool "${request.params.name}". Available tools: ${names}.` }],
      };
    }
    try {
      const input = parseToolInput(tool, request.params.arguments);
      const ctx = config.context(baseContext(extra as unknown as Extra));
      const output = await tool.def.handler(input, ctx);
      const rendered = renderSuccess(tool, output);
      return {
        content: [{ type: "text", text: rendered.text }],
        ...(rendered.structured && tool.def.output ? { structuredContent: rendered.structured } : {}),
      };
    } catch (error) {
      const domain = isDomainError(error)
        ? error
        : new DomainError("internal", internal(error, `tools/call ${tool.def.name}`));
      const rendered = renderFailure(tool, domain);
      return { isError: true, content: [{ type: "text", text: rendered.text }] };
    }
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
      const ctx = config.context(baseContext(extra as unknown as Extra));
      const lists = await Promise.all(compiled.resources.map((r) => r.list?.(ctx) ?? Promise.resolve([])));
      return { resources: lists.flat() };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const uri = request.params.uri;
      for (const resource of compiled.resources) {
        const params = resource.match(uri);
        if (!params) continue;
        try {
          const ctx = config.context(baseContext(extra as unknown as Extra));
          return { contents: await resource.read(params, uri, ctx) };
        } catch (error) {
          if (isDomainError(error)) throw toMcpError(error);
          throw new McpError(ErrorCode.InternalError, internal(error, `resources/read ${uri}`));
        }
      }
      throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
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
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}"`, {
          name: request.params.name,
        });
      }
      const args = request.params.arguments ?? {};
      const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
      if (missing.length > 0) {
        throw new McpError(ErrorCode.InvalidParams, `Missing required argument(s): ${missing.join(", ")}`, {
          errors: missing.map((field) => ({ field, message: "required" })),
        });
      }
      try {
        const ctx = config.context(baseContext(extra as unknown as Extra));
        return await prompt.get(args, ctx);
      } catch (error) {
        if (isDomainError(error)) throw toMcpError(error);
        throw new McpError(ErrorCode.InternalError, internal(error, `prompts/get ${prompt.name}`));
      }
    });
  }

  return server;
}
