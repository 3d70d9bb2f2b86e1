import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { reqlixToolTable } from "./tool-table.js";

describe("README", () => {
  it("holds the reqlix tool table as the registry renders it (regenerate: npx tsx test/local/reqlix/tool-table.ts)", async () => {
    const readme = await readFile(new URL("../../../README.md", import.meta.url), "utf8");
    expect(readme).toContain(reqlixToolTable());
  });
});
