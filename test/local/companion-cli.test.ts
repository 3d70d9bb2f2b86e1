import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { BUNDLE, startCompanion } from "../helpers/companion.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};
const KNOWLEDGE_BUNDLE = resolve(import.meta.dirname, "../../dist/agentic-knowledge-mcp.js");

function run(args: string[], bundle = BUNDLE) {
  return spawnSync(process.execPath, [bundle, ...args], { encoding: "utf8", input: "", timeout: 10_000 });
}

describe("reqlix-mcp command line", () => {
  it("prints its version and exits", () => {
    const out = run(["--version"]);
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toBe(pkg.version);
  });

  it("prints help naming every flag, every toolset and the default toolsets", () => {
    const out = run(["--help"]);
    expect(out.status).toBe(0);
    for (const flag of ["--toolsets <list>", "--version", "-v", "--help", "-h"])
      expect(out.stdout).toContain(flag);
    for (const toolset of ["reqlix", "knowledge", "ixchel", "trace"])
      expect(out.stdout).toMatch(new RegExp(`^  ${toolset} `, "m"));
    expect(out.stdout).toContain("(default: reqlix,knowledge,ixchel,trace)");
    expect(out.stdout).toContain("IXCHEL_EMBEDDINGS_API_KEY");
    expect(out.stdout).toContain('"args": ["/path/to/reqlix/dist/reqlix-mcp.js"]');
    expect(out.stdout).toContain("once published: npx -y reqlix-mcp");
    expect(out.stdout).toMatch(/^ {7}reqlix-mcp trace /m);
  });

  it("agentic-knowledge-mcp --help states its own default toolset and its own command (hardening #15)", () => {
    const out = run(["--help"], KNOWLEDGE_BUNDLE);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^Usage: agentic-knowledge-mcp \[--toolsets <list>\]/);
    expect(out.stdout).toContain("(default: knowledge)");
    expect(out.stdout).not.toContain("(default: reqlix");
    expect(out.stdout).toContain('"args": ["/path/to/reqlix/dist/agentic-knowledge-mcp.js"]');
    expect(out.stdout).toContain("once published: npx -y -p reqlix-mcp agentic-knowledge-mcp");
    expect(out.stdout).not.toContain("dist/reqlix-mcp.js");
    expect(out.stdout).not.toContain("reqlix-mcp trace");
  });

  it("refuses an unknown toolset with a message that lists the valid ones", () => {
    const out = run(["--toolsets", "nope"]);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain("Unknown toolset(s): nope");
    expect(out.stdout).toBe("");
  });

  it("refuses an unknown flag, naming it, suggesting the close one and listing the valid flags (hardening #13)", () => {
    const out = run(["--toolset", "reqlix"]);
    expect(out.status).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("unknown option --toolset");
    expect(out.stderr).toContain("Did you mean --toolsets?");
    expect(out.stderr).toContain("Valid options: --toolsets <list>, --version (-v), --help (-h)");
  });

  it("refuses unknown flags even next to --help, and stray arguments, without starting", () => {
    for (const args of [["--help", "--bogus"], ["--verbose"], ["-x"], ["reqlix"], ["--version=1"]]) {
      const out = run(args);
      expect(out.status, args.join(" ")).toBe(2);
      expect(out.stdout, args.join(" ")).toBe("");
      expect(out.stderr, args.join(" ")).toMatch(
        /reqlix-mcp: (unknown option|unexpected argument|--version takes no value)/,
      );
      expect(out.stderr, args.join(" ")).toContain("Valid options:");
    }
    expect(run(["--verison"]).stderr).toContain("Did you mean --version?");
  });

  it("accepts --toolsets=<list> and --toolsets <list>", async () => {
    for (const args of [["--toolsets=knowledge"], ["--toolsets", "knowledge"]]) {
      const companion = await startCompanion({ args });
      try {
        const names = (await companion.client.listTools()).tools.map((t) => t.name);
        expect(names.length).toBeGreaterThan(0);
        expect(names.every((n) => !n.startsWith("reqlix_") && !n.startsWith("ixchel_"))).toBe(true);
      } finally {
        await companion.close();
      }
    }
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
