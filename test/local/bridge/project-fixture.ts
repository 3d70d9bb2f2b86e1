/**
 * A realistic reqlix project in a temp folder: `general.md` is the reqlix file-tools spec itself (13
 * chapters, fenced code with `#` lines, links), `testing.md` a small category with CRLF line endings, no
 * trailing newline and a revision line, plus the AGENTS.md the tools create.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { tempDir } from "../../helpers/companion.js";

export const SPEC = resolve(import.meta.dirname, "../reqlix/fixtures/reqlix-file-tools.md");
export const REQ_DIR = "docs/development/requirements";

export const TESTING_MD = [
  "# Unit Tests",
  "",
  "## T.U.1: Real parts",
  "",
  "Tests use a real database and real files; nothing of our own code is mocked.",
  "",
  "## T.U.2: Failing first",
  "",
  "A bug fix starts with a test that fails without the fix.",
  "",
  "<!-- rev: 3 -->",
  "",
  "# End To End",
  "",
  "## T.E.1: Real processes",
  "",
  "```sh",
  "# not a chapter: a comment in a code block",
  "node dist/reqlix-mcp.js",
  "```",
].join("\r\n");

export interface ProjectFixture {
  root: string;
  dir: string;
  /** Every file under the requirements folder, name → bytes. */
  snapshot(): Promise<Map<string, Buffer>>;
  cleanup(): Promise<void>;
}

export async function makeProject(): Promise<ProjectFixture> {
  const tmp = await tempDir("reqlix-bridge-");
  const dir = join(tmp.path, REQ_DIR);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "AGENTS.md"), "# Instructions\n\nUse the reqlix tools.\n");
  await writeFile(join(dir, "general.md"), await readFile(SPEC));
  await writeFile(join(dir, "testing.md"), TESTING_MD);
  return {
    root: tmp.path,
    dir,
    async snapshot() {
      const out = new Map<string, Buffer>();
      for (const name of ["AGENTS.md", "general.md", "testing.md"]) {
        out.set(name, await readFile(join(dir, name)).catch(() => Buffer.alloc(0)));
      }
      return out;
    },
    cleanup: tmp.cleanup,
  };
}
