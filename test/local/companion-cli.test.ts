import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUNDLE, startCompanion } from "../helpers/companion.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

describe("reqlix-mcp command line", () => {
  it("prints its version and exits", () => {
    const out = spawnSync(process.execPath, [BUNDLE, "--version"], { encoding: "utf8" });
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toBe(pkg.version);
  });

  it("prints help naming the toolsets option", () => {
    const out = spawnSync(process.execPath, [BUNDLE, "--help"], { encoding: "utf8" });
    expect(out.status).toBe(0);
    expect(out.stdout).toContain("--toolsets");
  });

  it("refuses an unknown toolset with a message that lists the valid ones", () => {
    const out = spawnSync(process.execPath, [BUNDLE, "--toolsets", "nope"], { encoding: "utf8", input: "" });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain("Unknown toolset(s): nope");
    expect(out.stdout).toBe("");
  });

  it("answers initialize over stdio and keeps stdout for the protocol", async () => {
    const companion = await startCompanion();
    try {
      expect(companion.client.getServerVersion()).toEqual({ name: "reqlix-mcp", version: pkg.version });
      const tools = await companion.client.listTools();
      expect(Array.isArray(tools.tools)).toBe(true);
    } finally {
      await companion.close();
    }
  });
});
