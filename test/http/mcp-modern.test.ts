/**
 * MCP 2026-07-28 beside the 2025 revisions on `/mcp` (issue 12 item 2), over real HTTP with the real auth:
 * the SDK v2 client pinned to 2026-07-28 and the SDK v1 client (initialize, 2025-11-25) both connect and
 * call tools; the revision's header checks, error codes, cache hints and server/discover; log messages only
 * when the request asks for them.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedContext } from "../../src/hosted/context.js";
import { conformanceRegistry } from "../fixtures/conformance-registry.js";
import { type HostedServer, MCP_ACCEPT, parseMcpBody, startHosted } from "../helpers/hosted.js";

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
};

let hosted: HostedServer;
let token: string;

beforeAll(async () => {
  // The conformance fixtures beside the production registry: they include a tool that logs to the client.
  hosted = await startHosted({ extraRegistries: [conformanceRegistry<HostedContext>()] });
  token = await hosted.createToken("modern", "editor");
});

afterAll(async () => {
  await hosted?.close();
});

interface RawAnswer {
  status: number;
  contentType: string | null;
  messages: Array<Record<string, unknown>>;
}

/** One POST to /mcp with the 2026-07-28 headers derived from the body, unless `headers` overrides them. */
async function post(
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | undefined> = {},
): Promise<RawAnswer> {
  const name =
    typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const all: Record<string, string | undefined> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: MCP_ACCEPT,
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": name }),
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const response = await fetch(`${hosted.url}/mcp`, {
    method: "POST",
    headers: sent,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: { ...META, ...(params._meta as object) } },
    }),
  });
  const contentType = response.headers.get("content-type");
  return {
    status: response.status,
    contentType,
    messages: parseMcpBody(contentType, await response.text()) as Array<Record<string, unknown>>,
  };
}

function last(answer: RawAnswer): Record<string, unknown> {
  const message = answer.messages.at(-1);
  if (!message) throw new Error(`no message in the answer (HTTP ${answer.status})`);
  return message;
}

describe("the SDK v2 client pinned to 2026-07-28", () => {
  it("connects without initialize, lists and calls tools, and reads the revision's result fields", async () => {
    const client = new ClientV2(
      { name: "reqlix-modern-test", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new TransportV2(new URL(`${hosted.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getServerVersion()?.name).toBe("reqlix");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("create_epic");

      const created = await client.callTool({ name: "create_epic", arguments: { title: "Modern checkout" } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      const ref = (created.structuredContent as { reference_id?: string }).reference_id;
      expect(ref).toMatch(/^EP-\d{3}$/);

      const invalid = await client.callTool({
        name: "get_user_story_requirements",
        arguments: { user_story: "story 7" },
      });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain("Invalid user story reference ID format");

      const read = await client.readResource({ uri: `epic://${ref}` });
      expect(JSON.stringify(read.contents)).toContain("Modern checkout");
    } finally {
      await client.close();
    }
  });

  it("is refused a resource that is not there with -32602 and data.uri (2026-07-28's code)", async () => {
    const client = new ClientV2(
      { name: "reqlix-modern-test", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(
      new TransportV2(new URL(`${hosted.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const error = await client.readResource({ uri: "nothing://here" }).then(
        () => undefined,
        (e: unknown) => e as { code?: number; data?: { uri?: string }; message: string },
      );
      expect(error?.code).toBe(-32602);
      expect(error?.data?.uri).toBe("nothing://here");
      expect(error?.message).toContain("Resource not found: nothing://here");
    } finally {
      await client.close();
    }
  });
});

describe("a dual-era SDK v2 client (auto negotiation)", () => {
  it("lands on 2026-07-28 with its first request: server/discover succeeds, no initialize follows", async () => {
    const seen: string[] = [];
    const client = new ClientV2(
      { name: "reqlix-auto-test", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(
      new TransportV2(new URL(`${hosted.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: async (input, init) => {
          const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
          if (body.method) seen.push(body.method);
          return fetch(input, init);
        },
      }),
    );
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(seen).toEqual(["server/discover"]);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe("the SDK v1 client (initialize, 2025-11-25) on the same /mcp", () => {
  it("still connects, calls tools and gets -32002 for a resource that is not there", async () => {
    const client = new Client({ name: "reqlix-legacy-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${hosted.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe("reqlix");
      const created = await client.callTool({ name: "create_epic", arguments: { title: "Legacy checkout" } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      const error = await client.readResource({ uri: "nothing://here" }).then(
        () => undefined,
        (e: unknown) => e as { code?: number },
      );
      expect(error?.code).toBe(-32002);
    } finally {
      await client.close();
    }
  });
});

describe("2026-07-28 on the wire", () => {
  it("server/discover names the revision, the capabilities, the instructions and the server", async () => {
    const answer = await post("server/discover", {});
    expect(answer.status).toBe(200);
    const result = last(answer).result as Record<string, unknown>;
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(typeof result.instructions).toBe("string");
    expect(result.resultType).toBe("complete");
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: "private" });
    expect((result._meta as Record<string, unknown>)["io.modelcontextprotocol/serverInfo"]).toMatchObject({
      name: "reqlix",
    });
  });

  it("puts resultType and cache hints on results: definitions a minute, workspace data not at all", async () => {
    const tools = last(await post("tools/list", {})).result as Record<string, unknown>;
    expect(tools).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "private" });
    const resources = last(await post("resources/list", {})).result as Record<string, unknown>;
    expect(resources).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
  });

  it("refuses an Mcp-Method header that disagrees with the body: HTTP 400, -32020", async () => {
    const answer = await post("tools/list", {}, { "mcp-method": "tools/call" });
    expect(answer.status).toBe(400);
    const error = last(answer).error as { code: number; message: string };
    expect(error.code).toBe(-32020);
    expect(error.message).toContain("Mcp-Method");
  });

  it("refuses an Mcp-Name header that disagrees with the tool name: HTTP 400, -32020", async () => {
    const answer = await post(
      "tools/call",
      { name: "list_epics", arguments: {} },
      { "mcp-name": "delete_epic" },
    );
    expect(answer.status).toBe(400);
    expect((last(answer).error as { code: number }).code).toBe(-32020);
  });

  it("refuses a request without the MCP-Protocol-Version header", async () => {
    const answer = await post("tools/list", {}, { "mcp-protocol-version": undefined });
    expect(answer.status).toBe(400);
    expect(last(answer).error).toBeDefined();
  });

  it("refuses an envelope naming a revision it does not serve with -32022 and the supported list", async () => {
    const answer = await post(
      "tools/list",
      { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      { "mcp-protocol-version": "2099-01-01" },
    );
    const error = last(answer).error as { code: number; data: { supported: string[] } };
    expect(error.code).toBe(-32022);
    expect(error.data.supported).toContain(MODERN);
  });

  it("sends a tool's log messages only when the request asks for them (logLevel in _meta)", async () => {
    const logged = (a: RawAnswer) => a.messages.filter((m) => m.method === "notifications/message");
    const call = { name: "test_tool_with_logging", arguments: {} };
    const quiet = await post("tools/call", call);
    expect(quiet.contentType).toContain("application/json");
    expect(logged(quiet)).toEqual([]);
    expect(JSON.stringify(last(quiet).result)).toContain("Logging tool completed.");

    const asked = await post("tools/call", {
      ...call,
      _meta: { "io.modelcontextprotocol/logLevel": "info" },
    });
    expect(asked.contentType).toContain("text/event-stream");
    expect(logged(asked).map((m) => (m.params as { data: string }).data)).toEqual([
      "Tool execution started",
      "Tool processing data",
      "Tool execution completed",
    ]);
    expect(JSON.stringify(last(asked).result)).toContain("Logging tool completed.");

    const above = await post("tools/call", {
      ...call,
      _meta: { "io.modelcontextprotocol/logLevel": "error" },
    });
    expect(logged(above)).toEqual([]);
  });

  it("runs behind the real auth: no token, no answer", async () => {
    const response = await fetch(`${hosted.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: MCP_ACCEPT,
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }),
    });
    expect(response.status).toBe(401);
  });

  it("audits a 2026-07-28 tools/call like any other (channel mcp)", async () => {
    const answer = await post("tools/call", { name: "create_epic", arguments: { title: "Audited modern" } });
    const result = last(answer).result as { structuredContent: { reference_id: string } };
    const ref = result.structuredContent.reference_id;
    const rows = await hosted.database.client.execute({
      sql: "SELECT channel, target, outcome FROM audit_events WHERE reference_id = ? ORDER BY id",
      args: [ref],
    });
    expect(rows.rows.map((r) => [r.channel, r.target, r.outcome])).toEqual([["mcp", "create_epic", "ok"]]);
  });
});
