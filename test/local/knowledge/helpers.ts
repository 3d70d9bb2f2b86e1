/**
 * Shared pieces of the knowledge tests: a project on disk, the bundles, and a raw stdio session for the
 * bytes an SDK Client would never send.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { textOf } from "../../helpers/companion.js";

export const KNOWLEDGE_BUNDLE = resolve(import.meta.dirname, "../../../dist/agentic-knowledge-mcp.js");

/** Writes files (paths relative to `root`), creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

/** Replaces a file the way many editors save: write a temp file beside it, then rename over it. */
export async function replaceFile(path: string, content: string): Promise<void> {
  const temp = `${path}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(temp, content);
  await rename(temp, path);
}

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

export function text(result: unknown): string {
  return textOf(result);
}

export const SPEC_TEMPLATE =
  "Search for '{keywords}' in folder {local_path}. Use your normal text search tools to do this. If the search results don't help you, try to find '{generalized_keywords}'. If this still doesn't help, ask the user to rephrase it.";

export function specInstruction(keywords: string, localPath: string, generalized: string): string {
  return SPEC_TEMPLATE.replace("{keywords}", keywords)
    .replace("{local_path}", localPath)
    .replace("{generalized_keywords}", generalized);
}

/** A companion driven with raw bytes on stdin; responses are read line by line from stdout. */
export class RawSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered = "";
  private readonly lines: string[] = [];
  private waiters: (() => void)[] = [];

  constructor(bundle: string, cwd: string) {
    this.child = spawn(process.execPath, [bundle], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.buffered += chunk.toString("utf8");
      let nl = this.buffered.indexOf("\n");
      while (nl !== -1) {
        this.lines.push(this.buffered.slice(0, nl));
        this.buffered = this.buffered.slice(nl + 1);
        nl = this.buffered.indexOf("\n");
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  write(bytes: string | Buffer): void {
    this.child.stdin.write(bytes);
  }

  /** The next line on stdout, parsed; fails after `ms`. */
  async next(ms = 10_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + ms;
    while (this.lines.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no response on stdout");
      await new Promise<void>((res) => {
        const timer = setTimeout(res, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          res();
        });
      });
    }
    return JSON.parse(this.lines.shift() as string) as Record<string, unknown>;
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise<void>((res) => {
      if (this.child.exitCode !== null) res();
      else this.child.once("exit", () => res());
    });
  }
}
