import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ixchelRegistry } from "../../../src/local/ixchel/ixchel.tools.js";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
const start = readme.indexOf("<!-- section: ixchel -->");
const end = readme.indexOf("<!-- section:", start + 1);
const section = readme.slice(start, end === -1 ? undefined : end);

describe("README ixchel section", () => {
  const registry = ixchelRegistry({ cwd: process.cwd(), env: {}, log: () => {} });

  it("documents every tool with every argument", () => {
    expect(start).toBeGreaterThan(-1);
    for (const tool of registry.tools) {
      const row = section.split("\n").find((line) => line.startsWith(`| \`${tool.name}\``));
      expect(row, `README row for ${tool.name}`).toBeDefined();
      for (const key of Object.keys(tool.input.shape))
        expect(row, `${tool.name} argument ${key}`).toContain(`\`${key}`);
    }
  });
});
