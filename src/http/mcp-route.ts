/**
 * `/mcp`: stateless Streamable HTTP. Each POST gets a fresh SDK server and transport (the SDK refuses to
 * reuse a transport across requests; no session ids), built over the registry compiled once at app build,
 * so a request converts no schemas. GET (a standalone SSE stream) and DELETE (ending a session) mean
 * nothing without sessions: 405.
 *
 * Responses are JSON unless an SSE stream is useful and accepted: when the client accepts
 * `text/event-stream` and asked for progress (`_meta.progressToken`) or calls a tool that logs to the client
 * (`ToolDef.logs`), the answer streams so those notifications reach it before the result. A client that accepts only `application/json` (or sends no
 * Accept, or accepts any type) is served JSON; one that accepts neither gets the transport's 406.
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { Hono } from "hono";
import type { HostedContext } from "../hosted/context.js";
import type { CompiledRegistry } from "../protocol/compile.js";
import { createMcpServer } from "../protocol/mcp-server.js";
import type { AppEnv } from "./context.js";
import { auditFor, compiledFor, type FacesDeps, requestScope } from "./faces-common.js";
import { modernMcp } from "./mcp-modern.js";
import { rateLimit } from "./rate-limit.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** True when any request in the body carries a progress token. */
function wantsProgress(message: unknown): boolean {
  const messages = Array.isArray(message) ? message : [message];
  return messages.some((m) => {
    const meta = isObject(m) && isObject(m.params) ? m.params._meta : undefined;
    return isObject(meta) && meta.progressToken !== undefined;
  });
}

/** True when any request in the body is a tools/call of a tool that sends log messages. */
function callsLoggingTool(message: unknown, compiled: CompiledRegistry<HostedContext>): boolean {
  const messages = Array.isArray(message) ? message : [message];
  return messages.some((m) => {
    if (!isObject(m) || m.method !== "tools/call" || !isObject(m.params)) return false;
    const name = m.params.name;
    return typeof name === "string" && compiled.tools.get(name)?.def.logs === true;
  });
}

function methodNotAllowed(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: "Method not allowed: this stateless server takes POST only (no sessions, no GET stream)",
      },
    }),
    { status: 405, headers: { "content-type": "application/json", allow: "POST" } },
  );
}

export function mcpRoute(deps: FacesDeps): Hono<AppEnv> {
  const compiled = compiledFor(deps);
  const audit = auditFor(deps);
  const version = deps.version ?? "0.0.0";
  // One validator for every per-request server (a new ajv per request would cost more than the request).
  const jsonSchemaValidator = deps.jsonSchemaValidator ?? new AjvJsonSchemaValidator();
  const modern = modernMcp(deps, jsonSchemaValidator);
  const route = new Hono<AppEnv>();
  if (deps.rateLimiter) route.use("*", rateLimit({ limiter: deps.rateLimiter, logger: deps.logger }));

  route.post("/", async (c) => {
    const text = await c.req.text();
    let parsed: unknown;
    let parsedOk = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsedOk = false;
    }
    // MCP 2026-07-28 requests (the per-request envelope) are served by the SDK v2 adapter.
    if (await modern.isModern(c.req.raw, parsed, parsedOk)) return modern.serve(c, parsed);

    const scope = requestScope(c, deps, audit, "mcp");
    const server = createMcpServer<HostedContext>({
      name: "reqlix",
      version,
      compiled,
      context: scope.context,
      observe: scope.observe,
      onInternalError(error, where) {
        scope.logInternal(error, where);
        return `Internal error (request id ${scope.requestId}); the details are in the server log.`;
      },
      serverOptions: { jsonSchemaValidator },
    });

    const accept = c.req.header("accept") ?? "";
    const acceptsSse = accept.includes("text/event-stream");
    const acceptsJson = accept.includes("application/json");
    const stream = acceptsSse && parsedOk && (wantsProgress(parsed) || callsLoggingTool(parsed, compiled));
    // The transport insists on both media types in Accept; a client that takes JSON (or anything: no
    // Accept, or the any-type wildcard curl sends) is still served, as JSON.
    const jsonOnly = !acceptsSse && (acceptsJson || accept.trim() === "" || accept.includes("*/*"));
    let request = c.req.raw;
    if (jsonOnly) {
      const headers = new Headers(request.headers);
      headers.set("accept", "application/json, text/event-stream");
      request = new Request(request.url, { method: "POST", headers, body: text });
    } else if (!parsedOk) {
      // Let the transport answer a bad body in its own words (-32700), from the text we already read.
      request = new Request(request.url, { method: "POST", headers: request.headers, body: text });
    }

    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !stream,
    });
    await server.connect(transport);
    // Not closed afterwards: a JSON answer is complete when this resolves and an SSE stream closes itself
    // after its last response; server.close() would only build a ConnectionClosed error (with a stack)
    // for requests that no longer exist. Both objects are garbage once the response is sent.
    return transport.handleRequest(request, parsedOk ? { parsedBody: parsed } : undefined);
  });

  route.get("/", methodNotAllowed);
  route.delete("/", methodNotAllowed);
  return route;
}
