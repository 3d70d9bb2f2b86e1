import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Citation } from "../../../src/local/trace/citations.js";
import { parseTraceConfig } from "../../../src/local/trace/config-parse.js";
import { FileReader } from "../../../src/local/trace/file-reader.js";
import { newScanState, type ScanResult, scanProject } from "../../../src/local/trace/scan.js";
import { ageWorkingCopy, type Fixture, makeFixture, pastGranularity } from "./fixture.js";

function all(result: ScanResult): Citation[] {
  return [...result.byFile.values()].flat();
}

function at(result: ScanResult, file: string, id: string): Citation | undefined {
  return result.byFile.get(file)?.find((c) => c.id === id);
}

describe("trace scan over a real git repository", () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await makeFixture();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("finds hosted ids and the project's reqlix indices with file, line, column, kind and pins", async () => {
    const r = await scanProject(fx.root, { env: fx.env });
    expect(r.git).toBe(true);
    expect(at(r, "src/auth.ts", "REQ-012")).toMatchObject({
      line: 1,
      column: 15,
      kind: "impl",
      revision: null,
      form: "hosted",
    });
    expect(at(r, "src/auth.ts", "G.GI.1")).toMatchObject({
      line: 1,
      column: 27,
      kind: "impl",
      form: "reqlix",
    });
    // REQ-7 is canonicalized to three digits, and keeps its pin.
    expect(at(r, "src/auth.ts", "REQ-007")).toMatchObject({
      line: 3,
      revision: 2,
      snippet: "return check(); // REQ-7@2 pinned",
    });
    expect(at(r, "src/auth.ts", "G.GI.2")).toMatchObject({ line: 5, revision: 2 });
    // Columns count characters, not bytes, after non-ASCII text.
    expect(at(r, "src/auth.ts", "US-003")).toMatchObject({ line: 9, column: 24 });
    const ids = (r.byFile.get("src/auth.ts") ?? []).map((c) => c.id);
    expect(ids).toEqual(["REQ-012", "G.GI.1", "REQ-007", "G.GI.2", "REQ-999", "G.ZZ.4", "US-003"]);
    expect(at(r, "app/service.py", "REQ-020")).toMatchObject({ kind: "impl", line: 2 });
    expect(at(r, "tests/test_service.py", "REQ-020")).toMatchObject({ kind: "test" });
    expect(at(r, "pkg/server.go", "EP-001")).toMatchObject({ kind: "impl" });
    expect(at(r, "README.md", "G.GI.1")).toMatchObject({ kind: "doc", line: 3 });
  });

  it("names the test when the id sits in a test title on that line (vitest, describe.each, Go t.Run)", async () => {
    const r = await scanProject(fx.root, { env: fx.env });
    expect(at(r, "src/auth.test.ts", "REQ-012")).toMatchObject({
      kind: "test",
      test_name: "REQ-012 rejects a wrong password",
    });
    expect(at(r, "src/auth.test.ts", "G.GI.1")).toMatchObject({ test_name: "G.GI.1 instructions %s" });
    // Same line, but in a comment rather than the title.
    expect(at(r, "src/auth.test.ts", "AC-004")).toMatchObject({ kind: "test", test_name: null });
    expect(at(r, "pkg/server_test.go", "REQ-030")).toMatchObject({
      kind: "test",
      test_name: "REQ-030 serves",
    });
    expect(at(r, "tests/test_service.py", "REQ-020")?.test_name).toBeNull();
  });

  it("skips ignored files, counts binary and oversized files, never reads the requirement files", async () => {
    await fx.write("big.ts", `// REQ-012\n${"x".repeat(3000)}\n`);
    await fx.write(".reqlix/trace.yaml", "max_file_bytes: 2000\n");
    const r = await scanProject(fx.root, { env: fx.env });
    const files = [...r.byFile.keys()];
    expect(files).not.toContain("build/out.js");
    expect(files).not.toContain("debug.log");
    expect(files).not.toContain("assets/logo.bin");
    expect(files).not.toContain("big.ts");
    expect(files.some((f) => f.startsWith("docs/development/requirements/"))).toBe(false);
    expect(r.skipped).toEqual({ binary: 1, too_large: 1, unreadable: 0 });
    expect(
      all(r).some((c) => c.id === "XREQ-012" || (c.snippet.includes("v1.2.3") && c.id !== "REQ-012")),
    ).toBe(false);
  });

  it("reads the files in a second thread with exactly the result of reading them inline", async () => {
    // Enough files for several batches (256 files or 1 MiB each), a file larger than a batch, one over the
    // cap, binary ones, and files tracked and untracked.
    await fx.write(".reqlix/trace.yaml", "max_file_bytes: 3000000\n");
    for (let i = 0; i < 700; i++) {
      const body = `// line\n${"const x = 1; // filler\n".repeat(i % 50)}// REQ-${100 + (i % 40)}@${1 + (i % 3)} and G.GI.${i % 5}\n`;
      await fx.write(
        `gen/f${i}.ts`,
        i % 97 === 0 ? Buffer.concat([Buffer.from(body), Buffer.from([0])]) : body,
      );
    }
    await fx.write("gen/large.ts", `${"// filler line\n".repeat(100_000)}// REQ-777 at the end\n`);
    await fx.write("gen/over.ts", `// REQ-778\n${"x".repeat(3_100_000)}\n`);
    fx.commit("generated");
    await fx.write("gen/untracked.ts", "// REQ-779 untracked\n");
    await pastGranularity();
    const inlineState = newScanState();
    const threadState = newScanState();
    const inline = await scanProject(fx.root, {
      env: fx.env,
      state: inlineState,
      readThreadMin: Number.POSITIVE_INFINITY,
    });
    const reader = FileReader.start({ share: false });
    const thread = await scanProject(fx.root, { env: fx.env, state: threadState, reader: () => reader });
    expect(reader.threadChunks).toBe(Math.ceil(thread.read / 64));
    expect(thread.read).toBe(inline.read);
    expect(thread.read).toBeGreaterThan(700);
    expect(thread.skipped).toEqual(inline.skipped);
    expect(thread.skipped).toMatchObject({ binary: 9, too_large: 1 });
    expect([...thread.byFile]).toEqual([...inline.byFile]);
    expect(thread.byFile.get("gen/large.ts")?.[0]).toMatchObject({ id: "REQ-777", line: 100_001 });
    expect(thread.byFile.get("gen/untracked.ts")?.[0]).toMatchObject({ id: "REQ-779" });
    expect([...(threadState.cache?.entries ?? [])]).toEqual([...(inlineState.cache?.entries ?? [])]);
  });

  it("reads the commits whose messages cite ids, bounded by history_commits", async () => {
    const r = await scanProject(fx.root, { env: fx.env });
    expect(r.commits).toHaveLength(1);
    expect(r.commits[0]).toMatchObject({
      ids: ["REQ-012", "AC-004", "G.GI.1"],
      subject: "Handle REQ-012 lockout (AC-004)",
    });
    expect(r.commits[0]?.sha).toMatch(/^[0-9a-f]{40}$/);
    await fx.write(".reqlix/trace.yaml", "history_commits: 0\n");
    expect((await scanProject(fx.root, { env: fx.env })).commits).toEqual([]);
  });

  it("rescans only files whose blob (tracked, unchanged by git) or size, mtime, ctime and inode changed (in memory and from the disk cache)", async () => {
    await fx.write("notes/draft.md", "Untracked, cites REQ-101.\n");
    await ageWorkingCopy(fx.root);
    const state = newScanState();
    const first = await scanProject(fx.root, { env: fx.env, state, persist: true });
    expect(first.read).toBe(first.files + 0); // cold: every file read (binary and big ones included)
    expect((await scanProject(fx.root, { env: fx.env, state })).read).toBe(0);
    expect((await scanProject(fx.root, { env: fx.env, persist: true })).read).toBe(0);
    await fx.write("src/auth.ts", "// now only REQ-100\n");
    await pastGranularity();
    const changed = await scanProject(fx.root, { env: fx.env, state });
    expect(changed.read).toBe(1);
    expect((changed.byFile.get("src/auth.ts") ?? []).map((c) => c.id)).toEqual(["REQ-100"]);
    expect((await scanProject(fx.root, { env: fx.env, state })).read).toBe(0);
    const fromDisk = await scanProject(fx.root, { env: fx.env, persist: true });
    expect(fromDisk.read).toBe(1); // src/auth.ts: the disk cache predates the change
    expect((await scanProject(fx.root, { env: fx.env, persist: true })).read).toBe(0);
    // Staged: the same content is now the index blob; its stamp vouches for it, git for the blob from now on.
    fx.git("add", "src/auth.ts");
    const staged = await scanProject(fx.root, { env: fx.env, persist: true });
    expect(staged.read).toBe(0);
    await fx.write("src/auth.ts", "// now only REQ-102\n");
    const edited = await scanProject(fx.root, { env: fx.env, persist: true });
    expect(edited.read).toBe(1);
    expect((edited.byFile.get("src/auth.ts") ?? []).map((c) => c.id)).toEqual(["REQ-102"]);
  });

  it("a rescan that visits only what git reports changed agrees with a cold scan after every kind of change", async () => {
    const state = newScanState();
    const view = (r: ScanResult) =>
      Object.fromEntries(
        [...r.byFile].map(([file, cs]) => [file, cs.map((c) => `${c.id}@${c.line}:${c.column}`)]).sort(),
      );
    const check = async () => {
      const warm = await scanProject(fx.root, { env: fx.env, state });
      const disk = await scanProject(fx.root, { env: fx.env, persist: true });
      const cold = await scanProject(fx.root, {
        env: { ...fx.env, REQLIX_CACHE_DIR: `${fx.cacheDir}/cold` },
      });
      expect(view(warm)).toEqual(view(cold));
      expect(view(disk)).toEqual(view(cold));
      expect([warm.files, warm.skipped]).toEqual([cold.files, cold.skipped]);
      return warm;
    };
    // Files the earlier tests wrote a moment ago are racy (re-read at every scan until they age), which
    // would add to the read counts below: date them back first.
    await ageWorkingCopy(fx.root);
    await check();
    await fx.write("notes/new.md", "Untracked REQ-201.\n");
    await fx.write("src/auth.ts", "// edited REQ-202\n");
    expect((await check()).read).toBe(2);
    // Reverted by hand: the index is untouched (no listing again), the file is clean and cited as before.
    const original = fx.git("show", "HEAD:src/auth.ts");
    await fx.write("src/auth.ts", "// edited again REQ-205\n");
    await check();
    await fx.write("src/auth.ts", original);
    const byHand = await check();
    expect(byHand.byFile.get("src/auth.ts")?.map((c) => c.id)).toContain("REQ-012");
    await fx.write("src/auth.ts", "// edited REQ-202\n");
    await check();
    // Reverted with git (clean again), the untracked file ignored, then deleted files.
    fx.git("checkout", "--", "src/auth.ts");
    await fx.write(".gitignore", "build/\n*.log\nnotes/\n");
    const reverted = await check();
    expect(reverted.byFile.has("notes/new.md")).toBe(false);
    fx.git("rm", "-q", "README.md");
    await check();
    // A commit changes the index: a full listing again, the same answer.
    fx.commit("chore: REQ-203");
    await fx.write("src/later.ts", "// REQ-204\n");
    expect((await check()).byFile.get("src/later.ts")?.map((c) => c.id)).toEqual(["REQ-204"]);
  });

  it("walks a folder that is not a git repository, honouring .gitignore files at every level", async () => {
    const plain = await makeFixture({ git: false });
    try {
      await plain.write("sub/.gitignore", "secret.ts\n");
      await plain.write("sub/secret.ts", "// REQ-123\n");
      await plain.write("sub/open.ts", "// REQ-124\n");
      const r = await scanProject(plain.root, { env: plain.env });
      expect(r.git).toBe(false);
      const files = [...r.byFile.keys()].sort();
      expect(files).toContain("sub/open.ts");
      expect(files).not.toContain("sub/secret.ts");
      expect(files).not.toContain("build/out.js");
      expect(files).not.toContain("debug.log");
      expect(r.commits).toEqual([]);
    } finally {
      await plain.cleanup();
    }
  });

  it("honours include, exclude, tests and docs globs of trace.yaml", async () => {
    await fx.write(
      ".reqlix/trace.yaml",
      "include: ['src/**', 'pkg/**']\nexclude: ['**/*.go']\ntests: ['src/auth.ts']\n",
    );
    const r = await scanProject(fx.root, { env: fx.env });
    expect([...r.byFile.keys()].sort()).toEqual(["src/auth.test.ts", "src/auth.ts", "src/extra.ts"]);
    expect(at(r, "src/auth.ts", "REQ-012")?.kind).toBe("test");
    expect(at(r, "src/auth.test.ts", "REQ-012")?.kind).toBe("impl");
  });
});

describe("trace.yaml errors name the line and column", () => {
  it.each([
    ["include: [unclosed\n", /not valid YAML at line \d+, column \d+/],
    ["tests:\n  - ok\n  - 3\n", /tests\[1\] at line 3, column 5 must be a non-empty string/],
    ["max_file_bytes: -1\n", /max_file_bytes at line 1, column 17 must be a whole number of bytes/],
    ["hosted_prefixes: [REQ, req]\n", /hosted_prefixes\[1\] "req" at line 1, column 24/],
    ["\n\nbogus: 1\n", /unknown key "bogus" at line 3, column 1/],
    ["- a\n- b\n", /must be a mapping/],
  ])("%j", (text, message) => {
    expect(() => parseTraceConfig(text)).toThrow(message);
  });

  it("refuses the whole scan, so nothing half-configured is reported", async () => {
    const fx = await makeFixture({ git: false });
    try {
      await fx.write(".reqlix/trace.yaml", "exclude: 'src/**'\n");
      await expect(scanProject(fx.root, { env: fx.env })).rejects.toThrow(
        /exclude at line 1, column 10 must be list of globs/,
      );
    } finally {
      await fx.cleanup();
    }
  });
});
