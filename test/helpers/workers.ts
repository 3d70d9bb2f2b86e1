/**
 * The real Worker under `wrangler dev` (local mode, workerd, offline) over the local libSQL endpoint, on a
 * freshly migrated and bootstrapped database in a temp folder: what `npm run dev` runs, with a token known
 * to the test, and by default the very bundle `wrangler deploy` would upload. Reusable by end-to-end tests: keep this interface stable.
 *
 *   const worker = await startWorker();   // { url, token, libsqlUrl, dbFile, output, close }
 *   startWorker({ entry: "test/…/my-worker.ts", vars: { REQLIX_ALLOWED_ORIGINS: "…" } })   // another entry
 *   await fetch(`${worker.url}/healthz`);
 *   await worker.close();                 // stops wrangler + workerd (process group), the endpoint, temp files
 */
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { prepareDevDatabase } from "../../src/cli/libsql-dev-database.js";
import { type LibsqlDevServer, startLibsqlDevServer } from "../../src/cli/libsql-dev-server.js";
import {
  bundleWorker,
  freePort,
  startWranglerDev,
  type WranglerDev,
} from "../../src/cli/libsql-dev-wrangler.js";
import { generateToken } from "../../src/core/tokens.js";
import { tempDir } from "./companion.js";

export interface StartedWorker {
  /** Base URL of the Worker, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Token of the instance owner `admin` (role admin in workspace `default`). */
  token: string;
  /** URL of the local libSQL endpoint the Worker uses (LIBSQL_URL). */
  libsqlUrl: string;
  /** The embedded database file behind the endpoint. */
  dbFile: string;
  /** wrangler's output so far (for failure messages). */
  output(): string;
  /** The last lines the local libSQL endpoint logged (pipelines, connections), newest last: for failure messages. */
  endpointLog?(): string;
  close(): Promise<void>;
}

export interface StartWorkerOptions {
  /** How long to wait for `/healthz` (wrangler + workerd start slowly on a loaded 2-core machine). */
  readyTimeoutMs?: number;
  /** Extra `--var` bindings for the Worker (e.g. REQLIX_ALLOWED_ORIGINS). */
  vars?: Record<string, string>;
  /** A Worker entry other than src/worker.ts (a test-only entry), relative to the repo root. */
  entry?: string;
  /**
   * false (default): bundle once, as `wrangler deploy` would, and run that bundle, so edits to the working
   * tree during the test cannot restart the Worker mid-request. true: wrangler watches the sources.
   */
  watch?: boolean;
}

export async function startWorker(options: StartWorkerOptions = {}): Promise<StartedWorker> {
  const dir = await tempDir("reqlix-worker-");
  const dbFile = join(dir.path, "worker.db");
  const token = generateToken();
  let endpoint: LibsqlDevServer | undefined;
  const endpointLines: string[] = [];
  let wrangler: WranglerDev | undefined;
  const cleanup = async () => {
    await wrangler?.stop();
    await endpoint?.close();
    await dir.cleanup();
  };
  try {
    await prepareDevDatabase(dbFile, { bootstrapToken: token });
    const entry = options.watch
      ? options.entry
      : await bundleWorker({
          outdir: join(dir.path, "bundle"),
          ...(options.entry ? { entry: options.entry } : {}),
        });
    endpoint = await startLibsqlDevServer({
      file: dbFile,
      port: 0,
      log: (line) => {
        endpointLines.push(`${new Date().toISOString()} ${line}`);
        if (endpointLines.length > 400) endpointLines.splice(0, endpointLines.length - 400);
      },
    });
    // The port is free when asked; if another process takes it before wrangler binds, try another one.
    for (let attempt = 1; ; attempt++) {
      wrangler = startWranglerDev({
        port: await freePort(),
        ...(entry ? { entry } : {}),
        noBundle: !options.watch,
        // Every toolset, as the Node servers of the suites (vitest.config.ts): the suites exercise every tool.
        vars: { LIBSQL_URL: endpoint.url, REQLIX_DEFAULT_TOOLSETS: "all", ...options.vars },
        persistTo: join(dir.path, "wrangler-state"),
        stdio: "pipe",
      });
      try {
        await wrangler.ready(options.readyTimeoutMs ?? 150_000);
        break;
      } catch (error) {
        const clash = /EADDRINUSE|address already in use/i.test(wrangler.output());
        await wrangler.stop();
        wrangler = undefined;
        if (!clash || attempt >= 3) throw error;
      }
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  const started = wrangler;
  const libsql = endpoint;
  return {
    url: started.url,
    token,
    libsqlUrl: libsql.url,
    dbFile,
    output: () => started.output(),
    endpointLog: () => endpointLines.join("\n"),
    close: cleanup,
  };
}

/** POST /mcp with the given Host and Origin (fetch cannot set Host), as the conformance suite's DNS-rebinding check does. */
export function postAs(url: string, host: string, body: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: "POST",
        path: "/mcp",
        setHost: false,
        headers: {
          host,
          origin: `http://${host}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
