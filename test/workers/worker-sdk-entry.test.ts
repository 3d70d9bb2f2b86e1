/**
 * scripts/worker-sdk-entry.mjs (wrangler.toml `[build] command`): the SDK v2 entry the Worker bundles is
 * the SDK's own index.mjs with two branches of createMcpHandler made constant. After an SDK upgrade that
 * changed that text, the script must fail and name the edit, never write an entry edited elsewhere.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const script = resolve(root, "scripts/worker-sdk-entry.mjs");
const sdkEntry = fileURLToPath(import.meta.resolve("@modelcontextprotocol/server"));
let dir: string | undefined;

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function run(entry: string, out: string) {
  return spawnSync(process.execPath, [script], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", REQLIX_SDK_ENTRY: entry, REQLIX_SDK_ENTRY_OUT: out },
  });
}

describe("the Worker's entry of the MCP SDK v2", () => {
  it("is the SDK's index.mjs with the McpServer checks and the legacy fallback made constant, guarded, chunks from the SDK", () => {
    dir = mkdtempSync(join(tmpdir(), "sdk-entry-"));
    const out = join(dir, "server.mjs");
    const ran = run(sdkEntry, out);
    expect(ran.status, ran.stderr).toBe(0);
    const code = readFileSync(out, "utf8");
    const original = readFileSync(sdkEntry, "utf8");
    expect(code).not.toContain("instanceof McpServer");
    expect(code).not.toContain("createLegacyStatelessFallback(factory, reportError");
    expect(code).toContain('if (legacy !== "reject") throw new Error(');
    expect(code).toContain("if (!(product instanceof Server)) throw new TypeError(");
    // Every chunk import now names the SDK's own file, which exists.
    const imports = [...code.matchAll(/from "([^"]+\.mjs)"/g)].map((m) => m[1] as string);
    expect(imports.length).toBeGreaterThan(2);
    for (const spec of imports) expect(existsSync(resolve(dirname(out), spec)), spec).toBe(true);
    // Nothing else changed: the same lines but the header and the two guards.
    expect(code.split("\n").length).toBe(original.split("\n").length + 3);
  });

  it("fails, naming the edit, when the SDK's text is not what the edit expects", () => {
    dir = mkdtempSync(join(tmpdir(), "sdk-entry-"));
    const changed = join(dir, "index.mjs");
    writeFileSync(
      changed,
      readFileSync(sdkEntry, "utf8").replaceAll("product instanceof McpServer", "isMcpServer(product)"),
    );
    const out = join(dir, "server.mjs");
    const ran = run(changed, out);
    expect(ran.status).toBe(1);
    expect(ran.stderr).toContain(
      'expected 1× "const server = product instanceof McpServer ? product.server : product;"',
    );
    expect(ran.stderr).toContain("found 0. The SDK changed");
    expect(existsSync(out)).toBe(false);
  });
});
