/**
 * A real git repository in a temp folder with citations in TypeScript, Python, Go and markdown, test titles,
 * pinned revisions, commits citing ids, an ignored file, a binary file and an oversized one.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, realpath, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface Fixture {
  root: string;
  cacheDir: string;
  env: Record<string, string>;
  write(path: string, content: string | Buffer): Promise<void>;
  git(...args: string[]): string;
  commit(message: string): void;
  cleanup(): Promise<void>;
}

export const GENERAL_MD = `# Instructions chapter

## G.GI.1: Read first

Call the instructions tool first.

## G.GI.2: Changed twice

Text of the third revision.

<!-- rev: 3 -->

## G.GI.3: Never cited

Nobody cites this one.
`;

export async function makeFixture(options: { git?: boolean } = {}): Promise<Fixture> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "reqlix-trace-")));
  const cacheDir = await mkdtemp(join(tmpdir(), "reqlix-trace-cache-"));
  const env = { REQLIX_CACHE_DIR: cacheDir, PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  const write = async (path: string, content: string | Buffer) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  };
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", root, ...args], {
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
      },
    });
  const commit = (message: string) => {
    git("add", "-A");
    git("commit", "-q", "--allow-empty", "-m", message);
  };
  await write("docs/development/requirements/AGENTS.md", "# Instructions\n");
  await write("docs/development/requirements/general.md", GENERAL_MD);
  await write(
    "src/auth.ts",
    [
      "// Implements REQ-012 and G.GI.1 (reqlix).",
      "export function login() {",
      "  return check(); // REQ-7@2 pinned",
      "}",
      "// G.GI.2@2 was read at revision 2",
      "// REQ-999 does not exist on the server",
      "// G.ZZ.4 uses the general prefix but no such requirement",
      "// XREQ-12, REQ-12a and v1.2.3 are not citations",
      "const résumé = 'é'; // US-003",
    ].join("\n"),
  );
  await write(
    "src/auth.test.ts",
    [
      'import { it } from "vitest";',
      'it("REQ-012 rejects a wrong password", () => {});',
      'describe.each([1])("G.GI.1 instructions %s", () => {}); // and AC-004 in a comment',
    ].join("\n"),
  );
  await write("app/service.py", "def serve():\n    # implements REQ-020\n    return 1\n");
  await write("tests/test_service.py", 'def test_serve():\n    """REQ-020 serves."""\n');
  await write("pkg/server.go", "package pkg\n\n// EP-001 and REQ-030\nfunc Serve() {}\n");
  await write(
    "pkg/server_test.go",
    'package pkg\n\nfunc TestServe(t *testing.T) {\n\tt.Run("REQ-030 serves", func(t *testing.T) {})\n}\n',
  );
  await write("README.md", "# App\n\nSee REQ-012 and G.GI.1.\n");
  await write(".gitignore", "build/\n*.log\n");
  await write("build/out.js", "// REQ-012 in a build artefact\n");
  await write("debug.log", "REQ-012 in a log\n");
  await write("assets/logo.bin", Buffer.concat([Buffer.from("REQ-012"), Buffer.from([0, 1, 2, 3])]));
  if (options.git !== false) {
    git("init", "-q", "-b", "main");
    git("config", "user.email", "t@example.com");
    git("config", "user.name", "t");
    commit("Initial import");
    await write("src/extra.ts", "// AC-004 handled here\n");
    commit("Handle REQ-012 lockout (AC-004)\n\nAlso touches G.GI.1.");
  }
  return {
    root,
    cacheDir,
    env,
    write,
    git,
    commit,
    cleanup: async () => {
      await rm(root, { recursive: true, force: true });
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}

/** Waits past the clock granularity within which a scan does not trust a file's mtime (racy.ts). */
export function pastGranularity(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 60));
}

/**
 * Dates every file and folder of the working copy `seconds` back (git's index is left as it is), then
 * waits past the clock's granularity: their ctime (which moves with utimes) must not be racy either. A
 * scan then trusts what it reads, so only change detection can find a later change.
 */
export async function ageWorkingCopy(root: string, seconds = 3): Promise<void> {
  const t = new Date(Date.now() - seconds * 1000);
  const visit = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name === ".git") continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) await visit(path);
      await utimes(path, t, t);
    }
  };
  await visit(root);
  await utimes(root, t, t);
  await pastGranularity();
}
