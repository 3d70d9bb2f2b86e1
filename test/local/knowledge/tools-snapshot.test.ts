/**
 * The knowledge tools as a client sees them (names, descriptions, schemas, annotations), snapshot-tested so
 * a change to what the model reads is a reviewed change (STYLE: the list of tools is snapshot-tested).
 */
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
});
