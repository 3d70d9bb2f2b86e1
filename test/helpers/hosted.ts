/**
 * The real hosted app (test/helpers/app.ts: temp libSQL file, migrated, bootstrapped, real auth and edge
 * middleware) served over real HTTP by @hono/node-server on 127.0.0.1 and a free port, for black-box
 * suites that need a URL: the conformance CLI, the Inspector, SDK clients, fuzzing over sockets.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { CreateAppDeps } from "../../src/app.js";
import type { Registry } from "../../src/core/registry.js";
import type { HostedContext } from "../../src/hosted/context.js";
import { hostedRegistry } from "../../src/hosted/registry.js";
import { createTestApp, type TestApp } from "./app.js";

export interface HostedServer extends TestApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
}

export interface HostedOptions {
  /** Test-only registries served beside the production one (the conformance fixtures). */
  extraRegistries?: Registry<HostedContext>[];
  deps?: Partial<CreateAppDeps>;
}

export async function startHosted(options: HostedOptions = {}): Promise<HostedServer> {
  const extra = options.extraRegistries ?? [];
  const testApp = await createTestApp({
    ...(extra.length > 0 ? { registries: [hostedRegistry, ...extra] } : {}),
    ...options.deps,
  });
  const server = serve({ fetch: testApp.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => {
    if (server.listening) resolve();
    else server.once("listening", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    ...testApp,
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      await new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
      await testApp.close();
    },
  };
}

/** Accept header every Streamable HTTP client sends. */
export const MCP_ACCEPT = "application/json, text/event-stream";

/** Parses a Streamable HTTP answer (JSON or SSE) into its JSON-RPC messages. */
export function parseMcpBody(contentType: string | null, text: string): unknown[] {
  if (text.trim() === "") return [];
  if (contentType?.includes("text/event-stream")) {
    const messages: unknown[] = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      if (data.trim() !== "") messages.push(JSON.parse(data));
    }
    return messages;
  }
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed : [parsed];
}
