/**
 * MCP 2026-07-28 (stateless: every request carries its protocol version and client capabilities in `_meta`)
 * served by the official SDK v2's low-level `Server`, over the registry compiled once per process. The SDK
 * owns the revision's wire rules: `server/discover`, the envelope and header checks, `resultType`, cache
 * hints, the serverInfo stamp, the error codes of the revision (a resource not found is -32602 with
 * `data.uri`; the SDK's codec maps our -32002). Each method runs once, in the protocol core
 * (protocol/methods.ts); this adapter only translates its outcome.
 *
 * Log messages reach the client only when the request asked for them (`io.modelcontextprotocol/logLevel`
 * in `_meta`): the SDK's `mcpReq.log` drops them otherwise, and then no SSE stream is opened.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { BaseContext } from "../../core/registry.js";
import type { InputExchange } from "../input-exchange.js";
import { handleMethod, type MethodEnv, type ServerNotification, supportedMethods } from "../methods.js";

type ServerOptions = NonNullable<ConstructorParameters<typeof Server>[1]>;

export type ModernServerConfig<Ctx extends BaseContext> = Omit<
  MethodEnv<Ctx>,
  "signal" | "notify" | "session" | "input"
> & {
  /** The v2 SDK's validator (the Worker passes one that needs no `new Function`). */
  jsonSchemaValidator?: ServerOptions["jsonSchemaValidator"];
  /**
   * Where handlers may ask the client for input (multi-round-trip requests): the key request states are
   * signed with and the caller they are bound to. Absent (stdio): `ctx.input` is refused.
   */
  inputState?: Pick<InputExchange, "key" | "caller" | "now">;
};

/**
 * How long a client may reuse a result (2026-07-28 cache hints). Definitions change only with a deploy, so
 * their listings and the discover result may be kept a minute; everything that reads workspace data is
 * not cached. All are `private`: what a caller sees depends on its token.
 */
const DEFINITIONS_TTL_MS = 60_000;
const CACHE_HINTS: ServerOptions["cacheHints"] = {
  "server/discover": { ttlMs: DEFINITIONS_TTL_MS, cacheScope: "private" },
  "tools/list": { ttlMs: DEFINITIONS_TTL_MS, cacheScope: "private" },
  "prompts/list": { ttlMs: DEFINITIONS_TTL_MS, cacheScope: "private" },
  "resources/templates/list": { ttlMs: DEFINITIONS_TTL_MS, cacheScope: "private" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};

/**
 * The SDK's validator checks only answers to its own push-style `elicitInput`, which reqlix never calls:
 * our handlers ask through `input_required` results and the protocol core checks every answer
 * (protocol/input-answers.ts). Without this the SDK would build ajv for every per-request server.
 */
export const NO_INPUT_VALIDATION: NonNullable<ServerOptions["jsonSchemaValidator"]> = {
  getValidator() {
    throw new Error(
      "reqlix does not use the SDK's push-style elicitation; answers are checked by protocol/input-answers.ts",
    );
  },
};

/** The request's input exchange: what it declared, answered and echoed, as the SDK lifted them. */
function inputExchangeOf(
  ctx: ServerContext,
  state: ModernServerConfig<BaseContext>["inputState"],
): InputExchange | undefined {
  if (!state) return undefined;
  const echoed = ctx.mcpReq.requestState();
  const capabilities = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as unknown;
  return {
    ...state,
    capabilities:
      typeof capabilities === "object" && capabilities !== null
        ? (capabilities as Record<string, unknown>)
        : undefined,
    responses: ctx.mcpReq.inputResponses,
    // Not a string (a number, an object) is no state of ours: refused like a forged one.
    state: echoed === undefined ? undefined : typeof echoed === "string" ? echoed : JSON.stringify(echoed),
  };
}

const ERA_2025_ONLY = new Set(["initialize", "ping", "logging/setLevel"]);

/** The SDK's `setRequestHandler` is typed per spec method; every method here is one of those. */
type AnyHandler = (request: { params?: Record<string, unknown> }, ctx: ServerContext) => Promise<never>;

export function createModernServer<Ctx extends BaseContext>(config: ModernServerConfig<Ctx>): Server {
  const { compiled } = config;
  const probe: MethodEnv<Ctx> = { ...config, signal: AbortSignal.abort() };
  // 2026-07-28 has no initialize, ping or logging/setLevel: the SDK answers discovery itself, and a request
  // asks for log messages in its own `_meta`.
  const methods = supportedMethods(probe).filter((m) => !ERA_2025_ONLY.has(m));
  const server = new Server(config.serverInfo, {
    capabilities: {
      tools: {},
      ...(compiled.resources.length > 0 ? { resources: {} } : {}),
      ...(compiled.prompts.size > 0 ? { prompts: {} } : {}),
      ...(compiled.completions ? { completions: {} } : {}),
      logging: {},
    },
    ...(compiled.instructions ? { instructions: compiled.instructions } : {}),
    cacheHints: CACHE_HINTS,
    ...(config.jsonSchemaValidator ? { jsonSchemaValidator: config.jsonSchemaValidator } : {}),
  });

  for (const method of methods) {
    const handler: AnyHandler = async (request, ctx) => {
      const input = inputExchangeOf(ctx, config.inputState);
      const env: MethodEnv<Ctx> = {
        ...config,
        ...(input ? { input } : {}),
        signal: ctx.mcpReq.signal,
        notify: (n: ServerNotification) =>
          n.method === "notifications/message"
            ? ctx.mcpReq.log(
                n.params.level as Parameters<ServerContext["mcpReq"]["log"]>[0],
                n.params.data,
                n.params.logger as string | undefined,
              )
            : ctx.mcpReq.notify(n),
      };
      const outcome = await handleMethod(method, request.params, env);
      if (outcome.ok) {
        // An input_required round goes out as it is: the SDK checks its requests against the client's
        // declared capabilities (-32021) and it has no content to project.
        if (method !== "tools/call" || outcome.result.resultType === "input_required")
          return outcome.result as never;
        const tool = compiled.tools.get(String(request.params?.name));
        return server.projectCallToolResult(outcome.result as never, tool?.listed.outputSchema) as never;
      }
      // A tool's own failure is a result the model reads (isError), as on every other face.
      if (outcome.toolResult) return outcome.toolResult as never;
      const { code, message, data } = outcome.error;
      // 2026-07-28: a resource that is not there is -32602 with data.uri (the SDK's codec maps the code).
      const withUri =
        method === "resources/read" && code === -32002
          ? { ...(typeof data === "object" && data !== null ? data : {}), uri: request.params?.uri }
          : data;
      throw new ProtocolError(code, message, withUri);
    };
    server.setRequestHandler(method as "tools/list", handler as never);
  }
  return server;
}
