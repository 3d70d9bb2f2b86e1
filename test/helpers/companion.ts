/**
 * Starts the built companion bundle (`dist/reqlix-mcp.js`) as a real process and connects the SDK `Client`
 * to it over stdio. Run `npm run build` first (`npm test` does).
 */
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const BUNDLE = resolve(import.meta.dirname, "../../dist/reqlix-mcp.js");

export interface Companion {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  close(): Promise<void>;
}

export async function startCompanion(
  options: {
    args?: string[];
    cwd?: string;
    env?: Record<string, string>;
    bundle?: string;
    /** Node binary to run the bundle with (default: the one running the tests). */
    node?: string;
  } = {},
): Promise<Companion> {
  const bundle = options.bundle ?? BUNDLE;
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` first`);
  const transport = new StdioClientTransport({
    command: options.node ?? process.execPath,
    args: [bundle, ...(options.args ?? [])],
    cwd: options.cwd ?? process.cwd(),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...options.env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const client = new Client({ name: "reqlix-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => err,
    async close() {
      await client.close();
    },
  };
}

/** A fresh temp directory (real path, so symlinked /tmp does not confuse containment checks). */
export async function tempDir(prefix = "reqlix-"): Promise<{ path: string; cleanup(): Promise<void> }> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** The single text block of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  const first = content[0];
  if (first?.type !== "text" || typeof first.text !== "string") {
    throw new Error(`expected one text block, got ${JSON.stringify(result)}`);
  }
  return first.text;
}
