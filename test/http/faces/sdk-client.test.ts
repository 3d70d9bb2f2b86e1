/**
 * /mcp as an MCP client sees it: the real SDK `Client` over `StreamableHTTPClientTransport`, against the
 * real app served by @hono/node-server on a free port.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledFor } from "../../../src/http/faces-common.js";
import { type HostedServer, startHosted } from "../../helpers/hosted.js";
import { faceFixtures, withFixtures } from "./face-fixtures.js";

let server: HostedServer;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startHosted({ extraRegistries: [faceFixtures] });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.close();
});

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "reqlix-face-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

describe("SDK Client over Streamable HTTP", () => {
  it("initializes statelessly, with the server's name, version and instructions", async () => {
    const client = await connect(server.ownerToken);
    expect(client.getServerVersion()).toEqual({ name: "reqlix", version: "0.0.0-test" });
    const compiled = compiledFor({
      database: server.database,
      logger: { log() {} },
      registries: withFixtures,
    });
    expect(client.getInstructions()).toBe(compiled.instructions);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it("lists exactly the compiled registry's tools, schemas included", async () => {
    const client = await connect(server.ownerToken);
    const { tools } = await client.listTools();
    const compiled = compiledFor({
      database: server.database,
      logger: { log() {} },
      registries: withFixtures,
    });
    expect(tools).toEqual(compiled.toolList);
  });

  it("calls a tool as the token's user, with progress notifications over SSE", async () => {
    const client = await connect(server.ownerToken);
    const progress: number[] = [];
    const result = await client.callTool({ name: "fixture_count", arguments: { steps: 4 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(result.structuredContent).toEqual({ counted: 4, workspace: "default" });
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it("serves many calls on one client though every request gets a fresh server", async () => {
    const client = await connect(server.ownerToken);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.callTool({ name: "fixture_count", arguments: { steps: (i % 10) + 1 } }),
      ),
    );
    expect(results.map((r) => (r.structuredContent as { counted: number }).counted)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 10) + 1),
    );
  });

  it("reports tool failures as isError results the model can read", async () => {
    const client = await connect(server.ownerToken);
    const bad = await client.callTool({
      name: "get_user_story_requirements",
      arguments: { user_story: "047" },
    });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("Invalid user story reference ID format");
  });

  it("lists resource templates and prompts when the registry has them", async () => {
    const client = await connect(server.ownerToken);
    const caps = client.getServerCapabilities() ?? {};
    const compiled = compiledFor({
      database: server.database,
      logger: { log() {} },
      registries: withFixtures,
    });
    expect(Boolean(caps.resources)).toBe(compiled.resources.length > 0);
    expect(Boolean(caps.prompts)).toBe(compiled.prompts.size > 0);
    if (caps.resources) {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(
        compiled.resources.map((r) => r.uriTemplate),
      );
    }
    if (caps.prompts) {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual([...compiled.prompts.keys()]);
    }
  });

  it("sends protocol errors whose message a client shows with the code once", async () => {
    const client = await connect(server.ownerToken);
    const missing = await client.readResource({ uri: "epic://EP-999" }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string },
    );
    expect(missing?.code).toBe(-32002);
    expect(missing?.message).toMatch(/^MCP error -32002: Epic not found/);
    expect(missing?.message.match(/MCP error/g)).toHaveLength(1);
    const prompt = await client.getPrompt({ name: "no_such_prompt", arguments: {} }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string },
    );
    // The same code as /api/v1/mcp (one error table): an unknown prompt is -32601, naming the prompts.
    expect(prompt?.code).toBe(-32601);
    expect(prompt?.message).toMatch(
      /^MCP error -32601: Unknown prompt "no_such_prompt"\. Available prompts: /,
    );
    expect(prompt?.message.match(/MCP error/g)).toHaveLength(1);
  });

  it("refuses a client without a valid token (401)", async () => {
    await expect(connect(`rqx_${"Z".repeat(43)}`)).rejects.toThrow(/401|Unauthorized/);
  });
});
