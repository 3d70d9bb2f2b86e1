/**
 * REQ-10 (knowledge-docsets): the npm package ships TypeScript type definitions for programmatic use.
 * Packs the real package, installs it into a temp project, type-checks a consumer against it with tsc, and
 * imports it at run time (which must start nothing).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/companion.js";

const ROOT = resolve(import.meta.dirname, "../..");

describe("reqlix-mcp as a library (REQ-10)", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let project: string;

  beforeAll(async () => {
    dir = await tempDir("reqlix-api-");
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", dir.path], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as { filename: string; files: { path: string }[] }[];
    const info = packed[0];
    if (!info) throw new Error("npm pack printed nothing");
    expect(info.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(["dist/api.js", "dist/types/local/api.d.ts", "package.json"]),
    );
    project = join(dir.path, "consumer");
    await mkdir(project);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", type: "module", private: true }),
    );
    execFileSync(
      "npm",
      [
        "install",
        join(dir.path, info.filename),
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
      ],
      { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
  }, 180_000);

  afterAll(async () => {
    await dir?.cleanup();
  });

  it("type-checks a consumer against the shipped declarations, and flags a wrong call", async () => {
    await writeFile(
      join(project, "use.ts"),
      `import { compileTemplate, DEFAULT_TEMPLATE, docsetLocalPath, parseDocsetsConfig, renderTemplate, runCompanion } from "reqlix-mcp";
const parsed = parseDocsetsConfig("docsets:\\n  - name: react\\n    version: '18.2'\\n");
const path: string = docsetLocalPath(".knowledge/docs", "react", "18.2");
const text: string = renderTemplate(compileTemplate(DEFAULT_TEMPLATE), { keywords: "a", generalized_keywords: "b", local_path: path, docset: "react", version: "18.2" });
const start: (o: { program: string }) => Promise<void> = runCompanion;
export { parsed, text, start };
`,
    );
    await writeFile(
      join(project, "bad.ts"),
      `import { docsetLocalPath } from "reqlix-mcp";\ndocsetLocalPath(1, 2);\n`,
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const flags = [
      "--noEmit",
      "--strict",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--types",
      "node",
      "--typeRoots",
      join(ROOT, "node_modules/@types"),
    ];
    const good = spawnSync(process.execPath, [tsc, ...flags, "use.ts"], { cwd: project, encoding: "utf8" });
    expect(good.stdout + good.stderr).toBe("");
    expect(good.status).toBe(0);
    const bad = spawnSync(process.execPath, [tsc, ...flags, "bad.ts"], { cwd: project, encoding: "utf8" });
    expect(bad.status).not.toBe(0);
    expect(bad.stdout).toContain("bad.ts");
  }, 120_000);

  it("imports at run time without starting a server, and renders the spec's instruction", () => {
    const script = `import { compileTemplate, DEFAULT_TEMPLATE, renderTemplate } from "reqlix-mcp";
console.log(renderTemplate(compileTemplate(DEFAULT_TEMPLATE), { keywords: "hooks, state", generalized_keywords: "react", local_path: "/d/react-18.2/", docset: "react", version: "18.2" }));`;
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      encoding: "utf8",
      input: "",
      timeout: 20_000,
    });
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toBe(
      "Search for 'hooks, state' in folder /d/react-18.2/. Use your normal text search tools to do this. If the search results don't help you, try to find 'react'. If this still doesn't help, ask the user to rephrase it.",
    );
  });
});
