/**
 * `npm run build:worker` (wrangler deploy --dry-run --outdir dist/worker) in the test run, so CI proves the
 * Worker bundles offline, without a login, that no node-only module reaches it, and that it stays within its
 * gzip budget (wrangler.toml: minified, ajv and zod's locales replaced by stubs).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

function buildWorker(env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [resolve(root, "scripts/build-worker.mjs")], {
    cwd: root,
    encoding: "utf8",
    // No credentials: a dry run must not need a Cloudflare login.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    timeout: 180_000,
  });
}

describe("npm run build:worker", () => {
  it("bundles src/worker.ts like wrangler deploy, within its gzip budget, and prints the bundle size", () => {
    const run = buildWorker();
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const size = run.stdout.match(
      /Worker bundle \(dist\/worker: worker\.js\): [\d.]+ KiB, gzip ([\d.]+) KiB \(budget ([\d.]+) KiB gzip/,
    );
    expect(size, run.stdout).not.toBeNull();
    expect(Number(size?.[1])).toBeLessThanOrEqual(Number(size?.[2]));
    const bundle = readFileSync(resolve(root, "dist/worker/worker.js"), "utf8");
    // The web libSQL client is in; the native one and Node's file system are not.
    expect(bundle).not.toMatch(/from\s*["']node:fs["']|require\(["']libsql["']\)|@libsql\/linux-x64/);
    // What the budget relies on: minified, and neither ajv, nor zod's other locales, nor libSQL's WebSocket client.
    expect(bundle).not.toContain("function databaseFromClient(");
    const meta = JSON.parse(readFileSync(resolve(root, "dist/worker/meta.json"), "utf8")) as {
      outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
    };
    // Modules that put code into the bundle (the metafile's top-level inputs also list tree-shaken ones).
    const inputs = Object.values(meta.outputs).flatMap((o) =>
      Object.entries(o.inputs).flatMap(([path, { bytesInOutput }]) => (bytesInOutput > 0 ? [path] : [])),
    );
    expect(inputs.filter((i) => /node_modules\/(ajv|ajv-formats|fast-uri)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => /zod\/v4\/locales\//.test(i))).toEqual(["node_modules/zod/v4/locales/en.js"]);
    expect(inputs.filter((i) => /hrana-client\/lib-esm\/ws\//.test(i))).toEqual([]);
    // Since /mcp runs no SDK Server (protocol/streamable-http.ts) nothing imports ajv at all; the alias to
    // src/worker-stubs/ajv.ts stays for SDK modules that would import it eagerly.
    // Issue 16: no JSON-schema validator, hono's small router only, two base64 functions over btoa/atob,
    // no Postgres column code, and of package.json only the version.
    expect(inputs.filter((i) => /node_modules\/(@cfworker|js-base64)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => /hono\/dist\/router\/(reg-exp|trie|smart)-router\//.test(i))).toEqual([]);
    expect(
      inputs.filter((i) =>
        /drizzle-orm\/(pg-core\/|relations\.js|sqlite-core\/query-builders\/query\.js)/.test(i),
      ),
    ).toEqual([]);
    expect(inputs).toEqual(
      expect.arrayContaining([
        "src/worker-stubs/base64.ts",
        "src/worker-stubs/pg-enum.ts",
        "src/worker-stubs/drizzle-relations.ts",
      ]),
    );
    expect(bundle).not.toContain('"devDependencies"');
    // ReqIF (saxes and its converters) is served on Workers as on Node.
    expect(inputs).toEqual(expect.arrayContaining(["src/core/interchange/reqif/reqif-format.ts"]));
    // The SDK v1 is not in the Worker at all: the protocol core checks 2025 params with the v2 schemas.
    expect(inputs.filter((i) => /node_modules\/@modelcontextprotocol\/sdk\//.test(i))).toEqual([]);
    // One copy of zod and of the SDK's core: both SDK packages and our code resolve to the same ones.
    expect(inputs.filter((i) => /node_modules\/.*node_modules\//.test(i))).toEqual([]);
  }, 200_000);

  it("fails with the size, the budget and the largest parts when the bundle is over its budget", () => {
    const run = buildWorker({ REQLIX_WORKER_BUDGET_KIB: "50" });
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(/The Worker bundle is [\d.]+ KiB gzipped, over its budget of 50 KiB/);
    expect(run.stderr).toMatch(/Largest parts \(minified\): .*zod [\d.]+ KiB/);
    const bad = buildWorker({ REQLIX_WORKER_BUDGET_KIB: "lots" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('REQLIX_WORKER_BUDGET_KIB must be a positive number of KiB, got "lots"');
  }, 400_000);
});
