import { chmod, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeLeftoverTemps, type Splice, spliceFile } from "../../../src/local/reqlix/atomic-write.js";
import { tempDir } from "../../helpers/companion.js";

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir("reqlix-write-");
});
afterEach(async () => {
  await dir.cleanup();
});

function apply(original: string, splices: Splice[]): string {
  let out = "";
  let pos = 0;
  for (const s of [...splices].sort((a, b) => a.start - b.start)) {
    out += original.slice(pos, s.start) + s.insert;
    pos = s.end;
  }
  return out + original.slice(pos);
}

describe("spliceFile", () => {
  it("creates a file that does not exist yet", async () => {
    const path = join(dir.path, "new.md");
    await spliceFile(path, [{ start: 0, end: 0, insert: "# A\n" }]);
    expect(await readFile(path, "utf8")).toBe("# A\n");
  });

  it("applies splices near the start (streamed) and near the end (kernel-copied head), growing and shrinking", async () => {
    const path = join(dir.path, "c.md");
    const original = "0123456789".repeat(1000);
    for (const splices of [
      [{ start: 10, end: 10, insert: "HEAD" }],
      [{ start: 9000, end: 9000, insert: "TAIL" }],
      [{ start: 9000, end: 9990, insert: "" }],
      [{ start: 5000, end: 10000, insert: "x" }],
      [{ start: 10000, end: 10000, insert: "end" }],
    ]) {
      await writeFile(path, original);
      await spliceFile(path, splices);
      expect(await readFile(path, "utf8")).toBe(apply(original, splices));
    }
  });

  it("matches a string model for random splices (ASCII)", async () => {
    const path = join(dir.path, "p.md");
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 20 }), fc.string({ maxLength: 10 })), { maxLength: 3 }),
        async (original, raw) => {
          // Non-overlapping splices over the original.
          const points = raw.map(([at, len, insert]) => {
            const start = original.length === 0 ? 0 : at % (original.length + 1);
            return { start, end: Math.min(original.length, start + len), insert };
          });
          points.sort((a, b) => a.start - b.start);
          const splices: Splice[] = [];
          let last = 0;
          for (const p of points)
            if (p.start >= last) {
              splices.push(p);
              last = p.end;
            }
          await writeFile(path, original);
          await spliceFile(path, splices);
          expect(await readFile(path, "utf8")).toBe(apply(original, splices));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps the file's mode and leaves no temp file", async () => {
    const path = join(dir.path, "m.md");
    await writeFile(path, "a".repeat(100));
    await chmod(path, 0o600);
    await spliceFile(path, [{ start: 90, end: 90, insert: "b" }]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await spliceFile(path, [{ start: 1, end: 1, insert: "c" }]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir.path)).toEqual(["m.md"]);
  });

  it("removes temp files left by a killed writer of the same category only", async () => {
    await writeFile(join(dir.path, ".general.md.123.abc.tmp"), "x");
    await writeFile(join(dir.path, ".testing.md.123.abc.tmp"), "y");
    await removeLeftoverTemps(join(dir.path, "general.md"));
    expect(await readdir(dir.path)).toEqual([".testing.md.123.abc.tmp"]);
  });
});
