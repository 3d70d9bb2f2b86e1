import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listMarkdown } from "../../../src/local/ixchel/files.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("listMarkdown", () => {
  it("skips a writer's lock folder beside an entity (another process removes it at any moment)", () => {
    const root = mkdtempSync(join(tmpdir(), "ixchel-files-"));
    dirs.push(root);
    mkdirSync(join(root, "decisions/dec-00000a.md.lock"), { recursive: true });
    writeFileSync(join(root, "decisions/dec-00000a.md"), "---\nid: dec-00000a\n---\n");
    writeFileSync(join(root, "decisions/dec-00000a.md.lock/holder-1.json"), "{}");
    writeFileSync(join(root, "decisions/dec-00000a.md.lock/stray.md"), "not an entity");
    mkdirSync(join(root, "issues"));
    writeFileSync(join(root, "issues/iss-00000b.md"), "---\nid: iss-00000b\n---\n");
    expect(listMarkdown(root)).toEqual(["decisions/dec-00000a.md", "issues/iss-00000b.md"]);
  });
});
