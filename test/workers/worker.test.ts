/**
 * The real Worker (src/worker.ts under `wrangler dev`, i.e. workerd) over the local libSQL endpoint: the
 * runtime differences that vitest on Node cannot see (no `new Function`, web-only libSQL client, bindings)
 * show up here.
 */
import { createClient } from "@libsql/client";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthProxy, startAuthProxy } from "../helpers/proxy.js";
import { postAs, type StartedWorker, startWorker } from "../helpers/workers.js";

let worker: StartedWorker;

beforeAll(async () => {
  worker = await startWorker();
}, 240_000);

afterAll(async () => {
  await worker?.close();
}, 60_000);

async function rpc(body: unknown, token?: string): Promise<Response> {
  return fetch(`${worker.url}/api/v1/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
}

describe("the Worker under wrangler dev", () => {
  it("answers /healthz from the database behind LIBSQL_URL", async () => {
    const res = await fetch(`${worker.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = (await res.json()) as { status: string; version: string };
    expect(body.status).toBe("ok");
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("authenticates JSON-RPC calls with a token registered in the database", async () => {
    const ok = await rpc({ jsonrpc: "2.0", id: 1, method: "ping" }, worker.token);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });

    const missing = await rpc({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe(
      `Bearer realm="reqlix", resource_metadata="${worker.url}/.well-known/oauth-protected-resource/mcp"`,
    );

    const unknown = await rpc({ jsonrpc: "2.0", id: 3, method: "ping" }, `rqx_${"x".repeat(40)}`);
    expect(unknown.status).toBe(401);
  });

  it("writes through the Worker's libSQL client: the token's last_used_at lands in the embedded file", async () => {
    const res = await rpc({ jsonrpc: "2.0", id: 5, method: "ping" }, worker.token);
    expect(res.status).toBe(200);
    const file = createClient({ url: `file:${worker.dbFile}` });
    try {
      // The touch may finish after the response (waitUntil): poll briefly.
      let lastUsed: unknown = null;
      for (let i = 0; i < 50 && lastUsed === null; i++) {
        const rs = await file.execute("SELECT last_used_at FROM tokens WHERE name = 'bootstrap'");
        lastUsed = rs.rows[0]?.last_used_at ?? null;
        if (lastUsed === null) await new Promise((r) => setTimeout(r, 100));
      }
      expect(typeof lastUsed).toBe("string");
      expect(Number.isNaN(Date.parse(String(lastUsed)))).toBe(false);
    } finally {
      file.close();
    }
  });

  it("keeps every acknowledged write when 8 admin requests write at once through the Worker", async () => {
    const names = Array.from({ length: 8 }, (_, i) => `worker-writer-${i}`);
    const responses = await Promise.all(
      names.map((username) =>
        fetch(`${worker.url}/api/v1/admin/members`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${worker.token}` },
          body: JSON.stringify({ username, role: "editor" }),
        }),
      ),
    );
    const statuses = await Promise.all(
      responses.map(async (r) => `${r.status} ${r.status === 201 ? "" : await r.text()}`),
    );
    expect(statuses).toEqual(names.map(() => "201 "));
    const file = createClient({ url: `file:${worker.dbFile}` });
    try {
      const rs = await file.execute(
        "SELECT username FROM users WHERE username LIKE 'worker-writer-%' ORDER BY username",
      );
      expect(rs.rows.map((r) => r.username)).toEqual([...names].sort());
    } finally {
      file.close();
    }
  });

  it("serves /mcp to the SDK client: initialize, tools/list, tools/call that writes; JSON-RPC reads it back", async () => {
    const client = new Client({ name: "reqlix-worker-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${worker.token}` } },
    });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe("reqlix");
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain("get_user_story_requirements");
      const tool = tools.find((t) => t.name === "get_user_story_requirements");
      expect(tool?.inputSchema.properties).toHaveProperty("user_story");

      const invalid = await client.callTool({
        name: "get_user_story_requirements",
        arguments: { user_story: "story 7" },
      });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain("Invalid user story reference ID format");

      const created = await client.callTool({
        name: "create_epic",
        arguments: { title: "Checkout from a Worker" },
      });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      expect((created.structuredContent as { reference_id?: string } | undefined)?.reference_id).toBe(
        "EP-001",
      );
    } finally {
      await client.close();
    }

    // The write went through the Worker's HTTP client and the endpoint into the embedded file…
    const file = createClient({ url: `file:${worker.dbFile}` });
    try {
      const rs = await file.execute("SELECT reference_id, title FROM epics");
      expect(rs.rows.map((r) => [r.reference_id, r.title])).toEqual([["EP-001", "Checkout from a Worker"]]);
    } finally {
      file.close();
    }
    // …and the other face reads it back.
    const res = await rpc(
      {
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: "get_epic", arguments: { epic_id: "ep-001" } },
      },
      worker.token,
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result?: { structuredContent?: { reference_id?: string } } };
    expect(body.result?.structuredContent?.reference_id).toBe("EP-001");
  });

  it("writes back to back without a transaction left open: each call is quick and audited in workerd", async () => {
    // Regression: audit rows batched across requests ran in a finished request's context; workerd cancelled
    // them mid-transaction and the next write waited for the lock until the endpoint expired the stream.
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const started = Date.now();
      const res = await rpc(
        {
          jsonrpc: "2.0",
          id: 100 + i,
          method: "tools/call",
          params: { name: "create_epic", arguments: { title: `Back to back ${i}` } },
        },
        worker.token,
      );
      const body = (await res.json()) as { result?: { structuredContent?: { reference_id?: string } } };
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(4_000);
      ids.push(body.result?.structuredContent?.reference_id ?? "missing");
    }
    expect(new Set(ids).size).toBe(6);
    expect(worker.output()).not.toContain("hung");
    const file = createClient({ url: `file:${worker.dbFile}` });
    try {
      let audited = 0;
      for (let i = 0; i < 50 && audited < 6; i++) {
        const rs = await file.execute(
          "SELECT count(*) AS c FROM audit_events WHERE channel = 'jsonrpc' AND target = 'create_epic' AND outcome = 'ok'",
        );
        audited = Number(rs.rows[0]?.c);
        if (audited < 6) await new Promise((r) => setTimeout(r, 100));
      }
      expect(audited).toBeGreaterThanOrEqual(6);
    } finally {
      file.close();
    }
  });

  it("refuses /mcp without a token", async () => {
    const client = new Client({ name: "reqlix-worker-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`));
    await expect(client.connect(transport)).rejects.toThrow(/401|Unauthorized/i);
  });
});

describe("MCP 2026-07-28 beside the 2025 era on the Worker's /mcp", () => {
  const modernClient = async () => {
    const client = new ClientV2(
      { name: "reqlix-worker-modern", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new TransportV2(new URL(`${worker.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${worker.token}` } },
      }),
    );
    return client;
  };

  it("the SDK v2 client pinned to 2026-07-28 connects, lists and calls tools in workerd", async () => {
    const client = await modernClient();
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getServerVersion()?.name).toBe("reqlix");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("create_epic");
      const created = await client.callTool({
        name: "create_epic",
        arguments: { title: "Modern in workerd" },
      });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      expect((created.structuredContent as { reference_id?: string }).reference_id).toMatch(/^EP-\d{3}$/);
      const missing = await client.readResource({ uri: "nothing://here" }).then(
        () => undefined,
        (e: unknown) => e as { code?: number; data?: { uri?: string } },
      );
      expect(missing?.code).toBe(-32602);
      expect(missing?.data?.uri).toBe("nothing://here");
    } finally {
      await client.close();
    }
  });

  it("the SDK v1 client (initialize, 2025-11-25) still connects and gets -32002 for a missing resource", async () => {
    const client = new Client({ name: "reqlix-worker-legacy", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${worker.token}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("create_epic");
      const missing = await client.readResource({ uri: "nothing://here" }).then(
        () => undefined,
        (e: unknown) => e as { code?: number },
      );
      expect(missing?.code).toBe(-32002);
    } finally {
      await client.close();
    }
  });

  it("refuses an Mcp-Method header that disagrees with the body (400, -32020) and serves server/discover", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const send = (method: string, header: string) =>
      fetch(`${worker.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${worker.token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": header,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { _meta: meta } }),
      });
    const mismatch = await send("tools/list", "prompts/list");
    expect(mismatch.status).toBe(400);
    expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020);
    const discover = await send("server/discover", "server/discover");
    expect(discover.status).toBe(200);
    const result = ((await discover.json()) as { result: Record<string, unknown> }).result;
    expect(result.supportedVersions).toContain("2026-07-28");
    expect(result).toMatchObject({ resultType: "complete", cacheScope: "private" });
  });
});

describe("requests answered without reading their body", () => {
  let proxy: AuthProxy;
  beforeAll(async () => {
    proxy = await startAuthProxy({ target: worker.url, token: worker.token });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it("leave wrangler's connection to the Worker usable: a refused POST never costs the next request a 503", async () => {
    // Regression: the 403 for a foreign Host/Origin is decided from the headers, so the body stayed unread;
    // behind the conformance suite's auth proxy about 1 request in 4 after it then got wrangler's own 503
    // "Your worker restarted mid-request" (no restart happened, and the request never reached the Worker).
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const localHost = new URL(proxy.url).host;
    const outcomes: string[] = [];
    for (let i = 0; i < 30; i++) {
      const refused = await postAs(proxy.url, "evil.example.com", initialize);
      const accepted = await postAs(proxy.url, localHost, initialize);
      outcomes.push(
        `${refused.status}/${accepted.status}${accepted.status === 200 ? "" : ` ${accepted.body.slice(0, 120)}`}`,
      );
    }
    const failed = outcomes.filter((o) => o !== "403/200");
    expect(failed, `${worker.output().slice(-3000)}\n${worker.endpointLog?.().slice(-2000) ?? ""}`).toEqual(
      [],
    );
    expect(outcomes).toHaveLength(30);
  });
});
