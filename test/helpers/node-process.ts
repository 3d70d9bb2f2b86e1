/**
 * The Node server (`node --import tsx src/node.ts`) as a real child process on a real database file, for
 * the start-up, limits and shutdown tests: start it, wait for "listening on", signal it, collect its output.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dirname, "..", "..");

export interface NodeProcess {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal name) once the process has exited and its pipes closed. */
  exit: Promise<number | string | null>;
}

export interface RunningServer extends NodeProcess {
  url: string;
  port: number;
}

/** Temp folders made by `tempDir`; `cleanupTempDirs` removes them (call it in afterAll). */
const dirs: string[] = [];
const running = new Set<ChildProcess>();

export function tempDir(prefix = "reqlix-node-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export function cleanupNodeProcesses(): void {
  for (const p of running) p.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/**
 * Spawns the server with `env` on top of a quiet, loopback, any-port default; `as` runs it as another
 * user (only root may ask).
 */
export function spawnNode(
  env: Record<string, string | undefined>,
  as?: { uid: number; gid: number },
): NodeProcess {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/node.ts"], {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", REQLIX_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    ...(as ?? {}),
  });
  running.add(proc);
  const out: string[] = [];
  const err: string[] = [];
  proc.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  proc.stderr?.on("data", (b: Buffer) => err.push(b.toString()));
  const exit = new Promise<number | string | null>((resolve) =>
    proc.on("close", (code, signal) => {
      running.delete(proc);
      resolve(code ?? signal);
    }),
  );
  return { proc, stdout: () => out.join(""), stderr: () => err.join(""), exit };
}

/** Spawns the server and waits until it prints its URL; throws with its output when it exits first. */
export async function startNode(env: Record<string, string | undefined>): Promise<RunningServer> {
  const p = spawnNode(env);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /listening on (http:\/\/[^\s]+:(\d+))/.exec(p.stdout());
    if (m) return { ...p, url: m[1] as string, port: Number(m[2]) };
    if (p.proc.exitCode !== null || Date.now() > deadline) {
      throw new Error(`server did not start (exit ${p.proc.exitCode}):\n${p.stdout()}\n${p.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The owner token the first start printed. */
export function ownerToken(s: NodeProcess): string {
  const token = /Owner token[^:]*: (rqx_[A-Za-z0-9]+)/.exec(s.stdout())?.[1];
  if (!token) throw new Error(`no owner token printed:\n${s.stdout()}`);
  return token;
}
