/**
 * The MCP Inspector's CLI against the bundled companion over stdio: `tools/list` and `tools/call`, with
 * exit codes and the JSON it prints. Proves a client we did not write can drive `dist/reqlix-mcp.js`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLE, tempDir } from "../helpers/companion.js";
import { runInspector } from "../helpers/inspector.js";

let project: { path: string; cleanup(): Promise<void> };

beforeAll(async () => {
  project = await tempDir("reqlix-inspector-");
  await mkdir(join(project.path, ".knowledge", "docs", "react-18.2"), { recursive: true });
  await writeFile(
    join(project.path, ".knowledge", "config.yaml"),
    'docsets:\n  - name: react\n    version: "18.2"\n    aliases: [reactjs]\n',
  );
  await writeFile(
    join(project.path, ".knowledge", "docs", "react-18.2", "hooks.md"),
    "# Hooks\n\nuseState keeps state.\n",
  );
});

afterAll(async () => {
  await project?.cleanup();
});

type ToolList = { tools: { name: string; description: string; inputSchema: { type: string } }[] };
type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

describe("MCP Inspector CLI over stdio against dist/reqlix-mcp.js", () => {
  it("tools/list exits 0 and prints every toolset's tools with schemas", async () => {
    const run = await runInspector([process.execPath, BUNDLE, "--method", "tools/list"], {
      cwd: project.path,
    });
    expect(run.code, run.stderr).toBe(0);
    const list = run.json as ToolList;
    const names = list.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["list_docsets", "search_docs"]));
    for (const tool of list.tools) {
      expect(tool.description.length, tool.name).toBeGreaterThan(10);
      expect(tool.inputSchema.type, tool.name).toBe("object");
    }
  });

  it("tools/call with --tool-arg values (JSON arrays included) exits 0 and prints the result", async () => {
    const run = await runInspector(
      [
        process.execPath,
        BUNDLE,
        "--method",
        "tools/call",
        "--tool-name",
        "search_docs",
        "--tool-arg",
        "docset=reactjs",
        "--tool-arg",
        'keywords=["useState"]',
        "--tool-arg",
        'generalized_keywords=["state"]',
      ],
      { cwd: project.path },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = run.json as ToolResult;
    expect(result.isError).toBeUndefined();
    expect(result.content[0]?.text).toContain("Search for 'useState' in folder");
    expect(result.structuredContent).toMatchObject({
      docset: "react",
      version: "18.2",
      matched_on: "keywords",
    });
    expect(JSON.stringify(result.structuredContent)).toContain("hooks.md");
  });

  it("a tool error is printed as an isError result (v1 exits 0: the call itself succeeded)", async () => {
    const run = await runInspector(
      [
        process.execPath,
        BUNDLE,
        "--method",
        "tools/call",
        "--tool-name",
        "search_docs",
        "--tool-arg",
        "docset=vue",
      ],
      {
        cwd: project.path,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = run.json as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/keywords/);
  });

  it("an unknown method exits 1 and names the supported ones", async () => {
    const run = await runInspector([process.execPath, BUNDLE, "--method", "nope/x"], { cwd: project.path });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Unsupported method: nope/x");
  });
});
