/**
 * REQ-8 at the byte level (what an SDK Client never sends) and REQ-10 (the `agentic-knowledge-mcp` command),
 * against the built bundles.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE, startCompanion, tempDir } from "../../helpers/companion.js";
import { KNOWLEDGE_BUNDLE, RawSession, type ToolResult, text, writeTree } from "./helpers.js";

const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  version: string;
  bin: Record<string, string>;
};

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("REQ-8 over raw stdio", () => {
  let project: Awaited<ReturnType<typeof tempDir>>;
  let session: RawSession;

  beforeAll(async () => {
    project = await tempDir("knowledge-raw-");
    await writeTree(project.path, {
      ".knowledge/config.yaml": "docsets:\n  - {name: react, version: '18.2'}\n",
    });
    session = new RawSession(KNOWLEDGE_BUNDLE, project.path);
    session.write(`${JSON.stringify(INIT)}\n`);
    expect(await session.next()).toMatchObject({
      id: 1,
      result: { serverInfo: { name: "agentic-knowledge-mcp" } },
    });
    session.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  });

  afterAll(async () => {
    await session?.close();
    await project?.cleanup();
  });

  it("REQ-8: a malformed JSON-RPC request (bytes that are not JSON) returns a parse error, and the server keeps serving", async () => {
    session.write('{"jsonrpc":"2.0","id":2,"method":"tools/list"\n'); // cut short
    expect(await session.next()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.stringContaining("Parse error") },
    });
    session.write(Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x7b]), Buffer.from("\n")])); // not even UTF-8
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32700 } });
    session.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_docsets", arguments: {} } })}\n`,
    );
    expect(await session.next()).toMatchObject({
      id: 3,
      result: { structuredContent: { docsets: [{ name: "react" }] } },
    });
  });

  it("REQ-8: JSON that is not a JSON-RPC request returns Invalid Request with its id", async () => {
    session.write(`${JSON.stringify({ jsonrpc: "1.0", id: 4, method: "tools/list" })}\n`);
    expect(await session.next()).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32600 } });
    session.write("[]\n");
    expect(await session.next()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("REQ-8: an undefined method returns Method not found (-32601)", async () => {
    session.write(`${JSON.stringify({ jsonrpc: "2.0", id: 5, method: "docs/search", params: {} })}\n`);
    expect(await session.next()).toMatchObject({
      id: 5,
      error: {
        code: -32601,
        message: expect.stringMatching(/^Method not found: docs\/search\. Supported methods: /),
      },
    });
  });

  it("REQ-8: an undefined tool is Method not found (-32601) naming the available tools", async () => {
    session.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "get_docs", arguments: {} } })}\n`,
    );
    expect(await session.next()).toEqual({
      jsonrpc: "2.0",
      id: 6,
      error: {
        code: -32601,
        message: 'Unknown tool "get_docs". Available tools: list_docsets, search_docs.',
        data: { name: "get_docs", available: ["list_docsets", "search_docs"] },
      },
    });
  });
});

describe("REQ-10: the agentic-knowledge-mcp command", () => {
  it("REQ-10: package.json declares the agentic-knowledge-mcp binary, shipped as an executable bundle, with a semantic version", () => {
    expect(pkg.bin["agentic-knowledge-mcp"]).toBe("dist/agentic-knowledge-mcp.js");
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/);
    const head = readFileSync(KNOWLEDGE_BUNDLE, "utf8").slice(0, 20);
    expect(head.startsWith("#!/usr/bin/env node")).toBe(true);
  });

  it("REQ-10: runs as an executable MCP server that prints its name in --help and its version", () => {
    const help = spawnSync(KNOWLEDGE_BUNDLE, ["--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: agentic-knowledge-mcp");
    expect(help.stdout).toContain("(default: knowledge)");
    const version = spawnSync(process.execPath, [KNOWLEDGE_BUNDLE, "--version"], { encoding: "utf8" });
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  it("REQ-10: serves only the knowledge tools; reqlix-mcp serves them too with --toolsets knowledge", async () => {
    const project = await tempDir("knowledge-bin-");
    try {
      await writeTree(project.path, { ".knowledge/config.yaml": "docsets: []\n" });
      const knowledge = await startCompanion({ bundle: KNOWLEDGE_BUNDLE, cwd: project.path });
      const reqlix = await startCompanion({
        bundle: BUNDLE,
        cwd: project.path,
        args: ["--toolsets", "knowledge"],
      });
      try {
        const a = await knowledge.client.listTools();
        const b = await reqlix.client.listTools();
        expect(a.tools.map((t) => t.name).sort()).toEqual(["list_docsets", "search_docs"]);
        expect(b.tools).toEqual(a.tools);
        const listed = (await reqlix.client.callTool({ name: "list_docsets", arguments: {} })) as ToolResult;
        expect(JSON.parse(text(listed))).toEqual({ docsets: [] });
      } finally {
        await knowledge.close();
        await reqlix.close();
      }
    } finally {
      await project.cleanup();
    }
  });

  // REQ-1 / REQ-9's 10 ms and 5 ms are speed targets: bench/knowledge-latency.ts measures them (in process
  // and over stdio) against baselines in the same run, rather than a timed test on a shared machine.
});
