/** The local docset folder search (issue 5, item 2) on real files in temp folders. */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { searchFolder } from "../../../src/local/knowledge/folder-search.js";
import { tempDir } from "../../helpers/companion.js";
import { writeTree } from "./helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await tempDir("folder-search-");
  cleanups.push(dir.cleanup);
  await writeTree(dir.path, files);
  return dir.path;
}

const base = { maxMatches: 20, contextLines: 2 };

describe("searchFolder", () => {
  it("matches case-insensitively, in sorted path order, with context lines clipped at file edges", async () => {
    const root = await folder({
      "b.md": "one\nTwo Hooks\nthree\n",
      "a/z.md": "HOOKS first\nsecond\n",
      "a/b.txt": "nothing here\n",
    });
    const r = await searchFolder(root, { ...base, terms: ["hooks"] });
    expect(r).toEqual({
      matches: [
        { path: "a/z.md", line: 1, text: "HOOKS first", term: "hooks", before: [], after: ["second"] },
        { path: "b.md", line: 2, text: "Two Hooks", term: "hooks", before: ["one"], after: ["three"] },
      ],
      truncated: false,
      files_searched: 3,
    });
  });

  it("any of several terms matches a line; the first term found is reported", async () => {
    const root = await folder({ "a.md": "alpha\nbeta gamma\ndelta\n" });
    const r = await searchFolder(root, { ...base, contextLines: 0, terms: ["GAMMA", "beta", "delta"] });
    expect(r.matches.map((m) => [m.line, m.term])).toEqual([
      [2, "GAMMA"],
      [3, "delta"],
    ]);
  });

  it("handles CRLF line endings and a last line without a newline", async () => {
    const root = await folder({ "a.md": "x\r\nneedle one\r\ny\r\nneedle two" });
    const r = await searchFolder(root, { ...base, contextLines: 1, terms: ["needle"] });
    expect(r.matches).toEqual([
      { path: "a.md", line: 2, text: "needle one", term: "needle", before: ["x"], after: ["y"] },
      { path: "a.md", line: 4, text: "needle two", term: "needle", before: ["y"], after: [] },
    ]);
  });

  it("streams large files: lines and multi-byte characters that straddle chunk boundaries are intact", async () => {
    // 256 KiB reads: put a match, and a run of 3-byte characters, across the first boundary (262,144).
    const filler = `${"x".repeat(99)}\n`.repeat(2621); // 262,100 bytes: the boundary falls inside a "€"
    const content = `${filler}prefix€€€€€€ needle €€€€ suffix\n${"y\n".repeat(50_000)}last needle\n`;
    const root = await folder({ "big.md": content });
    const r = await searchFolder(root, { ...base, contextLines: 1, terms: ["NEEDLE"] });
    expect(r.matches.map((m) => [m.line, m.text])).toEqual([
      [2622, "prefix€€€€€€ needle €€€€ suffix"],
      [52_623, "last needle"],
    ]);
    expect(r.matches[0]?.before).toEqual(["x".repeat(99)]); // carried over from the block before
    expect(r.matches[0]?.after).toEqual(["y"]);
    expect(r.matches[1]?.before).toEqual(["y"]);
  });

  it("clips very long lines around the match", async () => {
    const line = `${"a".repeat(5000)}NEEDLE${"b".repeat(5000)}`;
    const root = await folder({ "min.html": `${line}\n` });
    const r = await searchFolder(root, { ...base, terms: ["needle"] });
    const text = r.matches[0]?.text ?? "";
    expect(text).toContain("NEEDLE");
    expect(text.length).toBeLessThanOrEqual(302);
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
  });

  it("stops at maxMatches: truncated only when more matches exist, even in a later file", async () => {
    const root = await folder({ "a.md": "hit\nhit\n", "b.md": "miss\n", "c.md": "hit\n" });
    const exact = await searchFolder(root, { ...base, maxMatches: 3, terms: ["hit"] });
    expect(exact.matches).toHaveLength(3);
    expect(exact.truncated).toBe(false);
    const capped = await searchFolder(root, { ...base, maxMatches: 2, terms: ["hit"] });
    expect(capped.matches.map((m) => `${m.path}:${m.line}`)).toEqual(["a.md:1", "a.md:2"]);
    expect(capped.truncated).toBe(true);
  });

  it("gives the last match its full after-context even when the cap is reached", async () => {
    const root = await folder({ "a.md": "hit 1\nhit 2\nhit 3\nplain\n" });
    const r = await searchFolder(root, { ...base, maxMatches: 1, contextLines: 2, terms: ["hit"] });
    expect(r.matches).toEqual([
      { path: "a.md", line: 1, text: "hit 1", term: "hit", before: [], after: ["hit 2", "hit 3"] },
    ]);
    expect(r.truncated).toBe(true);
  });

  it("skips binary files, dot-entries and symbolic links", async () => {
    const root = await folder({ "doc.md": "needle\n", ".git/config": "needle\n", ".hidden.md": "needle\n" });
    await writeFile(join(root, "blob.bin"), Buffer.concat([Buffer.from("needle\n"), Buffer.from([0, 1, 2])]));
    const outside = await folder({ "secret.md": "needle\n" });
    await symlink(outside, join(root, "linked-dir"));
    await symlink(join(outside, "secret.md"), join(root, "linked.md"));
    const r = await searchFolder(root, { ...base, terms: ["needle"] });
    expect(r.matches.map((m) => m.path)).toEqual(["doc.md"]);
  });

  it("stops at the byte budget and the file budget with truncated set", async () => {
    const root = await folder({ "a.md": `${"z\n".repeat(100_000)}`, "b.md": "needle\n" });
    const bytes = await searchFolder(root, { ...base, terms: ["needle"], maxBytes: 1000 });
    expect(bytes).toMatchObject({ matches: [], truncated: true, files_searched: 1 });
    const files = await searchFolder(root, { ...base, terms: ["needle"], maxFiles: 1 });
    expect(files).toMatchObject({ matches: [], truncated: true, files_searched: 1 });
  });

  it("stops at the time budget with truncated set", async () => {
    const root = await folder({ "a.md": "needle\n", "b.md": "needle\n" });
    const r = await searchFolder(root, { ...base, terms: ["needle"], maxMillis: -1 });
    expect(r.truncated).toBe(true);
    expect(r.files_searched).toBeLessThanOrEqual(1);
  });

  it("an aborted search returns what it has, marked truncated", async () => {
    const root = await folder({ "a.md": "needle\n", "b.md": "needle\n" });
    const controller = new AbortController();
    controller.abort();
    const r = await searchFolder(root, { ...base, terms: ["needle"], signal: controller.signal });
    expect(r.truncated).toBe(true);
    expect(r.matches).toEqual([]);
  });

  it("an empty folder, empty files and no terms give no matches", async () => {
    const root = await folder({ "empty.md": "" });
    await mkdir(join(root, "sub"));
    expect(await searchFolder(root, { ...base, terms: ["x"] })).toEqual({
      matches: [],
      truncated: false,
      files_searched: 1,
    });
    expect(await searchFolder(root, { ...base, terms: [] })).toEqual({
      matches: [],
      truncated: false,
      files_searched: 0,
    });
  });
});
