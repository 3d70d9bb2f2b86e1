/**
 * `reqlix-mcp trace` as CI runs it: the built bundle in a child process over a real git repository, every
 * gate's exit code, usage errors, the formats, and the hosted contract against a real local HTTP server.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BUNDLE } from "../../helpers/companion.js";
import { ageWorkingCopy, type Fixture, makeFixture } from "./fixture.js";
import { type ContractServer, pushProblem, startContractServer } from "./hosted-server.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function trace(fx: Fixture, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "/usr/bin/node", // the bundle must run on the system's Node 20
      [BUNDLE, "trace", ...args],
      { cwd: fx.root, env: { ...fx.env, ...env }, maxBuffer: 1 << 26 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe("reqlix-mcp trace gates (exit 1 when a chosen gate fails)", () => {
  it("exits 0 with no gate and prints the matrix", async () => {
    const r = await trace(fx, []);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+ requirements: \d+ covered/);
    expect(r.stdout).toMatch(/G\.GI\.3\s+uncovered\s+Active/);
    expect(r.stdout).toContain("No gate checked (--fail-on).");
  });

  it.each([
    ["uncovered", 1], // G.GI.3 is cited nowhere
    ["impl_only", 1], // G.GI.2 is cited by code only
    ["orphan", 1], // G.ZZ.4 does not exist
    ["suspect", 1], // G.GI.2@2 while G.GI.2 is at revision 3
    ["test_only", 0],
  ])("--fail-on %s → exit %i", async (gate, code) => {
    const r = await trace(fx, ["--fail-on", gate, "--format", "json"]);
    expect(r.code).toBe(code);
    const m = JSON.parse(r.stdout);
    expect(m.gates).toEqual({ checked: [gate], failed: code === 1 ? [gate] : [] });
  });

  it("test_only fails once a requirement is cited by tests alone; gates combine", async () => {
    await fx.write("tests/only.test.ts", 'it("REQ-500 is tested only", () => {});\n');
    const r = await trace(fx, ["--fail-on=test_only,orphan", "--format", "json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).gates.failed).toEqual(["test_only", "orphan"]);
    const passed = await trace(fx, ["--fail-on", "test_only", "--status", "Active", "--format", "json"]);
    // Without a server, hosted ids have no status: --status Active keeps the local requirements only.
    expect(passed.code).toBe(0);
    expect(JSON.parse(passed.stdout).rows.map((r: { id: string }) => r.id)).toEqual([
      "G.GI.1",
      "G.GI.2",
      "G.GI.3",
    ]);
  });

  it("gates pass when the project is clean", async () => {
    await fx.write("src/auth.ts", "// G.GI.2@3 and G.GI.3\n");
    await fx.write("tests/gi.test.ts", 'it("G.GI.2 and G.GI.3 hold", () => {});\n');
    const r = await trace(fx, ["--fail-on", "uncovered,impl_only,orphan,suspect", "--status", "Active"]);
    expect(r.stdout).toContain("Gates passed: uncovered, impl_only, orphan, suspect.");
    expect(r.code).toBe(0);
  });
});

describe("reqlix-mcp trace usage errors (exit 2)", () => {
  it.each([
    [["--bogus"], /unknown option "--bogus"/],
    [["--format", "xml"], /--format "xml" is not one of table, json, markdown, junit/],
    [["--fail-on", "uncovered,sometimes"], /unknown gate\(s\) sometimes/],
    [["--fail-on"], /--fail-on needs a value/],
    [["--push", "http://127.0.0.1:9"], /--push needs --token/],
    [["--push", "ftp://x", "--token", "t"], /must be an http\(s\) URL/],
    [["--repo", "x"], /--repo and --commit go with --push/],
    [
      ["--push", "http://127.0.0.1:9", "--token", "t", "--commit", "xyz"],
      /--commit "xyz" must be 7–64 hexadecimal/,
    ],
    [["--root", "/nonexistent/folder"], /does not exist/],
  ])("%j", async (args, message) => {
    const r = await trace(fx, args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });

  it("a malformed .reqlix/trace.yaml names its line and column", async () => {
    await fx.write(".reqlix/trace.yaml", "tests:\n  - ok\n  - [nested]\n");
    const r = await trace(fx, []);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(".reqlix/trace.yaml: tests[1] at line 3, column 5 must be a non-empty string");
  });

  it("--help prints the options and exits 0", async () => {
    const r = await trace(fx, ["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--fail-on <list>");
  });
});

describe("reqlix-mcp trace's git run started before the scanner loads (git-probe.ts)", () => {
  /** The JSON report of a run from `cwd`, without its time. */
  const report = (cwd: string, args: string[], cacheDir = fx.cacheDir): Promise<string> =>
    new Promise((resolve, reject) => {
      execFile(
        "/usr/bin/node",
        [BUNDLE, "trace", "--format", "json", ...args],
        { cwd, env: { ...fx.env, REQLIX_CACHE_DIR: cacheDir }, maxBuffer: 1 << 26 },
        (error, stdout) => (error ? reject(error) : resolve(stdout.replace(/"scanned_at": "[^"]*"/, ""))),
      );
    });

  it("a rerun from its cache reports edits made between runs, the folder given as cwd, --root or --root=", async () => {
    await ageWorkingCopy(fx.root);
    fx.git("update-index", "-q", "--refresh"); // tracked files clean: only git's report finds the edits
    const parent = join(fx.root, "..");
    const name = basename(fx.root);
    const forms: [string, string[]][] = [
      [fx.root, []],
      [parent, ["--root", name]],
      [parent, [`--root=${fx.root}`]],
    ];
    for (const [cwd, args] of forms) await report(cwd, args); // the cache of each form's first run
    let round = 0;
    for (const [cwd, args] of forms) {
      round++;
      await fx.write("src/auth.ts", `// REQ-${600 + round} replaces every citation\n`);
      await fx.write("src/extra.ts", `// AC-${700 + round} edited\n`);
      const cold = await report(fx.root, [], await mkdtemp(join(tmpdir(), "reqlix-trace-cold-")));
      expect(cold).toContain(`REQ-${600 + round}`);
      expect(await report(cwd, args)).toBe(cold);
    }
  });

  it("a folder that is no work tree, or no folder, is reported as without it", async () => {
    const plain = await makeFixture({ git: false });
    try {
      const r = await trace(plain, ["--format", "json"]);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).scan.git).toBe(false);
    } finally {
      await plain.cleanup();
    }
    const file = await trace(fx, ["--root", join(fx.root, "src/auth.ts")]);
    expect(file.code).toBe(2);
    expect(file.stderr).toMatch(/is not a directory/);
  });
});

describe("reqlix-mcp trace into a reader that stops early (`| head`)", () => {
  it("exits with the gates' code, quietly, when its output pipe is closed", async () => {
    const child = spawn("/usr/bin/node", [BUNDLE, "trace", "--fail-on", "orphan"], {
      cwd: fx.root,
      env: fx.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy(); // the reader is gone before the report is written: EPIPE
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(1); // the fixture cites ids that do not exist: the orphan gate fails, as without a pipe
  });
});

describe("reqlix-mcp trace formats", () => {
  it("json, markdown and junit carry the same rows", async () => {
    const json = JSON.parse((await trace(fx, ["--format", "json"])).stdout);
    const ids = json.rows.map((r: { id: string }) => r.id);
    expect(ids).toContain("REQ-012");
    expect(json.orphans.map((c: { id: string }) => c.id)).toEqual(["G.ZZ.4"]);
    expect(json.suspects).toMatchObject([
      { id: "G.GI.2", revision: 2, current_revision: 3, file: "src/auth.ts", line: 5 },
    ]);
    expect(json.scan.skipped).toEqual({ binary: 1, too_large: 0, unreadable: 0 });
    const md = (await trace(fx, ["--format", "markdown"])).stdout;
    for (const id of ids) expect(md).toContain(`| ${id} |`);
    const junit = await trace(fx, ["--format", "junit", "--fail-on", "uncovered"]);
    expect(junit.code).toBe(1);
    expect(junit.stdout).toMatch(/^<\?xml/);
    expect(junit.stdout).toContain(`tests="${ids.length + 2}" failures="1"`);
    expect(junit.stdout).toContain(
      '<testcase classname="requirements" name="G.GI.3: Never cited"><failure message="uncovered">',
    );
  });
});

describe("reqlix-mcp trace against the hosted contract (a real local HTTP server)", () => {
  let server: ContractServer;
  const viewer = "rqx_viewer_token_for_tests_0123456789";
  beforeAll(async () => {
    server = await startContractServer(
      {
        "REQ-012": { kind: "requirement", title: "Lock out after 5 failures", status: "Active", revision: 2 },
        "REQ-007": { kind: "requirement", title: "Check", status: "Active", revision: 2 },
        "REQ-020": { kind: "requirement", title: "Serve", status: "Draft", revision: 1 },
        "REQ-030": { kind: "requirement", title: "Serve Go", status: "Obsolete", revision: 1 },
        "EP-001": { kind: "epic", title: "Epic", status: "In Progress", revision: 1 },
        "US-003": { kind: "user_story", title: "Story", status: "Draft", revision: 1 },
        "AC-004": { kind: "acceptance_criterion", title: "AC", status: "Draft", revision: 1 },
      },
      { viewerToken: viewer },
    );
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    expect(server.problems).toEqual([]);
  });

  it("resolves hosted ids: REQ-999 is an orphan, statuses feed --status Active", async () => {
    const r = await trace(fx, [
      "--url",
      server.url,
      "--token",
      server.token,
      "--status",
      "Active",
      "--fail-on",
      "orphan",
      "--format",
      "json",
    ]);
    expect(r.code).toBe(1);
    const m = JSON.parse(r.stdout);
    expect(m.orphans.map((c: { id: string }) => c.id).sort()).toEqual(["G.ZZ.4", "REQ-999"]);
    expect(m.rows.map((r: { id: string }) => r.id)).toEqual([
      "G.GI.1",
      "G.GI.2",
      "G.GI.3",
      "REQ-007",
      "REQ-012",
    ]);
    expect(m.rows.find((r: { id: string }) => r.id === "REQ-012")).toMatchObject({
      title: "Lock out after 5 failures",
      coverage: "covered",
      exists: true,
      revision: 2,
    });
    expect(server.resolveCalls.at(-1)?.sort()).toEqual([
      "AC-004",
      "EP-001",
      "REQ-007",
      "REQ-012",
      "REQ-020",
      "REQ-030",
      "REQ-999",
      "US-003",
    ]);
    // The token travels in the header only.
    expect(r.stdout + r.stderr).not.toContain(server.token);
  });

  it("REQ-7@2 is not suspect at revision 2; the env variables work as --url/--token", async () => {
    const r = await trace(fx, ["--format", "json", "--fail-on", "suspect"], {
      REQLIX_URL: server.url,
      REQLIX_TOKEN: server.token,
    });
    const m = JSON.parse(r.stdout);
    expect(m.suspects.map((c: { id: string }) => c.id)).toEqual(["G.GI.2"]);
    expect(r.code).toBe(1);
  });

  it("--push sends a snapshot the contract accepts: hosted ids only, commits citing them", async () => {
    const before = server.pushes.length;
    const r = await trace(fx, [
      "--push",
      server.url,
      "--token",
      server.token,
      "--repo",
      "acme/app",
      "--format",
      "json",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(server.pushes).toHaveLength(before + 1);
    const body = server.pushes.at(-1) as {
      repository: string;
      commit: string;
      branch: string | null;
      citations: {
        id: string;
        file: string;
        line: number;
        column: number;
        kind: string;
        test_name: string | null;
        revision: number | null;
      }[];
      commits: { sha: string; ids: string[]; subject: string }[];
    };
    expect(pushProblem(body)).toBeUndefined();
    expect(body.repository).toBe("acme/app");
    expect(body.commit).toBe(fx.git("rev-parse", "HEAD").trim());
    expect(body.branch).toBe("main");
    expect(body.citations.every((c) => /^(EP|US|REQ|AC)-\d+$/.test(c.id))).toBe(true);
    expect(body.citations).toContainEqual(
      expect.objectContaining({
        id: "REQ-012",
        file: "src/auth.test.ts",
        line: 2,
        column: 5,
        kind: "test",
        test_name: "REQ-012 rejects a wrong password",
        revision: null,
      }),
    );
    expect(body.citations).toContainEqual(expect.objectContaining({ id: "REQ-007", revision: 2 }));
    expect(body.commits).toEqual([
      {
        sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        ids: ["REQ-012", "AC-004"],
        subject: "Handle REQ-012 lockout (AC-004)",
      },
    ]);
    const out = JSON.parse(r.stdout);
    expect(out.push).toMatchObject({
      snapshot_id: before + 1,
      created: true,
      citations: body.citations.length,
      orphans: ["REQ-999"],
    });
  });

  it("a refused token exits 2 with the server's reason (401, 403), a rejected snapshot names its field (400)", async () => {
    const bad = await trace(fx, ["--push", server.url, "--token", "rqx_wrong"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/refused the token \(401: Invalid or missing token\)/);
    expect(bad.stderr).not.toContain("rqx_wrong");
    const forbidden = await trace(fx, ["--push", server.url, "--token", viewer]);
    expect(forbidden.code).toBe(2);
    expect(forbidden.stderr).toMatch(/role does not allow this \(403: Viewers cannot push traces\)/);
    server.nextPush = {
      status: 400,
      body: {
        error: {
          code: "invalid_input",
          message: "Invalid trace snapshot: citations.3.line: must be a whole number ≥ 1 (1-based line)",
          errors: [{ field: "citations.3.line", message: "must be a whole number ≥ 1 (1-based line)" }],
          field: "citations.3.line",
        },
      },
    };
    const rejected = await trace(fx, ["--push", server.url, "--token", server.token]);
    expect(rejected.code).toBe(2);
    expect(rejected.stderr).toContain(
      "citations.3.line: must be a whole number ≥ 1 (1-based line) (field citations.3.line)",
    );
  });

  it("an unreachable server exits 3", async () => {
    const r = await trace(fx, ["--url", "http://127.0.0.1:1", "--token", "t"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Cannot reach the reqlix server at http:\/\/127\.0\.0\.1:1/);
  });
});
