/**
 * `npm run build:worker` (wrangler deploy --dry-run --outdir dist/worker) in the test run, so CI proves the
 * Worker bundles offline, without a login, and that no node-only module reaches it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

describe("npm run build:worker", () => {
  it("bundles src/worker.ts like wrangler deploy and prints the bundle size", () => {
    const run = spawnSync(process.execPath, [resolve(root, "scripts/build-worker.mjs")], {
      cwd: root,
      encoding: "utf8",
      // No credentials: a dry run must not need a Cloudflare login.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      timeout: 180_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Worker bundle \(dist\/worker: worker\.js\): [\d.]+ KiB, gzip [\d.]+ KiB/);
    const bundle = readFileSync(resolve(root, "dist/worker/worker.js"), "utf8");
    // The web libSQL client is in; the native one and Node's file system are not.
    expect(bundle).not.toMatch(/from\s*["']node:fs["']|require\(["']libsql["']\)|@libsql\/linux-x64/);
  }, 200_000);
});
