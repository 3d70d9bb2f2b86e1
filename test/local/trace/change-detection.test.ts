/**
 * Every way a file can change between two scans, in a real git repository: the rescan (cache in memory,
 * and cache from disk) must answer exactly as a cold scan. Each change alters a citation, so a change the
 * detection misses shows as a stale citation. Files are dated a second back before the first scan, so the
 * rescan trusts what it cached (nothing is racy) and only the change detection can find the change; the
 * index is refreshed after, so tracked files are clean and the rescan visits only what git reports.
 */
import { readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CACHE_VERSION, cacheFileFor } from "../../../src/local/trace/cache.js";
import { newScanState, type ScanResult, type ScanState, scanProject } from "../../../src/local/trace/scan.js";
import { ageWorkingCopy, type Fixture, makeFixture } from "./fixture.js";

const view = (r: ScanResult) =>
  Object.fromEntries(
    [...r.byFile].map(([file, cs]) => [file, cs.map((c) => `${c.id}@${c.line}:${c.column}`)]).sort(),
  );

describe("a rescan sees every kind of change (memory and disk cache against a cold scan)", () => {
  let fx: Fixture;
  let state: ScanState;
  let cold = 0;

  /** A cold scan in a fresh cache folder: the reference. */
  const coldScan = () =>
    scanProject(fx.root, { env: { ...fx.env, REQLIX_CACHE_DIR: join(fx.cacheDir, `cold-${cold++}`) } });

  /** Scans with the cache in memory and from disk; both must equal a cold scan. Returns the memory one. */
  const rescan = async (): Promise<ScanResult> => {
    const memory = await scanProject(fx.root, { env: fx.env, state });
    const disk = await scanProject(fx.root, { env: fx.env, persist: true });
    const reference = await coldScan();
    expect(view(memory)).toEqual(view(reference));
    expect(view(disk)).toEqual(view(reference));
    expect([memory.files, memory.skipped]).toEqual([reference.files, reference.skipped]);
    expect([disk.files, disk.skipped]).toEqual([reference.files, reference.skipped]);
    return memory;
  };

  beforeEach(async () => {
    fx = await makeFixture();
    await fx.write("notes/todo.md", "Untracked note citing REQ-500.\n");
    await fx.write("empty-later/.keep-ignored.log", "ignored\n"); // a folder holding only ignored files
    await ageWorkingCopy(fx.root);
    // The index takes the aged stat data: tracked files are clean again, so only git can vouch for them.
    fx.git("update-index", "-q", "--refresh");
    state = newScanState();
    // Both caches primed; the second pair of scans reads nothing: everything is trusted.
    await scanProject(fx.root, { env: fx.env, state });
    await scanProject(fx.root, { env: fx.env, persist: true });
    expect((await scanProject(fx.root, { env: fx.env, state })).read).toBe(0);
    expect((await scanProject(fx.root, { env: fx.env, persist: true })).read).toBe(0);
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  const ids = (r: ScanResult, file: string) => (r.byFile.get(file) ?? []).map((c) => c.id);

  it("a tracked file edited (other size)", async () => {
    await fx.write("src/extra.ts", "// AC-004 and now REQ-601 too\n");
    expect(ids(await rescan(), "src/extra.ts")).toEqual(["AC-004", "REQ-601"]);
  });

  it("a wrong path table in the cache file is only a hint: every path is still found, none twice", async () => {
    const file = cacheFileFor(fx.cacheDir, fx.root);
    const good = deserialize(await readFile(file));
    const entries = deserialize(good.entries);
    const size = entries.table.length;
    const tables = [
      new Int32Array(size), // every path missed: each confirmed by a search
      new Int32Array(size).fill(1), // every slot names the first row
      Int32Array.from({ length: size }, (_, i) => (i * 7919) % 1000), // rows out of range too
    ];
    for (const [i, table] of tables.entries()) {
      // With a matching checksum (the columns are taken as written) and without one.
      const bytes = serialize({ ...entries, table });
      await writeFile(file, serialize({ ...good, entries: bytes, crc: i === 2 ? null : crc32(bytes) }));
      await rm(`${file}.delta`, { force: true });
      await fx.write("src/extra.ts", `// AC-004 and REQ-60${i}\n`);
      const memory = await rescan();
      expect(ids(memory, "src/extra.ts")).toEqual(["AC-004", `REQ-60${i}`]);
      // Not a cold scan: the entries were used.
      const again = await scanProject(fx.root, { env: fx.env, persist: true });
      expect(again.read).toBeLessThan(again.files);
    }
  });

  it("a tracked file edited to the same size with its mtime put back", async () => {
    // git compares stat data in whole seconds: the ctime of this write must fall in a later second than
    // the one the index recorded, or git itself (and so the rescan) takes the file for unchanged.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const path = join(fx.root, "src/extra.ts");
    const before = await readFile(path, "utf8");
    const { mtime } = await stat(path);
    await writeFile(path, before.replace("AC-004", "AC-005"));
    await utimes(path, mtime, mtime);
    expect(ids(await rescan(), "src/extra.ts")).toEqual(["AC-005"]);
  });

  it("an untracked file edited to the same size with its mtime put back", async () => {
    const path = join(fx.root, "notes/todo.md");
    const { mtime } = await stat(path);
    await writeFile(path, "Untracked note citing REQ-501.\n");
    await utimes(path, mtime, mtime);
    expect(ids(await rescan(), "notes/todo.md")).toEqual(["REQ-501"]);
  });

  it("an edit staged with git add, then committed", async () => {
    await fx.write("src/extra.ts", "// REQ-602 staged\n");
    fx.git("add", "src/extra.ts");
    expect(ids(await rescan(), "src/extra.ts")).toEqual(["REQ-602"]);
    fx.git("commit", "-qm", "commit it");
    expect(ids(await rescan(), "src/extra.ts")).toEqual(["REQ-602"]);
  });

  it("a commit made elsewhere checked out (files and index change together)", async () => {
    fx.git("checkout", "-q", "-b", "other");
    await fx.write("src/extra.ts", "// REQ-603 on the other branch\n");
    await fx.write("src/only-there.ts", "// REQ-604\n");
    fx.commit("other branch");
    fx.git("checkout", "-q", "main");
    await ageWorkingCopy(fx.root);
    fx.git("update-index", "-q", "--refresh");
    const onMain = await rescan();
    expect(ids(onMain, "src/extra.ts")).toEqual(["AC-004"]);
    fx.git("checkout", "-q", "other");
    const onOther = await rescan();
    expect(ids(onOther, "src/extra.ts")).toEqual(["REQ-603"]);
    expect(ids(onOther, "src/only-there.ts")).toEqual(["REQ-604"]);
    expect(onOther.head.branch).toBe("other");
  });

  it("a file reverted with git checkout", async () => {
    await fx.write("src/extra.ts", "// REQ-605 for a moment\n");
    expect(ids(await rescan(), "src/extra.ts")).toEqual(["REQ-605"]);
    fx.git("checkout", "--", "src/extra.ts");
    expect(ids(await rescan(), "src/extra.ts")).toEqual(["AC-004"]);
  });

  it("a tracked file renamed with git mv, and one renamed by hand", async () => {
    fx.git("mv", "src/extra.ts", "src/moved.ts");
    const moved = await rescan();
    expect(moved.byFile.has("src/extra.ts")).toBe(false);
    expect(ids(moved, "src/moved.ts")).toEqual(["AC-004"]);
    await rename(join(fx.root, "app/service.py"), join(fx.root, "app/renamed.py"));
    const byHand = await rescan();
    expect(byHand.byFile.has("app/service.py")).toBe(false);
    expect(ids(byHand, "app/renamed.py")).toEqual(["REQ-020"]);
  });

  it("a tracked file deleted (by hand, then with git rm) and an untracked one deleted", async () => {
    await rm(join(fx.root, "src/extra.ts"));
    expect((await rescan()).byFile.has("src/extra.ts")).toBe(false);
    fx.git("rm", "-q", "--cached", "src/extra.ts");
    expect((await rescan()).byFile.has("src/extra.ts")).toBe(false);
    await rm(join(fx.root, "notes/todo.md"));
    expect((await rescan()).byFile.has("notes/todo.md")).toBe(false);
  });

  it("a new file added with git add", async () => {
    await fx.write("src/added.ts", "// REQ-606\n");
    fx.git("add", "src/added.ts");
    expect(ids(await rescan(), "src/added.ts")).toEqual(["REQ-606"]);
  });

  it("new untracked files: in a known folder, a new folder, a folder of ignored files, deep down", async () => {
    await fx.write("notes/second.md", "REQ-607\n");
    expect(ids(await rescan(), "notes/second.md")).toEqual(["REQ-607"]);
    await fx.write("brand/new/dir/file.ts", "// REQ-608\n");
    expect(ids(await rescan(), "brand/new/dir/file.ts")).toEqual(["REQ-608"]);
    await fx.write("empty-later/visible.ts", "// REQ-609\n");
    expect(ids(await rescan(), "empty-later/visible.ts")).toEqual(["REQ-609"]);
    await fx.write("brand/new/dir/deeper/more.ts", "// REQ-610\n");
    expect(ids(await rescan(), "brand/new/dir/deeper/more.ts")).toEqual(["REQ-610"]);
  });

  it("an ignore rule removed or added (.gitignore, info/exclude)", async () => {
    await fx.write(".gitignore", "*.log\n"); // build/ no longer ignored
    expect(ids(await rescan(), "build/out.js")).toEqual(["REQ-012"]);
    await writeFile(join(fx.root, ".git/info/exclude"), "notes/\n");
    expect((await rescan()).byFile.has("notes/todo.md")).toBe(false);
  });

  it("a file whose mtime is within the clock's granularity of the read is read again at every scan", async () => {
    // A later write in the same clock tick could keep size and mtime: such a file is never trusted on them.
    // A future mtime stands for "just now" without depending on how fast this test runs.
    await fx.write("notes/todo.md", "Untracked note citing REQ-511.\n");
    const soon = new Date(Date.now() + 60_000);
    await utimes(join(fx.root, "notes/todo.md"), soon, soon);
    for (let i = 0; i < 2; i++) {
      const memory = await scanProject(fx.root, { env: fx.env, state });
      const disk = await scanProject(fx.root, { env: fx.env, persist: true });
      expect([memory.read, disk.read]).toEqual([1, 1]);
      expect(ids(memory, "notes/todo.md")).toEqual(["REQ-511"]);
    }
  });
});

describe("the disk cache", () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await makeFixture();
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  it("is ignored when corrupt, truncated or of another version, and rewritten", async () => {
    const reference = view(await scanProject(fx.root, { env: fx.env, persist: true }));
    const file = cacheFileFor(fx.cacheDir, fx.root);
    const good = await readFile(file);
    const data = deserialize(good);
    expect(typeof data.crc).toBe("number"); // this Node has zlib.crc32: the entries carry their checksum
    const entries = deserialize(data.entries);
    // Columns that do not decode, each with the checksum of the good ones (a mismatch) and with none (a
    // writer without crc32: every column is checked).
    const badColumns = [
      { ...entries, cites: Int32Array.from([999_999, 0, 0, 1, 1, 0]), lengths: Int32Array.from([-1, 0]) },
      { ...entries, text: entries.text.slice(1) },
      { ...entries, paths: "just-one-path" },
      // Citations are decoded lazily: every column is checked when the file is read, so none fails later.
      { ...entries, cites: Int32Array.from(entries.cites).reverse() },
      { ...entries, ids: "" },
    ];
    const flipped = Buffer.from(data.entries);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 1; // one bit of the last column
    const variants: Buffer[] = [
      Buffer.from("not a cache at all"),
      good.subarray(0, Math.floor(good.length / 2)),
      serialize({ ...data, version: CACHE_VERSION - 1 }),
      serialize({ ...data, format: "something else" }),
      ...badColumns.flatMap((bad) => [
        serialize({ ...data, entries: serialize(bad) }),
        serialize({ ...data, entries: serialize(bad), crc: null }),
      ]),
      serialize({ ...data, entries: flipped }),
      serialize({ ...data, entries }), // columns that are not bytes
      serialize({ ...data, root: "/another/project" }),
      serialize({ ...data, version: "5" }),
    ];
    for (const bad of variants) {
      await writeFile(file, bad);
      await rm(`${file}.delta`, { force: true });
      const r = await scanProject(fx.root, { env: fx.env, persist: true });
      expect(view(r)).toEqual(reference);
      expect(r.read).toBe(r.files); // a cold scan: nothing came from the bad file
      expect(deserialize(await readFile(file))).toMatchObject({
        format: "reqlix-trace-cache",
        version: CACHE_VERSION,
      });
    }
  });

  it("is written atomically: no temp file is left, and the delta names its base", async () => {
    await scanProject(fx.root, { env: fx.env, persist: true });
    await fx.write("src/extra.ts", "// REQ-700\n");
    await scanProject(fx.root, { env: fx.env, persist: true });
    const names = await readdir(fx.cacheDir);
    expect(names.some((n) => n.endsWith(".tmp"))).toBe(false);
    const file = cacheFileFor(fx.cacheDir, fx.root);
    const header = deserialize(await readFile(file));
    const delta = deserialize(await readFile(`${file}.delta`));
    expect(delta.generation).toBe(header.generation);
    expect(delta.removed).toEqual([]);
  });
});
