/**
 * A Worker under `wrangler dev` whose entry is a test file (e.g. the conformance fixture Worker), over the
 * local libSQL endpoint on a fresh, migrated, bootstrapped database: the same setup as
 * test/helpers/workers.ts (which always runs src/worker.ts), with the entry given on wrangler's command
 * line. Same offline environment, same process-group shutdown.
 *
 * The entry is bundled first (`wrangler deploy --dry-run`, exactly as a deploy would) into the temp folder,
 * and `wrangler dev --no-bundle` serves that file: wrangler dev otherwise watches every source file and
 * restarts the Worker when one changes, which drops requests mid-run while people edit the tree.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { basename, join, resolve } from "node:path";
import { prepareDevDatabase } from "../../src/cli/libsql-dev-database.js";
import { type LibsqlDevServer, startLibsqlDevServer } from "../../src/cli/libsql-dev-server.js";
import { freePort, OFFLINE_WRANGLER_ENV, REPO_ROOT } from "../../src/cli/libsql-dev-wrangler.js";
import { generateToken } from "../../src/core/tokens.js";
import { tempDir } from "./companion.js";
import type { StartedWorker } from "./workers.js";

const WRANGLER_BIN = resolve(REPO_ROOT, "node_modules/wrangler/bin/wrangler.js");

export async function startWorkerWithEntry(entry: string, readyTimeoutMs = 150_000): Promise<StartedWorker> {
  const dir = await tempDir("reqlix-fixture-worker-");
  const dbFile = join(dir.path, "worker.db");
  const token = generateToken();
  await prepareDevDatabase(dbFile, { bootstrapToken: token });
  const bundleDir = join(dir.path, "bundle");
  const bundled = spawnSync(
    process.execPath,
    [
      WRANGLER_BIN,
      "deploy",
      "--dry-run",
      "--outdir",
      bundleDir,
      resolve(REPO_ROOT, entry),
      "--config",
      resolve(REPO_ROOT, "wrangler.toml"),
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...OFFLINE_WRANGLER_ENV },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  if (bundled.status !== 0) {
    await dir.cleanup();
    throw new Error(
      `wrangler could not bundle ${entry} (exit ${bundled.status}):\n${bundled.stdout}${bundled.stderr}`,
    );
  }
  const script = join(bundleDir, basename(entry).replace(/\.ts$/, ".js"));
  const endpoint: LibsqlDevServer = await startLibsqlDevServer({ file: dbFile, port: 0 });
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      WRANGLER_BIN,
      "dev",
      script,
      "--no-bundle",
      "--config",
      resolve(REPO_ROOT, "wrangler.toml"),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      "0",
      "--show-interactive-dev-session=false",
      "--persist-to",
      join(dir.path, "wrangler-state"),
      "--var",
      `LIBSQL_URL:${endpoint.url}`,
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...OFFLINE_WRANGLER_ENV },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-100_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup("SIGTERM");
      const timer = setTimeout(() => killGroup("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    killGroup("SIGKILL"); // workerd may outlive wrangler
    await endpoint.close();
    await dir.cleanup();
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  let last = "no answer yet";
  while (true) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`wrangler dev exited (code ${child.exitCode}) before the Worker was ready.\n${output}`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      last = `HTTP ${res.status}`;
      if (res.status === 200) break;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(
        `The Worker did not answer /healthz within ${readyTimeoutMs} ms (last: ${last}).\n${output}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, token, libsqlUrl: endpoint.url, dbFile, output: () => output, close };
}
