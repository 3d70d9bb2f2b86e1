/**
 * The knowledge tools as a client sees them (names, descriptions, schemas, annotations), snapshot-tested so
 * a change to what the model reads is a reviewed change (STYLE: the list of tools is snapshot-tested).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { knowledgeRegistry } from "../../../src/local/knowledge/knowledge.tools.js";
import { compileRegistries } from "../../../src/protocol/compile.js";

describe("knowledge tool definitions", () => {
  it("REQ-8: list_docsets and search_docs definitions match the snapshot", () => {
    const registry = knowledgeRegistry({ cwd: "/nonexistent-knowledge-project", env: {}, log: () => {} });
    const compiled = compileRegistries([registry]);
    expect(compiled.toolList).toMatchSnapshot();
    expect(compiled.instructions).toMatchSnapshot();
    for (const tool of compiled.toolList) {
      expect(tool.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      // Exactly: a read tool's destructive and idempotent hints mean nothing in MCP and are not listed.
      expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    }
  });

  it("the README's knowledge section names every tool and every argument (stale docs fail here)", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    const start = readme.indexOf("<!-- section: knowledge -->");
    const end = readme.indexOf("<!-- section:", start + 1);
    const section = readme.slice(start, end);
    const compiled = compileRegistries([
      knowledgeRegistry({ cwd: "/nonexistent-knowledge-project", env: {}, log: () => {} }),
    ]);
    for (const tool of compiled.toolList) {
      expect(section).toContain(`| \`${tool.name}\` |`);
      for (const arg of Object.keys((tool.inputSchema.properties as Record<string, unknown>) ?? {})) {
        expect(section).toContain(`\`${arg}\``);
      }
    }
  });
});
