/**
 * What a new user trips on first (hardening items 14 and 15): the licence the package names is the one the
 * repository carries, CI runs the linter as well as the tests, packed tarballs are not committed by mistake,
 * and the README leads with what works from a checkout (the npm package is not published yet).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

describe("repository hygiene", () => {
  it("LICENSE holds the licence package.json names", () => {
    const pkg = JSON.parse(read("package.json")) as { license: string };
    expect(pkg.license).toBe("MIT");
    expect(read("LICENSE")).toMatch(/^MIT License\n/);
  });

  it(".ci/run installs cleanly, lints, then runs exactly the README's test command", () => {
    const steps = read(".ci/run")
      .split("\n")
      .filter((line) => /^npm /.test(line));
    expect(steps).toEqual(["npm ci", "npm run lint", "npm test"]);
    expect(read("README.md")).toContain("npm test ");
  });

  it("packed tarballs are ignored", () => {
    expect(read(".gitignore").split("\n")).toContain("*.tgz");
  });

  it("the README's companion recipes run the bundle from a checkout, and name npx as the release path", () => {
    const readme = read("README.md");
    expect(readme).toContain("node /path/to/reqlix/dist/reqlix-mcp.js");
    expect(readme).not.toMatch(/claude mcp add [^\n]*npx -y reqlix-mcp/);
    expect(readme).toMatch(/once a\s+release is published, `npx -y reqlix-mcp`/);
  });
});
