/**
 * The ixchel tools as a client sees them (names, descriptions, schemas, annotations), snapshot-tested so a
 * change to what the model reads is a reviewed change (STYLE: the list of tools is snapshot-tested).
 */
import { describe, expect, it } from "vitest";
import { ixchelRegistry } from "../../../src/local/ixchel/ixchel.tools.js";
import { compileRegistries } from "../../../src/protocol/compile.js";

describe("ixchel tool definitions", () => {
  const compiled = compileRegistries([
    ixchelRegistry({ cwd: "/nonexistent-ixchel-project", env: {}, log: () => {} }),
  ]);

  it("match the snapshot", () => {
    expect(compiled.toolList).toMatchSnapshot();
    expect(compiled.instructions).toMatchSnapshot();
  });

  it("are snake_case verb_noun names with output schemas and descriptions that say what comes back", () => {
    for (const tool of compiled.toolList) {
      expect(tool.name).toMatch(/^ixchel_[a-z_]{1,57}$/);
      expect(tool.outputSchema).toBeDefined();
      expect(tool.description).toMatch(/Returns|returns/);
      // Every tool can target any repository (US-003).
      expect(Object.keys((tool.inputSchema.properties as Record<string, unknown>) ?? {})).toContain("repo");
    }
    const writes = compiled.toolList.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name);
    expect(writes).toEqual([
      "ixchel_sync",
      "ixchel_init",
      "ixchel_create",
      "ixchel_link",
      "ixchel_unlink",
      "ixchel_update",
      "ixchel_delete",
    ]);
    for (const name of ["ixchel_unlink", "ixchel_update", "ixchel_delete"])
      expect(compiled.toolList.find((t) => t.name === name)?.annotations.destructiveHint, name).toBe(true);
    expect(compiled.toolList.find((t) => t.name === "ixchel_init")?.annotations.destructiveHint).toBe(false);
  });
});
