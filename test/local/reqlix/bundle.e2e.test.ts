/**
 * Item 6: `dist/reqlix-mcp.js` is one file that runs with plain `node` ≥ 20 from a folder holding nothing
 * else, and `npm pack` gives a package that installs and runs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFile, mkdir, readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUNDLE, startCompanion, tempDir } from "../../helpers/companion.js";
import { ok, reqlix } from "./reqlix-client.js";

const ROOT = resolve(import.meta.dirname, "../../..");

/** A Node 20 binary to prove the bundle's floor: the system's /usr/bin/node on this machine. */
function findNode20(): string | undefined {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    const out = spawnSync(candidate, ["--version"], { encoding: "utf8" });
    if (out.status === 0 && out.stdout.startsWith("v20.")) return candidate;
  }
  return undefined;
}
const NODE20 = findNode20();

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir("reqlix-bundle-");
});
afterEach(async () => {
  await dir.cleanup();
});

async function exercise(
  companion: Awaited<ReturnType<typeof startCompanion>>,
  project: string,
): Promise<void> {
  const call = reqlix(companion, project);
  expect(ok(await call<{ content: string }>("get_instructions")).content).toContain("# Categories");
  expect(
    ok(
      await call("insert_requirement", {
        category: "general",
        chapter: "General Requirements",
        title: "t",
        text: "x",
      }),
    ),
  ).toMatchObject({
    index: "G.G.1",
  });
  expect(ok(await call("get_requirement", { index: "G.G.1" }))).toMatchObject({ text: "x" });
}

describe("the bundle", () => {
  it("is one executable file with a node shebang that loads no native module and no package", async () => {
    const text = await readFile(BUNDLE, "utf8");
    expect(text.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect((await stat(BUNDLE)).mode & 0o111).not.toBe(0);
    expect(text).not.toMatch(/\.node["']/);
    // Every import is a Node built-in; nothing is left for node_modules to resolve at run time.
    const imports = [
      ...text.matchAll(
        /\bimport\s*[\w${},*\s]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g,
      ),
    ].map((m) => m[1] ?? m[2]);
    expect(imports.length).toBeGreaterThan(0);
    for (const name of imports) expect(name, "static import").toMatch(/^node:/);
    expect(text).not.toMatch(/require\("(?!node:|buffer"|process")[^"]+"\)/);
  });

  it("runs from a folder that holds nothing else", async () => {
    const alone = join(dir.path, "alone");
    await mkdir(alone);
    const copy = join(alone, "reqlix-mcp.js");
    await copyFile(BUNDLE, copy);
    const project = join(dir.path, "project");
    await mkdir(project);
    const companion = await startCompanion({ bundle: copy, cwd: alone, args: ["--toolsets", "reqlix"] });
    try {
      await exercise(companion, project);
    } finally {
      await companion.close();
    }
    expect(await readdir(alone)).toEqual(["reqlix-mcp.js"]);
  });

  it.skipIf(NODE20 === undefined)(
    "runs on the system's Node 20 (skipped only when no Node 20 binary is found)",
    async () => {
      const companion = await startCompanion({ node: NODE20, args: ["--toolsets", "reqlix"] });
      try {
        await exercise(companion, dir.path);
      } finally {
        await companion.close();
      }
      const version = spawnSync(NODE20 as string, [BUNDLE, "--version"], { encoding: "utf8" });
      expect(version.status).toBe(0);
    },
  );

  it("packs with npm into a package that installs and runs as `reqlix-mcp`", {
    timeout: 180_000,
  }, async () => {
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", dir.path], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as { filename: string; files: { path: string }[] }[];
    const info = packed[0];
    if (!info) throw new Error("npm pack printed nothing");
    expect(info.files.map((f) => f.path)).toContain("dist/reqlix-mcp.js");
    expect(info.files.some((f) => f.path.startsWith("src/") || f.path.startsWith("test/"))).toBe(false);
    const prefix = join(dir.path, "install");
    execFileSync(
      "npm",
      [
        "install",
        "--prefix",
        prefix,
        join(dir.path, info.filename),
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--omit=dev",
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    const bin = join(prefix, "node_modules/.bin/reqlix-mcp");
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(execFileSync(bin, ["--version"], { encoding: "utf8" }).trim()).toBe(pkg.version);
    const companion = await startCompanion({
      bundle: join(prefix, "node_modules/reqlix-mcp/dist/reqlix-mcp.js"),
      args: ["--toolsets", "reqlix"],
    });
    try {
      await exercise(companion, dir.path);
    } finally {
      await companion.close();
    }
  });
});
