/**
 * A rescan gives exactly a cold scan's result (property): random edits, same-size rewrites, new untracked
 * files, `git add`, deletions, `git rm`, renames by hand and with `git mv`, touches and commits, applied to a
 * real git repository one step at a time; after each step a new-process rescan (cache from disk), the
 * companion's rescan (cache in memory) and a cold scan (no cache) must agree on every citation in order, the
 * counts, the citing commits and the coverage the CLI prints (rows, orphans and suspects, in order).
 * Steps follow scans immediately, so files change within the clock's granularity of a read (racy ones).
 */
import { readdir, rename, rm, utimes } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { buildIndex, HostedResolver } from "../../../src/local/trace/index-model.js";
import { newScanState, type ScanResult, type ScanState, scanProject } from "../../../src/local/trace/scan.js";
import { type Fixture, makeFixture } from "./fixture.js";

// Fixed runs in `npm test`; `npm run test:fuzz` runs many more from a new seed (printed when one fails).
const LONG = process.env.REQLIX_FUZZ === "long";
const RUNS = Number(process.env.REQLIX_FUZZ_RUNS ?? (LONG ? 150 : 6));
const SEED = Number(process.env.REQLIX_FUZZ_SEED ?? (LONG ? Date.now() % 2_147_483_647 : 20_261_125));

const LINES = [
  "export const x = 1;",
  "// implements REQ-012",
  "// REQ-7@2 pinned, and US-003",
  "// G.GI.1 and G.GI.2@1 (an older revision: suspect)",
  "// G.ZZ.4 and G.GI.9 do not exist (orphans)",
  'it("REQ-030 serves", () => {});',
  "See AC-004 and EP-001.",
  "nothing here",
];
const PATHS = [
  "src/a.ts",
  "src/b.test.ts",
  "src/deep/er/c.ts",
  "docs/note.md",
  "app/x.py",
  "tests/test_y.py",
  "pkg/z_test.go",
  "fresh/dir/new.ts",
  "build/ignored.js",
  "debug2.log",
];

type Step =
  | { op: "write"; path: number; lines: number[] }
  | { op: "same-size"; pick: number }
  | { op: "delete"; pick: number }
  | { op: "rename"; pick: number; to: number; git: boolean }
  | { op: "git-add"; pick: number }
  | { op: "git-rm"; pick: number }
  | { op: "touch"; pick: number }
  | { op: "commit"; line: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant("write" as const),
      path: fc.nat(PATHS.length - 1),
      lines: fc.array(fc.nat(LINES.length - 1), { maxLength: 6 }),
    }),
    weight: 4,
  },
  fc.record({ op: fc.constant("same-size" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({
    op: fc.constant("rename" as const),
    pick: fc.nat(),
    to: fc.nat(PATHS.length - 1),
    git: fc.boolean(),
  }),
  fc.record({ op: fc.constant("git-add" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("git-rm" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("touch" as const), pick: fc.nat() }),
  fc.record({ op: fc.constant("commit" as const), line: fc.nat(LINES.length - 1) }),
);

/** Every file of the working copy (not .git), relative. */
async function workingFiles(root: string, dir = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(root, dir), { withFileTypes: true })) {
    if (e.name === ".git") continue;
    const rel = dir === "" ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...(await workingFiles(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

const at = <T>(list: T[], n: number): T | undefined =>
  list.length === 0 ? undefined : list[n % list.length];

async function apply(fx: Fixture, s: Step): Promise<void> {
  const files = (await workingFiles(fx.root)).filter((p) => !p.startsWith("docs/development/"));
  const tracked = fx.git("ls-files", "-z").split("\0").filter(Boolean);
  switch (s.op) {
    case "write":
      await fx.write(PATHS[s.path] as string, `${s.lines.map((l) => LINES[l]).join("\n")}\n`);
      return;
    case "same-size": {
      // Same length, another citation: only the mtime (and ctime) can tell.
      const path = at(files, s.pick);
      if (path) await fx.write(path, `// REQ-${String(100 + (s.pick % 900))}\n`);
      return;
    }
    case "delete": {
      const path = at(files, s.pick);
      if (path) await rm(join(fx.root, path));
      return;
    }
    case "rename": {
      const from = at(s.git ? tracked : files, s.pick);
      const to = PATHS[s.to] as string;
      if (!from || from === to || files.includes(to)) return;
      if (s.git) fx.git("mv", "-k", from, to);
      else {
        await fx.write(to, ""); // makes the folder
        await rename(join(fx.root, from), join(fx.root, to));
      }
      return;
    }
    case "git-add": {
      const path = at(files, s.pick);
      if (path) fx.git("add", "-f", "--", path);
      return;
    }
    case "git-rm": {
      const path = at(tracked, s.pick);
      if (path) fx.git("rm", "-q", "--cached", "--", path);
      return;
    }
    case "touch": {
      const path = at(files, s.pick);
      const now = new Date();
      if (path) await utimes(join(fx.root, path), now, now);
      return;
    }
    case "commit":
      fx.git("add", "-A");
      fx.git("commit", "-q", "--allow-empty", "-m", `step ${LINES[s.line]}`);
      return;
  }
}

/**
 * Everything a scan answers that a user sees: coverage (computed first, as the CLI does: from the stored
 * citations' facts), citations in order, counts, commits. Compared as values and as JSON (key order too:
 * the CLI prints JSON).
 */
async function answer(scan: ScanResult) {
  const index = await buildIndex(scan, new HostedResolver(undefined));
  const { rows, orphans, suspects, summary } = index.coverage;
  const value = {
    rows,
    orphans,
    suspects,
    summary,
    byFile: [...scan.byFile],
    files: scan.files,
    skipped: scan.skipped,
    head: scan.head,
    commits: scan.commits,
  };
  return { value, json: JSON.stringify(value) };
}

describe("rescan equals a cold scan (property, real git repository)", () => {
  const fixtures: Fixture[] = [];
  afterAll(async () => {
    for (const fx of fixtures) await fx.cleanup();
  });

  it(
    "after every step of random edits, adds, deletes, renames and commits, from disk and in memory",
    async () => {
      let cold = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 10 }), async (steps) => {
          const fx = await makeFixture();
          fixtures.push(fx);
          const state: ScanState = newScanState();
          await scanProject(fx.root, { env: fx.env, persist: true });
          await scanProject(fx.root, { env: fx.env, state });
          for (const s of steps) {
            await apply(fx, s);
            const disk = await answer(await scanProject(fx.root, { env: fx.env, persist: true }));
            const memory = await answer(await scanProject(fx.root, { env: fx.env, state }));
            const reference = await answer(
              await scanProject(fx.root, {
                env: { ...fx.env, REQLIX_CACHE_DIR: join(fx.cacheDir, `cold-${cold++}`) },
              }),
            );
            expect(disk.value, `from disk after ${JSON.stringify(s)}`).toEqual(reference.value);
            expect(memory.value, `in memory after ${JSON.stringify(s)}`).toEqual(reference.value);
            expect(disk.json).toBe(reference.json);
            expect(memory.json).toBe(reference.json);
          }
          await fx.cleanup();
        }),
        {
          numRuns: RUNS,
          seed: SEED,
          examples: [
            // Found by CI: git rm --cached made a tracked file untracked and the commit tracked again; the
            // cache was saved as a delta, which kept the stored order, so the next rescan listed it last.
            [
              [
                { op: "git-rm", pick: 6 },
                { op: "git-add", pick: 0 },
                { op: "write", path: 0, lines: [] },
                { op: "commit", line: 0 },
                { op: "write", path: 0, lines: [] },
              ],
            ],
          ],
        },
      );
    },
    240_000 * (LONG ? 40 : 1),
  );
});
