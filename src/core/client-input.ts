/**
 * Asking the client for input from a tool or prompt handler (`BaseContext.input`), and the one refusal
 * every face gives when its connection cannot carry the question (MCP ≤ 2025-11-25 on `/mcp` is served
 * stateless here, `/api/v1/mcp` has no server-to-client channel, the web app has no MCP client).
 */
import { DomainError } from "./errors.js";
import type { BaseContext, InputAnswer, InputRequest } from "./registry.js";

/** `ctx.input(requests)`, or the refusal when the face gives the handler no way to ask. */
export function askClient(
  ctx: BaseContext,
  requests: Record<string, InputRequest>,
): Promise<Record<string, InputAnswer>> {
  if (!ctx.input) throw cannotAsk(requests);
  return ctx.input(requests);
}

export function cannotAsk(requests: Record<string, InputRequest>): DomainError {
  const asked = [...new Set(Object.values(requests).map((r) => r.method))].join(", ");
  return DomainError.invalid(
    `This call needs input from the client (${asked}), and only MCP 2026-07-28 on /mcp can carry the ` +
      "question (an input_required result the client answers by retrying the call). Connect with protocol " +
      "version 2026-07-28, or call a tool that takes the answer as an argument.",
    [{ field: "(client)", message: `cannot answer ${asked} on this connection` }],
  );
}
