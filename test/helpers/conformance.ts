/**
 * Runs the MCP conformance suite's CLI (`@modelcontextprotocol/conformance`, server mode) as a real process
 * against a URL and reads back every scenario's checks from its output directory.
 */
import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parse } from "yaml";

export const CONFORMANCE_CLI = resolve(
  import.meta.dirname,
  "../../node_modules/@modelcontextprotocol/conformance/dist/index.js",
);
/** The protocol revisions the suite is run for, each with exactly the scenarios it requires. */
export const REVISIONS = ["2025-11-25", "2026-07-28"] as const;
export type Revision = (typeof REVISIONS)[number];

/** The baseline of one revision's run: test/conformance/expected-failures/<revision>.yaml. */
export function expectedFailuresFile(revision: Revision): string {
  return resolve(import.meta.dirname, `../conformance/expected-failures/${revision}.yaml`);
}

export interface Check {
  id: string;
  name: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  errorMessage?: string;
  details?: unknown;
}

export interface ConformanceRun {
  exitCode: number | null;
  output: string;
  /** Checks per scenario name, as the CLI saved them. */
  scenarios: Map<string, Check[]>;
}

export interface ExpectedFailures {
  server: string[];
  reasons: Record<string, string>;
}

export async function readExpectedFailures(path: string): Promise<ExpectedFailures> {
  const doc = parse(await readFile(path, "utf8")) as Partial<ExpectedFailures> | null;
  return { server: doc?.server ?? [], reasons: doc?.reasons ?? {} };
}

/** The suite's scenarios need Node >= 22 (DESIGN); npm scripts and vitest run on the `node` devDependency. */
export function assertNode22(): void {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) {
    throw new Error(
      `The MCP conformance suite needs Node >= 22, this is ${process.version}: run the tests through npm (npm test), which uses node_modules/.bin/node.`,
    );
  }
}

/** A scenario is good when no check failed or warned (the CLI counts warnings as failures too). */
export function failedChecks(checks: Check[]): Check[] {
  return checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
}

export async function runConformance(options: {
  url: string;
  outputDir: string;
  /** One scenario; otherwise the active suite. */
  scenario?: string;
  /** The revision a single scenario is run at (`--spec-version`). */
  specVersion?: string;
  /** Exactly the scenarios a spec revision requires (`2025-11-25`, `2026-07-28`), instead of the active suite. */
  requirements?: string;
  expectedFailures?: string;
  timeoutMs?: number;
}): Promise<ConformanceRun> {
  assertNode22();
  const args = [CONFORMANCE_CLI, "server", "--url", options.url, "-o", options.outputDir];
  if (options.scenario) args.push("--scenario", options.scenario);
  if (options.requirements) args.push("--requirements", options.requirements);
  if (options.specVersion) args.push("--spec-version", options.specVersion);
  if (options.expectedFailures) args.push("--expected-failures", options.expectedFailures);
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const timeoutMs = options.timeoutMs ?? 120_000;
  const exitCode = await new Promise<number | null>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`conformance CLI did not finish within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done(code);
    });
  });

  const scenarios = new Map<string, Check[]>();
  for (const entry of await readdir(options.outputDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    // Directories are named `server-<scenario>-<ISO timestamp with - for : and .>`.
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    if (!m) continue;
    const checks = JSON.parse(
      await readFile(join(options.outputDir, entry.name, "checks.json"), "utf8"),
    ) as Check[];
    scenarios.set(m[1] as string, checks);
  }
  return { exitCode, output, scenarios };
}

/** Readable one line per failed check, for assertion messages. */
export function describeFailures(scenarios: Map<string, Check[]>, names: Iterable<string>): string {
  const lines: string[] = [];
  for (const name of names) {
    const checks = scenarios.get(name);
    if (!checks) {
      lines.push(`${name}: not run`);
      continue;
    }
    for (const c of failedChecks(checks))
      lines.push(`${name}: ${c.status} ${c.name}: ${c.errorMessage ?? ""}`);
  }
  return lines.join("\n");
}
