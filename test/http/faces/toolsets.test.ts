/**
 * Toolsets, read-only mode and role filtering (issue 12, item 6), generated from the registry: for every
 * hosted tool, on both faces, in the query and the header form, a tool is listed and callable exactly
 * when its toolset is enabled, the connection is not read-only or the tool only reads, and the caller's
 * role reaches the tool's. The expectation is computed here from registry data (toolset, readOnlyHint,
 * role), never from names.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { getEncoding } from "js-tiktoken";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/app.js";
import { type Role, roleAtLeast } from "../../../src/core/roles.js";
import { compiledFor } from "../../../src/http/faces-common.js";
import type { CompiledTool } from "../../../src/protocol/compile.js";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { type Snapshot, workspaceSnapshot } from "../../helpers/db-snapshot.js";
import { MCP_ACCEPT, parseMcpBody, startHosted } from "../../helpers/hosted.js";
import { grantTokens, registerClient } from "../../helpers/oauth-http.js";
import { WebClient } from "../../web/web-client.js";
import { exerciseOrder, outcomeOf, type Seed, sampleArgs, seed } from "./exercise.js";
import { mcp, type RpcAnswer, rpc } from "./http.js";

type Face = "jsonrpc" | "mcp";
type Form = "query" | "header";
const FACES: Face[] = ["jsonrpc", "mcp"];
const ROLES: Role[] = ["viewer", "editor", "admin"];

let t: TestApp;
/** The same database served with every toolset: the seed's creates are not what these tests are about. */
let everything: TestApp;
let tokens: Record<Role, string>;
// biome-ignore lint/suspicious/noExplicitAny: the hosted registry's tools, whatever their context type
let tools: CompiledTool<any>[];
let toolsetNames: string[];
let defaults: string[];

beforeAll(async () => {
  // The registry's own default toolsets (other suites serve every toolset).
  t = await createTestApp({ defaultToolsets: "default" });
  tokens = {
    viewer: await t.createToken("tess", "viewer", "toolsets"),
    editor: await t.createToken("ed", "editor", "toolsets"),
    admin: await t.createToken("ada", "admin", "toolsets"), // "ada": the reviewer sampleArgs names
  };
  everything = {
    ...t,
    app: createApp({ database: t.database, logger: { log() {} }, version: "0", defaultToolsets: "all" }),
  };
  const compiled = compiledFor({ database: t.database, logger: { log() {} } });
  tools = [...compiled.tools.values()];
  toolsetNames = compiled.toolsets.map((s) => s.name);
  defaults = compiled.toolsets.filter((s) => s.default).map((s) => s.name);
});
afterAll(async () => t?.close());

interface Connection {
  /** Toolsets as sent (absent: none named); the form says where. */
  toolsets?: string;
  form: Form;
  readOnly?: boolean;
}

let nextId = 1;

/** One JSON-RPC request on a face, the connection's scope in the URL (query form) or in headers. */
async function send(face: Face, conn: Connection, token: string, method: string, params?: unknown) {
  const base = face === "mcp" ? "/mcp" : "/api/v1/mcp";
  // The query form uses the /readonly path, the header form X-MCP-Readonly: both ways are covered.
  let path = conn.readOnly && conn.form === "query" ? `${base}/readonly` : base;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    authorization: `Bearer ${token}`,
  };
  if (face === "mcp") {
    headers.accept = MCP_ACCEPT;
    headers["mcp-protocol-version"] = "2025-11-25";
  }
  if (conn.toolsets !== undefined) {
    if (conn.form === "query") path += `?toolsets=${encodeURIComponent(conn.toolsets)}`;
    else headers["x-mcp-toolsets"] = conn.toolsets;
  }
  if (conn.readOnly && conn.form === "header") headers["x-mcp-readonly"] = "true";
  const message = { jsonrpc: "2.0", id: nextId++, method, ...(params === undefined ? {} : { params }) };
  const res = await t.app.request(path, { method: "POST", headers, body: JSON.stringify(message) });
  const text = await res.text();
  let body: unknown = null;
  if (face === "mcp" && res.status === 200) {
    const messages = parseMcpBody(res.headers.get("content-type"), text);
    body = messages[messages.length - 1] ?? null;
  } else if (text !== "") body = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body } as RpcAnswer;
}

/** The tool names the spec says a connection lists, from registry data. */
function expectedNames(enabled: readonly string[], readOnly: boolean, role: Role): string[] {
  return tools
    .filter(
      (tool) =>
        enabled.includes(tool.toolset as string) &&
        (!readOnly || tool.def.annotations.readOnlyHint === true) &&
        roleAtLeast(role, tool.def.role ?? "viewer"),
    )
    .map((tool) => tool.def.name);
}

async function listed(face: Face, conn: Connection, role: Role): Promise<string[]> {
  const answer = await send(face, conn, tokens[role], "tools/list");
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  return answer.body.result.tools.map((tool: { name: string }) => tool.name);
}

describe("registry data", () => {
  it("every hosted tool is in exactly one declared toolset, and states its role", () => {
    expect(toolsetNames.length).toBeGreaterThan(3);
    expect(defaults.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(toolsetNames, tool.def.name).toContain(tool.toolset);
      expect(ROLES, tool.def.name).toContain(tool.def.role);
    }
  });
});

describe.each(FACES)("tools/list on %s", (face) => {
  it.each(["query", "header"] as const)(
    "%s form: each toolset, the default, all, a pair; read-only or not; every role",
    async (form) => {
      const choices: { sent: string | undefined; enabled: string[] }[] = [
        { sent: undefined, enabled: defaults },
        { sent: "default", enabled: defaults },
        { sent: "all", enabled: toolsetNames },
        { sent: "backlog, DOCSETS", enabled: ["backlog", "docsets"] },
        ...toolsetNames.map((name) => ({ sent: name, enabled: [name] })),
      ];
      const problems: string[] = [];
      for (const { sent, enabled } of choices) {
        for (const readOnly of [false, true]) {
          for (const role of ROLES) {
            const conn: Connection = { form, readOnly, ...(sent === undefined ? {} : { toolsets: sent }) };
            const got = await listed(face, conn, role);
            const want = expectedNames(enabled, readOnly, role);
            if (JSON.stringify(got) !== JSON.stringify(want))
              problems.push(`${sent ?? "(none)"} readOnly=${readOnly} ${role}: got ${got} want ${want}`);
          }
        }
      }
      expect(problems).toEqual([]);
      // Not vacuous: some connection lists a write, read-only ones never do.
      expect(expectedNames(toolsetNames, false, "admin").length).toBe(tools.length);
      expect(expectedNames(toolsetNames, true, "admin").length).toBeLessThan(tools.length);
    },
  );
});

/** Everything of the workspace except what any request adds by design (its audit row, token use). */
function withoutBookkeeping(s: Snapshot): Snapshot {
  const { audit_events: _a, tokens: _t, ...rest } = s;
  return rest;
}

async function workspaceState(): Promise<string> {
  const rs = await t.database.client.execute({
    sql: "SELECT id FROM workspaces WHERE slug = ?",
    args: ["toolsets"],
  });
  return JSON.stringify(
    withoutBookkeeping(await workspaceSnapshot(t.database.client, Number(rs.rows[0]?.id))),
  );
}

/** The text a refusal shows the model (an isError result on /mcp, the error message on /api/v1/mcp). */
function refusalText(face: Face, answer: RpcAnswer): string {
  return face === "mcp"
    ? String(answer.body?.result?.content?.[0]?.text)
    : String(answer.body?.error?.message);
}

describe.each(FACES)("tools/call on %s", (face) => {
  it("a tool outside the connection's toolsets is refused, naming the toolset to enable; nothing changes", async () => {
    const s: Seed = await seed(everything, tokens.admin, `ts-off-${face}`);
    const before = await workspaceState();
    const problems: string[] = [];
    for (const [i, tool] of tools.entries()) {
      const other = toolsetNames.find((n) => n !== tool.toolset) as string;
      const form: Form = i % 2 === 0 ? "query" : "header";
      const args = sampleArgs(tool.listed, s, `${face} off ${tool.def.name}`);
      const answer = await send(face, { form, toolsets: other }, tokens.admin, "tools/call", {
        name: tool.def.name,
        arguments: args,
      });
      const text = refusalText(face, answer);
      const refused =
        face === "mcp"
          ? answer.body?.result?.isError === true
          : answer.status === 200 && answer.body?.error?.code === -32602;
      if (
        !refused ||
        !text.includes(`toolset "${tool.toolset}"`) ||
        !text.includes(`?toolsets=${other},${tool.toolset}`)
      )
        problems.push(`${tool.def.name}: ${answer.status} ${answer.text.slice(0, 300)}`);
      if (face === "jsonrpc" && refused)
        expect(answer.body.error.data.errors).toEqual([
          { field: "name", message: `toolset "${tool.toolset}" is not enabled` },
        ]);
    }
    expect(problems).toEqual([]);
    expect(await workspaceState()).toBe(before);
  });

  it("on a read-only connection every write is refused and changes nothing, whatever the role", async () => {
    const s: Seed = await seed(everything, tokens.admin, `ts-ro-${face}`);
    const before = await workspaceState();
    const writes = tools.filter((tool) => tool.def.annotations.readOnlyHint !== true);
    expect(writes.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const [i, tool] of writes.entries()) {
      const form: Form = i % 2 === 0 ? "query" : "header";
      const answer = await send(face, { form, toolsets: "all", readOnly: true }, tokens.admin, "tools/call", {
        name: tool.def.name,
        arguments: sampleArgs(tool.listed, s, `${face} ro ${tool.def.name}`),
      });
      const text = refusalText(face, answer);
      if (outcomeOf(face, answer) !== "forbidden" || !text.includes("read-only"))
        problems.push(`${tool.def.name}: ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
    expect(await workspaceState()).toBe(before);
  });

  it("every tool is callable with only its own toolset enabled; every read also on a read-only connection", async () => {
    const s: Seed = await seed(everything, tokens.admin, `ts-on-${face}`);
    const spare = await send(face, { form: "header", toolsets: "admin" }, tokens.admin, "tools/call", {
      name: "create_my_token",
      arguments: { name: "spare" },
    });
    expect(spare.status, spare.text).toBe(200);
    const created =
      face === "mcp" ? spare.body.result.structuredContent : spare.body.result.structuredContent;
    s.token = created.id as number;
    const problems: string[] = [];
    for (const [i, listedTool] of exerciseOrder(tools.map((tool) => tool.listed)).entries()) {
      const tool = tools.find((x) => x.def.name === listedTool.name) as (typeof tools)[number];
      const read = tool.def.annotations.readOnlyHint === true;
      const form: Form = i % 2 === 0 ? "query" : "header";
      const conn: Connection = { form, toolsets: tool.toolset as string, readOnly: read && i % 4 < 2 };
      const answer = await send(face, conn, tokens.admin, "tools/call", {
        name: tool.def.name,
        arguments: sampleArgs(listedTool, s, `${face} on ${tool.def.name}`),
      });
      if (outcomeOf(face, answer) !== "ok") problems.push(`${tool.def.name}: ${answer.text.slice(0, 300)}`);
    }
    expect(problems).toEqual([]);
  });

  it("a caller whose role cannot write is listed no write tool it may not call, and is refused it", async () => {
    const viewerList = await listed(face, { form: "query", toolsets: "all" }, "viewer");
    const hidden = tools.filter((tool) => !viewerList.includes(tool.def.name));
    expect(hidden.length).toBeGreaterThan(10);
    for (const tool of hidden)
      expect(roleAtLeast("viewer", tool.def.role as Role), tool.def.name).toBe(false);
    const s: Seed = await seed(everything, tokens.admin, `ts-role-${face}`);
    const before = await workspaceState();
    for (const tool of hidden) {
      const answer = await send(face, { form: "header", toolsets: "all" }, tokens.viewer, "tools/call", {
        name: tool.def.name,
        arguments: sampleArgs(tool.listed, s, `${face} role ${tool.def.name}`),
      });
      expect(outcomeOf(face, answer), `${tool.def.name}: ${answer.text.slice(0, 200)}`).toBe("forbidden");
    }
    expect(await workspaceState()).toBe(before);
  });
});

describe.each(FACES)("connection errors on %s", (face) => {
  it.each(["query", "header"] as const)(
    "%s form: an unknown toolset is a 400 listing the valid ones",
    async (form) => {
      const answer = await send(face, { form, toolsets: "requirements,nope" }, tokens.admin, "tools/list");
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(-32602);
      const message = answer.body.error.message as string;
      expect(message).toContain('Unknown toolset "nope"');
      for (const name of toolsetNames) expect(message).toContain(`${name}`);
      expect(message).toContain('"default" and "all"');
      expect(answer.body.error.data.errors).toEqual([
        { field: "toolsets", message: 'unknown toolset "nope"' },
      ]);
    },
  );

  it("toolsets in both the query and the header must agree", async () => {
    const base = face === "mcp" ? "/mcp" : "/api/v1/mcp";
    const request = (query: string, header: string) =>
      t.app.request(`${base}?toolsets=${query}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: MCP_ACCEPT,
          authorization: `Bearer ${tokens.admin}`,
          "x-mcp-toolsets": header,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const differ = await request("docsets", "backlog");
    expect(differ.status).toBe(400);
    expect(((await differ.json()) as { error: { message: string } }).error.message).toContain("differ");
    const agree = await request("docsets,backlog", "backlog, docsets");
    expect(agree.status).toBe(200);
  });

  it("X-MCP-Readonly takes true or false only", async () => {
    const base = face === "mcp" ? "/mcp" : "/api/v1/mcp";
    const res = await t.app.request(base, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: MCP_ACCEPT,
        authorization: `Bearer ${tokens.admin}`,
        "x-mcp-readonly": "maybe",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("X-MCP-Readonly");
  });
});

describe("the default tools/list", () => {
  it("is at most 6,000 tokens (o200k_base), for the role that sees the most", async () => {
    const answer = await send("jsonrpc", { form: "query" }, tokens.admin, "tools/list");
    const names = answer.body.result.tools.map((tool: { name: string }) => tool.name);
    expect(names).toEqual(expectedNames(defaults, false, "admin"));
    const count = getEncoding("o200k_base").encode(JSON.stringify(answer.body.result)).length;
    expect(count).toBeGreaterThan(1000);
    expect(count).toBeLessThanOrEqual(6000);
  });

  it("an operator's REQLIX_DEFAULT_TOOLSETS must name real toolsets", () => {
    const deps = { database: t.database, logger: { log() {} }, version: "0.0.0-test" };
    expect(() => createApp({ ...deps, defaultToolsets: "requirements,bogus" })).toThrow(
      /REQLIX_DEFAULT_TOOLSETS: Unknown toolset "bogus"/,
    );
    expect(() => createApp({ ...deps, defaultToolsets: "default,docsets" })).not.toThrow();
  });
});

/** The tools side of an MCP client: SDK v1's and v2's clients both have it. */
interface ToolClient {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}

/**
 * One SDK client's view of toolset choices on /mcp: read-only by path and by header, one toolset by header
 * (a tool of another is refused, naming its toolset), and the default. `docset` names the docset it registers.
 */
async function seesWhatItChose(
  connect: (path: string, headers?: Record<string, string>) => Promise<ToolClient>,
  docset: string,
): Promise<void> {
  const namesOf = async (client: ToolClient) => (await client.listTools()).tools.map((tool) => tool.name);
  type Called = { isError?: unknown; content?: unknown };
  const call = async (client: ToolClient, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Called;
  const readOnly = await connect("/mcp/readonly?toolsets=requirements,docsets");
  expect(await namesOf(readOnly)).toEqual(expectedNames(["requirements", "docsets"], true, "editor"));
  const refused = await call(readOnly, "register_docset", { name: "x", version: "1" });
  expect(refused.isError).toBe(true);
  expect(JSON.stringify(refused.content)).toContain("read-only");

  const headerReadOnly = await connect("/mcp", { "X-MCP-Toolsets": "docsets", "X-MCP-Readonly": "true" });
  expect(await namesOf(headerReadOnly)).toEqual(expectedNames(["docsets"], true, "editor"));

  const docsets = await connect("/mcp", { "X-MCP-Toolsets": "docsets" });
  expect(await namesOf(docsets)).toEqual(expectedNames(["docsets"], false, "editor"));
  const registered = await call(docsets, "register_docset", { name: docset, version: "1" });
  expect(registered.isError, JSON.stringify(registered.content)).toBeFalsy();
  const outside = await call(docsets, "search_requirements", { query: "x" });
  expect(outside.isError).toBe(true);
  expect(JSON.stringify(outside.content)).toContain('toolset \\"requirements\\"');

  const plain = await connect("/mcp");
  expect(await namesOf(plain)).toEqual(expectedNames(defaults, false, "editor"));
}

describe("an MCP SDK client over HTTP", () => {
  it("connects to /mcp/readonly?toolsets=… and to /mcp with X-MCP-Toolsets, and sees what it chose", async () => {
    const server = await startHosted({ deps: { defaultToolsets: "default" } });
    const clients: Client[] = [];
    try {
      const token = await server.createToken("sdk", "editor", "toolsets-sdk");
      const connect = async (path: string, headers: Record<string, string> = {}) => {
        const transport = new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
          requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
        });
        const client = new Client({ name: "toolsets-test", version: "1.0.0" });
        await client.connect(transport);
        clients.push(client);
        return client;
      };
      await seesWhatItChose(connect, "sdk");
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      await server.close();
    }
  });
});

describe("an MCP SDK v2 client over HTTP (MCP 2026-07-28)", () => {
  it("connects to /mcp/readonly?toolsets=… and to /mcp with X-MCP-Toolsets, and sees what it chose", async () => {
    const server = await startHosted({ deps: { defaultToolsets: "default" } });
    const clients: ClientV2[] = [];
    try {
      const token = await server.createToken("sdk2", "editor", "toolsets-sdk2");
      const connect = async (path: string, headers: Record<string, string> = {}) => {
        const client = new ClientV2(
          { name: "toolsets-test", version: "1.0.0" },
          { versionNegotiation: { mode: { pin: "2026-07-28" } } },
        );
        await client.connect(
          new TransportV2(new URL(`${server.url}${path}`), {
            requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
          }),
        );
        expect(client.getProtocolEra()).toBe("modern");
        clients.push(client);
        return client;
      };
      await seesWhatItChose(connect, "sdk2");
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      await server.close();
    }
  });
});

describe("an OAuth client's scopes", () => {
  it("a reqlix:read token of an admin is listed no write tool on either face or era; a reqlix:write one the editor's", async () => {
    // Tokens are bound to the public URL's /mcp, whatever host the test reaches the server by.
    const server = await startHosted({ deps: { publicUrl: "http://reqlix.test", defaultToolsets: "all" } });
    const clients: ClientV2[] = [];
    try {
      const pat = await server.createToken("scoped-ada", "admin", "toolsets-oauth");
      const web = new WebClient(server.url);
      await web.signIn(pat);
      const client = await registerClient(server.url);
      const read = (await grantTokens(server.url, web, client, "reqlix:read")).access_token;
      const write = (await grantTokens(server.url, web, client, "reqlix:write")).access_token;
      // reqlix:read caps the admin at viewer and allows no write at all: the read tools a viewer may call.
      const readNames = expectedNames(toolsetNames, true, "viewer");
      const writeNames = expectedNames(toolsetNames, false, "editor");
      expect(readNames.length).toBeGreaterThan(10);
      expect(writeNames.length).toBeGreaterThan(readNames.length);
      const names = (answer: RpcAnswer) =>
        answer.body.result.tools.map((tool: { name: string }) => tool.name);
      expect(names(await rpc(server, "tools/list", undefined, read))).toEqual(readNames);
      expect(names(await mcp(server, "tools/list", undefined, read))).toEqual(readNames);
      expect(names(await rpc(server, "tools/list", undefined, write))).toEqual(writeNames);
      expect(names(await mcp(server, "tools/list", undefined, write))).toEqual(writeNames);

      const modern = new ClientV2(
        { name: "toolsets-oauth", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await modern.connect(
        new TransportV2(new URL(`${server.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${read}` } },
        }),
      );
      clients.push(modern);
      expect(modern.getProtocolEra()).toBe("modern");
      expect((await modern.listTools()).tools.map((tool) => tool.name)).toEqual(readNames);
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await server.close();
    }
  });
});
