/** The admin CLI's `export` and `import` (through runAdmin, the code `npm run admin` runs) on a real database file. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin-commands.js";
import { openDatabase } from "../../src/db/client.js";
import { createEpic } from "../../src/db/epics.repo.js";
import { createRequirement } from "../../src/db/requirements.repo.js";
import { createUserStory } from "../../src/db/user-stories.repo.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";
import { REPO_ROOT } from "../helpers/node-process.js";

const dir = mkdtempSync(join(tmpdir(), "reqlix-icli-"));
const db = `file:${join(dir, "admin.db")}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function admin(...args: string[]) {
  let out = "";
  let err = "";
  const code = await runAdmin([...args, "--db", db], {
    env: {},
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

async function count(table: string, slug: string): Promise<number> {
  const database = await openDatabase({ url: db });
  try {
    const rs = await database.client.execute({
      sql: `SELECT count(*) AS n FROM ${table} WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = ?)`,
      args: [slug],
    });
    return Number(rs.rows[0]?.n);
  } finally {
    await database.close();
  }
}

describe("admin CLI export / import", () => {
  it("exports to a file, plans an import (writes nothing), applies it once, re-applying creates nothing", async () => {
    expect((await admin("bootstrap")).code).toBe(0);
    const database = await openDatabase({ url: db });
    const ws = await database.read((d) => findWorkspaceBySlug(d, "default"));
    const actor = { userId: 1, now: new Date() };
    await database.write(async (tx) => {
      const e = await createEpic(tx, ws?.id as number, { title: "CLI epic" }, actor);
      const s = await createUserStory(
        tx,
        ws?.id as number,
        { epic_id: e.reference_id, title: "CLI story" },
        actor,
      );
      await createRequirement(
        tx,
        ws?.id as number,
        { user_story_id: s.reference_id, title: "CLI req", type: "Functional", priority: 2 },
        actor,
      );
    });
    await database.close();
    expect((await admin("workspace-create", "--slug", "copy", "--name", "Copy")).code).toBe(0);

    const file = join(dir, "default.json");
    const exported = await admin("export", "--workspace", "default", "--format", "json", "--out", file);
    expect(exported.code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).requirements[0].title).toBe("CLI req");
    const stdout = await admin("export", "--format", "csv", "--epic", "EP-001");
    expect(stdout.out).toContain("CLI req");

    const dry = await admin("import", "--workspace", "copy", "--format", "json", "--file", file);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out)).toMatchObject({ dry_run: true, counts: { create: 3, errors: 0 } });
    expect(await count("requirements", "copy")).toBe(0);

    const applied = await admin(
      "import",
      "--workspace",
      "copy",
      "--format",
      "json",
      "--file",
      file,
      "--apply",
    );
    expect(JSON.parse(applied.out)).toMatchObject({
      dry_run: false,
      source: "default.json",
      counts: { create: 3 },
    });
    expect(await count("requirements", "copy")).toBe(1);
    const again = await admin("import", "--workspace", "copy", "--format", "json", "--file", file, "--apply");
    expect(JSON.parse(again.out).counts).toMatchObject({ create: 0, update: 0, unchanged: 3 });
  });

  it("a malformed file exits 2 naming line and column, and writes nothing", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, '{\n  "format": "reqlix-export",\n  "version": 1,\n  "epics": [}\n');
    const before = await count("epics", "copy");
    const run = await admin("import", "--workspace", "copy", "--format", "json", "--file", bad, "--apply");
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/line 4, column 13/);
    expect(await count("epics", "copy")).toBe(before);
    const missing = await admin("import", "--workspace", "copy", "--format", "json");
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("--file: required");
  });
});

describe("admin CLI import --epic-depth (a real process)", () => {
  const sample = resolve(import.meta.dirname, "../fixtures/reqif/strictdoc-two-documents.reqif");
  const cliDb = `file:${join(dir, "depth.db")}`;

  /** `npm run admin -- …` as the operator runs it: node with tsx on src/cli/admin.ts, in the repository. */
  function adminProcess(...args: string[]) {
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/cli/admin.ts", ...args, "--db", cliDb], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    return { code: run.status, out: run.stdout, err: run.stderr };
  }
  const counts = (out: string) => (JSON.parse(out) as { counts: { create: number; errors: number } }).counts;
  const epics = async (slug: string) => {
    const database = await openDatabase({ url: cliDb });
    try {
      const rs = await database.client.execute({
        sql: "SELECT title FROM epics WHERE workspace_id = (SELECT id FROM workspaces WHERE slug = ?) ORDER BY id",
        args: [slug],
      });
      return rs.rows.map((r) => String(r.title));
    } finally {
      await database.close();
    }
  };

  it("passes the ReqIF hierarchy depth like the HTTP route's epic_depth; a bad one or another format is exit 2", async () => {
    expect(adminProcess("bootstrap").code).toBe(0);
    const plan = (...depth: string[]) =>
      adminProcess("import", "--format", "reqif", "--file", sample, ...depth);
    // The same counts as test/http/interchange-reqif-api.test.ts gets for the same file.
    const auto = plan();
    expect(auto.code, auto.err).toBe(0);
    expect(counts(auto.out)).toEqual({ create: 10, update: 0, unchanged: 0, errors: 0 });
    expect(counts(plan("--epic-depth", "auto").out)).toMatchObject({ create: 10, errors: 0 });
    expect(counts(plan("--epic-depth", "1").out)).toMatchObject({ create: 8, errors: 0 });

    const bad = plan("--epic-depth", "deep");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--epic-depth: "auto" or 0–9');
    const json = adminProcess("import", "--format", "json", "--file", sample, "--epic-depth", "1");
    expect(json.code).toBe(2);
    expect(json.err).toContain("--epic-depth: sets ReqIF's hierarchy rule: use it with --format reqif");

    // Applied with depth 1: the four top-level objects are the epics.
    const applied = plan("--epic-depth", "1", "--apply");
    expect(applied.code, applied.err).toBe(0);
    expect(await epics("default")).toHaveLength(4);
    expect(adminProcess("--help").out).toContain("[--epic-depth auto|0-9]");
  }, 180_000);
});
