/**
 * The trace tools as a client sees them (names, descriptions, schemas, annotations), snapshot-tested so a
 * change to what the model reads is a reviewed change; and the README's trace section documents each.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toolsets } from "../../../src/local/toolsets.js";
import { traceRegistry } from "../../../src/local/trace/trace.tools.js";
import { compileRegistries } from "../../../src/protocol/compile.js";

const env = { cwd: "/nonexistent-trace-project", env: {}, log: () => {} };

describe("trace tool definitions", () => {
  const compiled = compileRegistries([traceRegistry(env)]);

  it("match the snapshot", () => {
    expect(compiled.toolList).toMatchSnapshot();
    expect(compiled.instructions).toMatchSnapshot();
  });

  it("are read-only trace_* tools taking project_root, and the toolset is on by default", () => {
    expect(compiled.toolList.map((t) => t.name)).toEqual([
      "trace_file",
      "trace_requirement",
      "trace_coverage",
      "trace_orphans",
    ]);
    for (const tool of compiled.toolList) {
      // Exactly: a read tool's destructive and idempotent hints mean nothing in MCP and are not listed.
      expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
      expect((tool.inputSchema.required as string[]) ?? []).toContain("project_root");
      expect(tool.description).toMatch(/Returns|returns/);
    }
    expect(compiled.toolList[0]?.description).toMatch(/^Call this before editing a file/);
    expect(Object.keys(toolsets)).toContain("trace");
  });

  it("are documented in the README's trace section with every argument", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    const start = readme.indexOf("<!-- section: trace -->");
    expect(start).toBeGreaterThan(-1);
    const end = readme.indexOf("<!-- section:", start + 1);
    const section = readme.slice(start, end === -1 ? undefined : end);
    for (const tool of traceRegistry(env).tools) {
      const row = section.split("\n").find((line) => line.startsWith(`| \`${tool.name}\``));
      expect(row, `README row for ${tool.name}`).toBeDefined();
      for (const key of Object.keys(tool.input.shape).filter((k) => k !== "project_root"))
        expect(row, `${tool.name} argument ${key}`).toContain(`\`${key}`);
    }
  });
});
