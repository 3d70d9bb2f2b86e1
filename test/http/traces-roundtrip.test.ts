/**
 * The whole traceability loop with real parts only: the real Node server (`node --import tsx src/node.ts`
 * on a temp database), hosted ids created through `/api/v1/mcp`, a real git repository citing them, and the
 * built `reqlix-mcp trace` bundle on the system's Node 20 resolving ids against the server, gating on the
 * server's answers and pushing the snapshot, which the hosted trace tools then report.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateToken } from "../../src/core/tokens.js";
import { BUNDLE } from "../helpers/companion.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field in assertions.
type Json = Record<string, any>;

const ROOT = join(import.meta.dirname, "..", "..");
const dirs: string[] = [];
let server: ChildProcess | undefined;
let url = "";
const owner = generateToken();
let viewer = "";
let repo = "";
let cacheDir = "";
let head = "";
const ids = { epic: "", story: "", covered: "", implOnly: "", testOnly: "", docOnly: "", draft: "" };

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

async function startServer(): Promise<void> {
  const data = temp("reqlix-roundtrip-db-");
  const proc = spawn(process.execPath, ["--import", "tsx", "src/node.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      REQLIX_LOG_LEVEL: "info",
      REQLIX_DB_URL: `file:${join(data, "reqlix.db")}`,
      REQLIX_BOOTSTRAP_TOKEN: owner,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server = proc;
  let out = "";
  let err = "";
  proc.stdout?.on("data", (b: Buffer) => {
    out += b.toString();
  });
  proc.stderr?.on("data", (b: Buffer) => {
    err += b.toString();
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
    if (m) {
      url = m[1] as string;
      return;
    }
    if (proc.exitCode !== null || Date.now() > deadline)
      throw new Error(`server did not start (exit ${proc.exitCode}):\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function call(name: string, args: Record<string, unknown>, token = owner) {
  const res = await fetch(`${url}/api/v1/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = (await res.json()) as {
    result?: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { text: string }[] };
    error?: unknown;
  };
  if (!body.result || body.result.isError) throw new Error(`${name}: ${JSON.stringify(body)}`);
  return body.result.structuredContent as Json;
}

async function admin(path: string, body: unknown) {
  const res = await fetch(`${url}/api/v1/admin${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Json;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function trace(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "/usr/bin/node", // the bundle must run on the system's Node 20
      [BUNDLE, "trace", ...args],
      {
        cwd: repo,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          REQLIX_CACHE_DIR: cacheDir,
          ...env,
        },
        maxBuffer: 1 << 26,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

function write(path: string, text: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}

beforeAll(async () => {
  await startServer();
  const reference = (o: Json) => o.reference_id as string;
  ids.epic = reference(await call("create_epic", { title: "Round trip", description: "The loop" }));
  ids.story = reference(
    await call("create_user_story", { epic_id: ids.epic, title: "Trace", description: "Push and read" }),
  );
  const requirement = async (title: string, status: string) =>
    reference(
      await call("create_requirement", {
        user_story_id: ids.story,
        title,
        description: `${title} text`,
        type: "Functional",
        priority: 2,
        status,
      }),
    );
  ids.covered = await requirement("Covered", "Active");
  ids.implOnly = await requirement("Implemented only", "Active");
  ids.testOnly = await requirement("Tested only", "Active");
  ids.docOnly = await requirement("Documented only", "Active");
  ids.draft = await requirement("Draft implemented", "Draft");
  // `covered` moves to revision 2: a citation pinned to revision 1 is suspect.
  await call("update_requirement", { requirement_id: ids.covered, title: "Covered v2" });
  await admin("/members", { username: "vera", role: "viewer" });
  viewer = (await admin("/tokens", { username: "vera", name: "ci" })).token as string;

  repo = temp("reqlix-roundtrip-repo-");
  cacheDir = temp("reqlix-roundtrip-cache-");
  const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "ci@example.com");
  git("config", "user.name", "ci");
  write(
    "src/feature.ts",
    [
      `// ${ids.covered}: the main rule`,
      `export const a = 1; // ${ids.implOnly}`,
      `// ${ids.draft} is a draft`,
      // A pin of revision 0 is no revision: cited, unpinned (the server accepts revisions ≥ 1 only).
      `// see ${ids.implOnly}@0`,
      "",
    ].join("\n"),
  );
  write("src/typo.ts", "// REQ-999 does not exist\n");
  write(
    "test/feature.test.ts",
    [
      `it("${ids.covered} holds", () => {});`,
      `it("${ids.testOnly} is checked", () => {});`,
      // A test title longer than the server's 500 characters.
      `it("${ids.testOnly} ${"long ".repeat(150)}", () => {});`,
      "",
    ].join("\n"),
  );
  write("docs/notes.md", `See ${ids.docOnly} and ${ids.covered}@1.\n`);
  git("add", "-A");
  git("commit", "-q", "-m", `feat: the loop (${ids.implOnly})`);
  head = git("rev-parse", "HEAD").trim();
}, 120_000);

afterAll(() => {
  server?.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("reqlix-mcp trace against the real server", () => {
  it("gates exit 1 on the server's existence, status and revision; usage errors exit 2", async () => {
    const base = ["--url", url, "--token", owner, "--format", "json"];
    const all = await trace(base);
    expect(all.stderr).toBe("");
    expect(all.code).toBe(0);
    const m = JSON.parse(all.stdout);
    expect(m.hosted_error).toBeNull();
    const row = (id: string) => m.rows.find((r: { id: string }) => r.id === id);
    expect(row(ids.covered)).toMatchObject({
      exists: true,
      status: "Active",
      revision: 2,
      title: "Covered v2",
      coverage: "covered",
      suspect: 1,
    });
    expect(row(ids.implOnly)).toMatchObject({ exists: true, coverage: "impl_only", impl: 2 });
    expect(row(ids.testOnly)).toMatchObject({ exists: true, coverage: "test_only", test: 2 });
    expect(row(ids.docOnly)).toMatchObject({ exists: true, coverage: "uncovered", doc: 1 });
    expect(row(ids.draft)).toMatchObject({ status: "Draft", coverage: "impl_only" });
    expect(m.orphans.map((c: { id: string }) => c.id)).toEqual(["REQ-999"]);
    expect(m.suspects).toMatchObject([{ id: ids.covered, revision: 1, current_revision: 2 }]);

    for (const gate of ["uncovered", "impl_only", "test_only", "orphan", "suspect"]) {
      const r = await trace([...base, "--fail-on", gate]);
      expect([gate, r.code]).toEqual([gate, 1]);
      expect(JSON.parse(r.stdout).gates).toEqual({ checked: [gate], failed: [gate] });
    }
    // Only the Draft requirement is impl_only among Drafts; no Draft is tested only.
    const drafts = await trace([...base, "--status", "Draft", "--fail-on", "test_only,uncovered"]);
    expect(drafts.code).toBe(0);
    expect((await trace([...base, "--status", "Draft", "--fail-on", "impl_only"])).code).toBe(1);

    const unknown = await trace([...base, "--fail-on", "sometimes"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--fail-on: unknown gate\(s\) sometimes/);
    const noToken = await trace(["--push", url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/--push needs --token/);
  });

  it("a bad token exits 2 with the server's message; a viewer's push is refused with 403 and stores nothing", async () => {
    const bad = await trace(["--push", url, "--token", "rqx_not_a_real_token_0000000000000000"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/refused the token \(401: [^)]+\)/);
    expect(bad.stderr).not.toContain("rqx_not_a_real_token");
    const forbidden = await trace(["--push", url, "--token", viewer, "--repo", "acme/app"]);
    expect(forbidden.code).toBe(2);
    expect(forbidden.stderr).toMatch(
      /Pushing the trace snapshot: the token's role does not allow this \(403: Forbidden: pushing traces needs the editor role/,
    );
    expect(forbidden.stderr).not.toContain(viewer);
    expect((await call("trace_summary", {})).latest_push).toBeNull();
  });

  it("a push is stored and the hosted tools report it; the same commit pushed again is idempotent", async () => {
    const args = ["--push", url, "--token", owner, "--repo", "acme/app", "--format", "json"];
    const first = await trace([...args, "--fail-on", "uncovered"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(1); // the gate still decides the exit code after a successful push
    const pushed = JSON.parse(first.stdout).push;
    expect(pushed).toEqual({
      snapshot_id: expect.any(Number),
      repository: "acme/app",
      commit: head,
      created: true,
      replaced: false,
      citations: 10,
      orphans: ["REQ-999"],
    });

    // One repository, its citations in file order, its commits.
    const traces = await call("get_requirement_traces", { requirement_id: ids.covered });
    expect(traces).toMatchObject({
      revision: 2,
      coverage: "covered",
      counts: { impl: 1, test: 1, doc: 1, suspect: 1 },
    });
    expect(traces.repositories).toHaveLength(1);
    const web = traces.repositories[0];
    expect(web).toMatchObject({ repository: "acme/app", commit: head });
    const where = web.citations.map((c: Record<string, unknown>) => [
      c.file,
      c.line,
      c.kind,
      c.revision,
      c.suspect,
    ]);
    expect(where).toEqual(
      expect.arrayContaining([
        ["src/feature.ts", 1, "impl", null, false],
        ["test/feature.test.ts", 1, "test", null, false],
        ["docs/notes.md", 1, "doc", 1, true],
      ]),
    );
    expect(where).toHaveLength(3);
    const tested = await call("get_requirement_traces", { requirement_id: ids.testOnly });
    const names = tested.repositories[0].citations.map((c: { test_name: string }) => c.test_name);
    expect(names).toContain(`${ids.testOnly} is checked`);
    expect(names).toHaveLength(2);
    const long = names.find((n: string) => n !== `${ids.testOnly} is checked`) as string;
    expect([long.length, long.endsWith("…")]).toEqual([500, true]);
    const implOnly = (await call("get_requirement_traces", { requirement_id: ids.implOnly })).repositories[0];
    expect(implOnly.citations.map((c: { line: number; revision: unknown }) => [c.line, c.revision])).toEqual([
      [2, null],
      [4, null],
    ]);
    expect(implOnly.commits).toEqual([{ sha: head, subject: `feat: the loop (${ids.implOnly})` }]);

    const untestedIds = (await call("list_untraced_requirements", { missing: "test" })).items.map(
      (i: { reference_id: string }) => i.reference_id,
    );
    expect(untestedIds).toEqual([ids.implOnly, ids.docOnly, ids.draft]);
    const unimplemented = (await call("list_untraced_requirements", { missing: "impl" })).items.map(
      (i: { reference_id: string }) => i.reference_id,
    );
    expect(unimplemented).toEqual([ids.testOnly, ids.docOnly]);

    const summary = await call("trace_summary", {});
    expect(summary.counts).toEqual({ covered: 1, impl_only: 2, test_only: 1, uncovered: 1 });
    expect(summary.latest_push).toMatchObject({ repository: "acme/app", commit: head });
    expect(summary.orphans).toMatchObject({ ids: ["REQ-999"] });
    expect(summary.suspect).toMatchObject({ citations: 1, ids: [ids.covered] });
    expect((await call("get_requirement", { requirement_id: ids.testOnly })).coverage).toBe("test_only");
    expect((await call("get_requirement", { requirement_id: ids.covered })).coverage).toBe("covered");

    // The same commit again: the same snapshot, neither created nor replaced, nothing changes.
    const again = await trace(args);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).push).toEqual({ ...pushed, created: false, replaced: false });
    expect((await call("trace_summary", {})).counts).toEqual(summary.counts);
    expect(await call("get_requirement_traces", { requirement_id: ids.covered })).toEqual(traces);
  });
});
