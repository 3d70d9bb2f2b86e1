/**
 * Runs the MCP Inspector's CLI mode (`@modelcontextprotocol/inspector --cli`, v1 flags) as a real process and
 * returns its exit code and the JSON it printed.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";

export const INSPECTOR_CLI = resolve(
  import.meta.dirname,
  "../../node_modules/@modelcontextprotocol/inspector/cli/build/cli.js",
);

export interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export async function runInspector(
  args: string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<InspectorRun> {
  const child = spawn(process.execPath, [INSPECTOR_CLI, "--cli", ...args], {
    cwd: options.cwd ?? process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString("utf8");
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const code = await new Promise<number | null>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(
        new Error(`inspector did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, timeoutMs);
    child.on("error", fail);
    child.on("close", (c) => {
      clearTimeout(timer);
      done(c);
    });
  });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}
