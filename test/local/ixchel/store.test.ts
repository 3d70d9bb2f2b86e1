import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseEntityFile } from "../../../src/local/ixchel/entity.js";
import { findRepoRoot } from "../../../src/local/ixchel/root.js";
import { IxchelStore } from "../../../src/local/ixchel/store.js";
import { tempDir } from "../../helpers/companion.js";
import { writeEntity, writeIxchel, writeSampleGraph } from "./repo-fixture.js";

let root: string;
let cleanup: () => Promise<void>;
const logs: string[] = [];
const log = (message: string) => {
  logs.push(message);
};

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir("ixchel-store-"));
  logs.length = 0;
  writeSampleGraph(root);
});
afterEach(() => cleanup());

/** Moves every file's mtime an hour back, as in a repository whose files were not just written. */
function age(path: string) {
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(path, old, old);
}

describe("IxchelStore.sync", () => {
  it("parses everything on the first sync, nothing on the next, and counts adds, edits and deletes", async () => {
    const store = new IxchelStore(root, log);
    expect(await store.sync()).toEqual({
      scanned: 5,
      added: 5,
      modified: 0,
      deleted: 0,
      unchanged: 0,
      invalid: 0,
    });
    expect(await store.sync()).toEqual({
      scanned: 5,
      added: 0,
      modified: 0,
      deleted: 0,
      unchanged: 5,
      invalid: 0,
    });

    writeEntity(root, { id: "rpt-0000e1", title: "Weekly report" });
    writeEntity(root, { id: "iss-0000b1", title: "Migrations fail on Workers (renamed)" });
    rmSync(join(root, ".ixchel/ideas/idea-0000d1.md"));
    expect(await store.sync()).toEqual({
      scanned: 5,
      added: 1,
      modified: 1,
      deleted: 1,
      unchanged: 3,
      invalid: 0,
    });
    expect(store.get("iss-0000b1")?.entity.title).toBe("Migrations fail on Workers (renamed)");
    expect(store.get("idea-0000d1")).toBeUndefined();
  });

  it("sees an edit that keeps size and mtime of a recently written file (the racy case)", async () => {
    const store = new IxchelStore(root, log);
    const path = writeEntity(root, { id: "iss-0000f1", title: "AAAA" });
    await store.sync();
    const { mtime } = await import("node:fs").then((fs) => fs.statSync(path));
    writeFileSync(path, readFileSync(path, "utf8").replace("AAAA", "BBBB"));
    utimesSync(path, mtime, mtime);
    expect((await store.sync()).modified).toBe(1);
    expect(store.get("iss-0000f1")?.entity.title).toBe("BBBB");
  });

  it("trusts size and mtime of settled files, and re-hashes touched files without counting them as modified", async () => {
    const store = new IxchelStore(root, log);
    const path = join(root, ".ixchel/issues/iss-0000b1.md");
    age(path);
    await store.sync();
    await store.sync(); // the record now knows the file was settled when it was checked
    const now = new Date();
    utimesSync(path, now, now);
    expect(await store.sync()).toMatchObject({ modified: 0, unchanged: 5 });
  });

  it("writes the cache under .ixchel/.cache with a .gitignore, and a new store starts from it", async () => {
    await new IxchelStore(root, log).sync();
    expect(readFileSync(join(root, ".ixchel/.cache/.gitignore"), "utf8")).toBe("*\n");
    expect(existsSync(join(root, ".ixchel/.cache/index.json"))).toBe(true);
    const second = new IxchelStore(root, log);
    expect(await second.sync()).toMatchObject({ added: 0, unchanged: 5 });
    expect(second.get("dec-0000a1")?.entity.title).toBe("Use libSQL for storage");
  });

  it("in a graph of over 1,000 files writes the cache right after the sync returns, not within it", async () => {
    for (let i = 0; i < 1000; i++) {
      writeEntity(root, { id: `iss-${(0x100000 + i).toString(16)}`, title: `Issue ${i}` });
    }
    const cachePath = join(root, ".ixchel/.cache/index.json");
    const store = new IxchelStore(root, log);
    expect(await store.sync()).toMatchObject({ added: 1005 });
    expect(existsSync(cachePath)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const saved = JSON.parse(readFileSync(cachePath, "utf8")) as { files: Record<string, unknown> };
    expect(Object.keys(saved.files)).toHaveLength(1005);
    // A new process starts from it.
    expect(await new IxchelStore(root, log).sync()).toMatchObject({ added: 0, unchanged: 1005 });
    // flushCache writes a pending save at once (what a caller handing the cache to another process uses).
    rmSync(cachePath);
    const again = new IxchelStore(root, log);
    await again.sync();
    again.flushCache();
    expect(existsSync(cachePath)).toBe(true);
  });

  it("defers the cache save after a small edit, and a process reading the older cache still sees the edit", async () => {
    const a = new IxchelStore(root, log);
    await a.sync();
    const cachePath = join(root, ".ixchel/.cache/index.json");
    const saved = readFileSync(cachePath, "utf8");
    writeEntity(root, { id: "iss-0000b1", title: "Edited in place" });
    expect(await a.sync()).toMatchObject({ modified: 1 });
    expect(readFileSync(cachePath, "utf8")).toBe(saved);
    const b = new IxchelStore(root, log);
    expect(await b.sync()).toMatchObject({ modified: 1, unchanged: 4 });
    expect(b.get("iss-0000b1")?.entity.title).toBe("Edited in place");
    writeEntity(root, { id: "iss-0000b2", title: "Edited again" });
    await a.sync();
    expect(readFileSync(cachePath, "utf8")).not.toContain("Edited again");
    a.flushCache();
    expect(readFileSync(cachePath, "utf8")).toContain("Edited again");
  });

  it("re-parses every file on rebuild, fixing a cache that is well-formed but wrong", async () => {
    await new IxchelStore(root, log).sync();
    const cachePath = join(root, ".ixchel/.cache/index.json");
    writeFileSync(
      cachePath,
      readFileSync(cachePath, "utf8").replace("Use libSQL for storage", "Tampered title"),
    );
    const store = new IxchelStore(root, log);
    await store.sync();
    expect(store.get("dec-0000a1")?.entity.title).toBe("Tampered title");
    expect(await store.sync({ rebuild: true })).toEqual({
      scanned: 5,
      added: 0,
      modified: 0,
      deleted: 0,
      unchanged: 5,
      invalid: 0,
    });
    expect(store.get("dec-0000a1")?.entity.title).toBe("Use libSQL for storage");
  });

  it.each([
    ["garbage", "{not json"],
    ["a wrong shape", JSON.stringify({ version: 1, files: { "issues/x.md": { hash: 3 } } })],
    ["another version", JSON.stringify({ version: 999, files: {} })],
    ["an empty file", ""],
  ])("rebuilds a cache holding %s from the markdown", async (_what, content) => {
    mkdirSync(join(root, ".ixchel/.cache"), { recursive: true });
    writeFileSync(join(root, ".ixchel/.cache/index.json"), content);
    const store = new IxchelStore(root, log);
    expect(await store.sync()).toMatchObject({ scanned: 5, added: 5 });
    expect(store.get("dec-0000a1")).toBeDefined();
    const rewritten = JSON.parse(readFileSync(join(root, ".ixchel/.cache/index.json"), "utf8")) as {
      version: number;
    };
    expect(rewritten.version).toBe(1);
  });

  it("keeps working when the cache cannot be written", async () => {
    writeFileSync(join(root, ".ixchel/.cache"), "a file where the cache folder should be");
    const store = new IxchelStore(root, log);
    expect(await store.sync()).toMatchObject({ added: 5 });
    expect(logs).toContain("ixchel cache could not be written");
  });

  it("counts files that are not entities as invalid without failing", async () => {
    writeIxchel(root, "issues/broken.md", "---\nid: iss-0000aa\ntags: [a\n---\n");
    writeIxchel(root, "README.md", "# plain notes, not an entity\n");
    const store = new IxchelStore(root, log);
    expect(await store.sync()).toMatchObject({ scanned: 7, added: 7, invalid: 1 });
    expect(await store.sync()).toMatchObject({ unchanged: 7, invalid: 1 });
  });

  it("reports progress up to the total", async () => {
    for (let i = 0; i < 1100; i++) writeEntity(root, { id: `ses-${(0x100000 + i).toString(16)}` });
    const seen: [number, number | undefined][] = [];
    const store = new IxchelStore(root, log);
    await store.sync({
      progress: async (progress, total) => {
        seen.push([progress, total]);
      },
    });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.at(-1)).toEqual([1105, 1105]);
    const steps = seen.map(([progress]) => progress);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(new Set(steps).size).toBe(steps.length);
  });

  it("parses each file as parseEntityFile does its text, whatever it holds, across read batches", async () => {
    // Files are read and decoded in batches (ASCII ones together): this mixes in every kind of text.
    const bodies = ["plain body\n", "Ünïcödé body ✓\n", ""];
    // One file larger than a batch, and a run of files of which the third no longer fits in one.
    const big = (i: number) => (i === 0 ? 1_100_000 : i >= 10 && i < 15 ? 400_000 : 0);
    const files: [string, string | Buffer][] = [];
    for (let i = 0; i < 700; i++) {
      const id = `iss-${(0x300000 + i).toString(16)}`;
      const text = `---\nid: ${id}\ntitle: t ${i}\ntags: [a, b]\nrelates_to: [iss-0000b1]\n---\n${big(i) ? `${"x".repeat(big(i))}\n` : (bodies[i % 3] ?? "")}`;
      const kinds: (string | Buffer)[] = [
        text,
        `\uFEFF${text}`,
        text.replace(/\n/g, "\r\n"),
        "",
        Buffer.concat([Buffer.from(text), Buffer.from([0xe2, 0x82]), Buffer.from("\n# after\n")]),
        Buffer.concat([Buffer.from(text), Buffer.from([0xe2])]),
        `---\nid: ${id}\ntitle: 'quoted'\n---\nbody`,
        `---\nid: ${id}\n`,
      ];
      files.push([`issues/${id}.md`, kinds[i % 11] ?? text]);
    }
    for (const [rel, text] of files) writeIxchel(root, rel, text);
    const store = new IxchelStore(root, log);
    await store.sync();
    const records = new Map(store.records());
    for (const [rel] of files) {
      const expected = parseEntityFile(rel, readFileSync(join(root, ".ixchel", rel), "utf8"));
      expect(records.get(rel)?.parsed, rel).toStrictEqual(expected);
    }
  });

  it("skips hidden files, the cache and symbolic links", async () => {
    writeIxchel(root, "issues/.iss-0000aa.md.tmp", "---\nid: iss-0000aa\n---\n");
    writeIxchel(root, ".hidden/iss-0000ab.md", "---\nid: iss-0000ab\n---\n");
    const outside = join(root, "outside.md");
    writeFileSync(outside, "---\nid: iss-0000ac\n---\n");
    await import("node:fs").then((fs) => fs.symlinkSync(outside, join(root, ".ixchel/issues/iss-0000ac.md")));
    const store = new IxchelStore(root, log);
    expect((await store.sync()).scanned).toBe(5);
    expect(store.has("iss-0000ac")).toBe(false);
  });
});

describe("findRepoRoot", () => {
  it("finds the nearest folder holding .ixchel/ from a nested folder or a file (AC-003.1)", () => {
    mkdirSync(join(root, "src/deep/er"), { recursive: true });
    writeFileSync(join(root, "src/deep/file.ts"), "");
    expect(findRepoRoot(join(root, "src/deep/er"), "/")).toBe(root);
    expect(findRepoRoot(join(root, "src/deep/file.ts"), "/")).toBe(root);
    expect(findRepoRoot(join(root, ".ixchel/issues"), "/")).toBe(root);
  });

  it("resolves a relative repo against the working directory, and defaults to it (AC-003.2)", () => {
    mkdirSync(join(root, "pkg"), { recursive: true });
    expect(findRepoRoot("pkg", root)).toBe(root);
    expect(findRepoRoot(undefined, join(root, "pkg"))).toBe(root);
  });

  it("says what is wrong when the path does not exist or no .ixchel/ is above it", async () => {
    expect(() => findRepoRoot(join(root, "nope"), "/")).toThrow(/does not exist/);
    const other = await tempDir("ixchel-none-");
    try {
      expect(() => findRepoRoot(other.path, "/")).toThrow(/No \.ixchel\/ folder/);
    } finally {
      await other.cleanup();
    }
  });
});
