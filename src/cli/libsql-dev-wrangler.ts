/**
 * Runs `wrangler dev` (local mode: workerd on this machine, no Cloudflare account, no network) as a child
 * process in its own process group, and waits until the Worker answers `/healthz`. Shared by `npm run dev`
 * and the Worker tests, so the tests exercise exactly what a developer runs.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER_BIN = resolve(REPO_ROOT, "node_modules/wrangler/bin/wrangler.js");

/** Environment that keeps wrangler offline and quiet: no metrics, no `Request.cf` download, no login. */
export const OFFLINE_WRANGLER_ENV: Record<string, string> = {
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
  NO_UPDATE_NOTIFIER: "1",
};

/** Asks the OS for a free port on `host` (there is a small race until the caller binds it). */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** True when `port` can be bound on `host` right now. */
export async function portIsFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once("error", () => resolveFree(false));
    server.listen(port, host, () => server.close(() => resolveFree(true)));
  });
}

export interface WranglerDevOptions {
  port: number;
  /** Worker entry to run instead of wrangler.toml's `main` (e.g. a test-only entry), relative to the repo. */
  entry?: string;
  /**
   * `entry` is an already bundled Worker (from `bundleWorker`): run it as is. wrangler then watches only that
   * file, so edits elsewhere in the tree cannot restart the Worker in the middle of a test.
   */
  noBundle?: boolean;
  ip?: string;
  /** Plain variables for the Worker (`--var NAME:value`); never put secrets here (they show in `ps`). */
  vars?: Record<string, string>;
  /** Where wrangler keeps local state (default `.wrangler/state` in the repo). */
  persistTo?: string;
  /** `inherit` shows wrangler's output (npm run dev); `pipe` collects it (tests). */
  stdio?: "inherit" | "pipe";
  env?: Record<string, string | undefined>;
}

export interface WranglerDev {
  child: ChildProcess;
  url: string;
  /** Collected output (only with `stdio: "pipe"`), for error messages. */
  output(): string;
  /** Resolves once `GET /healthz` answers 200; rejects if wrangler exits first or time runs out. */
  ready(timeoutMs?: number): Promise<void>;
  /** Stops wrangler and workerd (the whole process group): SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Bundles the Worker as `wrangler deploy` would (`--dry-run`: no upload, no login) into `outdir`; returns
 * the path of the bundled module. `entry` defaults to wrangler.toml's `main`.
 */
export async function bundleWorker(options: { outdir: string; entry?: string }): Promise<string> {
  const args = [
    WRANGLER_BIN,
    "deploy",
    ...(options.entry ? [resolve(REPO_ROOT, options.entry)] : []),
    "--config",
    resolve(REPO_ROOT, "wrangler.toml"),
    "--dry-run",
    "--outdir",
    options.outdir,
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...OFFLINE_WRANGLER_ENV },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => {
    output += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    output += c.toString("utf8");
  });
  const code = await new Promise<number | null>((done) => child.once("exit", (c) => done(c)));
  if (code !== 0) throw new Error(`wrangler deploy --dry-run failed (exit ${code}):\n${output}`);
  // wrangler names the bundled module after its entry: worker.js for src/worker.ts, fixture-worker.js for a test entry.
  return resolve(options.outdir, basename(options.entry ?? "src/worker.ts").replace(/\.ts$/, ".js"));
}

export function startWranglerDev(options: WranglerDevOptions): WranglerDev {
  const ip = options.ip ?? "127.0.0.1";
  const args = [
    WRANGLER_BIN,
    "dev",
    ...(options.entry ? [resolve(REPO_ROOT, options.entry)] : []),
    "--config",
    resolve(REPO_ROOT, "wrangler.toml"),
    "--ip",
    ip,
    "--port",
    String(options.port),
    // A fixed inspector port (9229) would collide between two dev servers; 0 lets the OS choose.
    "--inspector-port",
    "0",
    "--show-interactive-dev-session=false",
    ...(options.noBundle ? ["--no-bundle"] : []),
    ...(options.persistTo ? ["--persist-to", options.persistTo] : []),
    ...Object.entries(options.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  const stdio = options.stdio ?? "pipe";
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...OFFLINE_WRANGLER_ENV, ...options.env },
    // Own process group, so stop() reaches workerd too and Ctrl-C in a terminal is ours to forward.
    detached: true,
    stdio: stdio === "inherit" ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolveExit) => {
    if (child.exitCode !== null) resolveExit(child.exitCode);
    child.once("exit", (code) => resolveExit(code));
  });
  const host = ip.includes(":") ? `[${ip}]` : ip;
  const url = `http://${host}:${options.port}`;

  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is already gone
    }
  };

  return {
    child,
    url,
    output: () => output,
    async ready(timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      let exitCode: number | null | undefined;
      void exited.then((code) => {
        exitCode = code;
      });
      let last = "no answer yet";
      while (Date.now() < deadline) {
        if (exitCode !== undefined) {
          throw new Error(`wrangler dev exited (code ${exitCode}) before the Worker was ready.\n${output}`);
        }
        try {
          const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
          last = `HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`;
          if (res.status === 200) return;
        } catch (error) {
          last = error instanceof Error ? error.message : String(error);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(
        `The Worker did not answer /healthz with 200 within ${timeoutMs} ms (last: ${last}).\n${output}`,
      );
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) {
        killGroup("SIGKILL"); // workerd may outlive wrangler
        return;
      }
      killGroup("SIGTERM");
      const timer = setTimeout(() => killGroup("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
      killGroup("SIGKILL");
    },
  };
}
