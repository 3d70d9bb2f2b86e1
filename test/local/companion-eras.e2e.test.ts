/**
 * The companion (`dist/reqlix-mcp.js`, a real process) speaks MCP 2026-07-28 and the 2025 era on stdio,
 * decided by each connection's first message (issue 12 item 2): the SDK v2 client pinned to 2026-07-28
 * connects without initialize; a dual-era SDK v2 client lands on 2026-07-28 at once (its server/discover
 * probe succeeds); the SDK v1 client still connects through initialize.
 */

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE, startCompanion, tempDir } from "../helpers/companion.js";

let dir: { path: string; cleanup(): Promise<void> };

beforeAll(async () => {
  dir = await tempDir("reqlix-eras-");
  await mkdir(join(dir.path, ".knowledge"));
  await writeFile(join(dir.path, ".knowledge", "config.yaml"), "docsets: []\n");
});

afterAll(async () => {
  await dir?.cleanup();
});

function v2Transport(): { transport: StdioV2; stderr: () => string } {
  const transport = new StdioV2({
    command: process.execPath,
    args: [BUNDLE, "--toolsets", "knowledge"],
    cwd: dir.path,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  return { transport, stderr: () => err };
}

describe("the companion on stdio, per connection era", () => {
  it("serves the SDK v2 client pinned to 2026-07-28: no initialize, tools listed and called", async () => {
    const { transport, stderr } = v2Transport();
    const client = new ClientV2(
      { name: "eras-test", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(transport);
    try {
      expect(client.getProtocolEra(), stderr()).toBe("modern");
      expect(client.getServerVersion()?.name).toBe("reqlix-mcp");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("list_docsets");
      const result = await client.callTool({ name: "list_docsets", arguments: {} });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }).then(
        (r) => ({ result: r }),
        (e: unknown) => ({ error: e as { code?: number; message: string } }),
      );
      // The same answer as every other face gives an unknown tool (the protocol core's error table).
      expect("error" in unknown ? unknown.error.message : JSON.stringify(unknown.result)).toContain(
        'Unknown tool "no_such_tool"',
      );
    } finally {
      await client.close();
    }
  });

  it("a dual-era SDK v2 client (auto negotiation) lands on 2026-07-28 with its first probe", async () => {
    const { transport, stderr } = v2Transport();
    const client = new ClientV2(
      { name: "eras-test", version: "1.0.0" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(transport);
    try {
      expect(client.getProtocolEra(), stderr()).toBe("modern");
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("still serves the SDK v1 client through initialize (2025-11-25)", async () => {
    const companion = await startCompanion({ args: ["--toolsets", "knowledge"], cwd: dir.path });
    try {
      expect(companion.client.getServerVersion()?.name).toBe("reqlix-mcp");
      const result = await companion.client.callTool({ name: "list_docsets", arguments: {} });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    } finally {
      await companion.close();
    }
  });
});
