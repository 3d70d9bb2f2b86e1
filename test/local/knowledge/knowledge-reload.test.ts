/**
 * REQ-9 through the real SDK Client over stdio: the configuration is cached and a change to the file is seen
 * by the next call, however the editor saves it. The 100 ms bound is measured by bench/knowledge-latency.ts.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir } from "../../helpers/companion.js";
import { KNOWLEDGE_BUNDLE, replaceFile, type ToolResult, text, writeTree } from "./helpers.js";

const config = (version: string) => `docsets:\n  - name: react\n    version: "${version}"\n`;

async function listVersion(companion: Companion): Promise<string | undefined> {
  const result = (await companion.client.callTool({ name: "list_docsets", arguments: {} })) as ToolResult;
  if (result.isError) return `error: ${text(result)}`;
  return (result.structuredContent as { docsets: { version: string }[] }).docsets[0]?.version;
}

/** Calls until the answer reflects `expected`; returns the milliseconds from `since` to that answer. */
async function untilSeen(
  companion: Companion,
  expected: string,
  since: number,
  timeoutMs = 10_000,
): Promise<number> {
  for (;;) {
    const seen = await listVersion(companion);
    const elapsed = performance.now() - since;
    if (seen === expected) return elapsed;
    if (elapsed > timeoutMs)
      throw new Error(`still ${seen} after ${elapsed.toFixed(0)} ms; expected ${expected}`);
  }
}

describe("knowledge configuration reload over stdio", () => {
  let project: Awaited<ReturnType<typeof tempDir>>;
  let companion: Companion;
  let path: string;

  beforeAll(async () => {
    project = await tempDir("knowledge-reload-");
    path = join(project.path, ".knowledge/config.yaml");
    await writeTree(project.path, { ".knowledge/config.yaml": config("1.0") });
    companion = await startCompanion({ bundle: KNOWLEDGE_BUNDLE, cwd: project.path });
  });

  afterAll(async () => {
    await companion?.close();
    await project?.cleanup();
  });

  it("REQ-9: caches the loaded configuration until the file changes", async () => {
    expect(await listVersion(companion)).toBe("1.0");
    expect(await listVersion(companion)).toBe("1.0");
    // One load at start; cached calls do not reload (each load is logged).
    expect(companion.stderr().split("knowledge config loaded").length - 1).toBe(1);
  });

  it("REQ-9: reloads when the file is rewritten in place, without a restart", async () => {
    const since = performance.now();
    await writeFile(path, config("2.0"));
    await untilSeen(companion, "2.0", since);
  });

  it("REQ-9: reloads when an editor replaces the file (write to a temp file, rename over)", async () => {
    const since = performance.now();
    await replaceFile(path, config("3.0"));
    await untilSeen(companion, "3.0", since);
  });

  it("REQ-9: reloads after a write even when no call comes (watch, background reload)", async () => {
    const loads = () => companion.stderr().split("knowledge config loaded").length - 1;
    const before = loads();
    const since = performance.now();
    await replaceFile(path, config("3.5"));
    while (loads() === before && performance.now() - since < 10_000)
      await new Promise((r) => setTimeout(r, 2));
    expect(loads()).toBe(before + 1);
    expect(await listVersion(companion)).toBe("3.5");
    expect(loads()).toBe(before + 1); // the call was a cache hit
  });

  it("REQ-9: an edit that keeps the same size is seen too", async () => {
    const since = performance.now();
    await writeFile(path, config("4.0")); // same length as "3.0"
    await untilSeen(companion, "4.0", since);
  });

  it("REQ-9: a broken edit answers with the problem, and the fix is picked up by the next call", async () => {
    await writeFile(path, "docsets:\n  - name: [react\n");
    const broken = await listVersion(companion);
    expect(broken).toMatch(/^error: .*is not valid YAML\. Fix the syntax at:\n- line \d+, column \d+/);
    const since = performance.now();
    await writeFile(path, config("5.0"));
    await untilSeen(companion, "5.0", since);
  });

  it("REQ-3 / REQ-9: deleting the configuration turns into the not-found error; creating it again needs no restart", async () => {
    await rm(path);
    expect(await listVersion(companion)).toMatch(/^error: No \.knowledge\/config\.yaml found/);
    const since = performance.now();
    await writeFile(path, config("6.0"));
    await untilSeen(companion, "6.0", since);
  });
});
