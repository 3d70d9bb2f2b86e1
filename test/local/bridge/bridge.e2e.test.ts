/**
 * The bridge end to end: a real hosted server (the app over a temp libSQL file, real HTTP on port 0, real
 * tokens), the built companion run as a process in a realistic reqlix project (`reqlix-mcp push|pull`), and
 * the tools over the real MCP SDK Client on stdio. Each test has its own workspace.
 */
import { execFile } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { STATE_FILE } from "../../../src/local/bridge/sync-state.js";
import { deleteRequirement, updateRequirement } from "../../../src/local/reqlix/requirements-store.js";
import { BUNDLE, startCompanion, textOf } from "../../helpers/companion.js";
import { type HostedServer, startHosted } from "../../helpers/hosted.js";
import { toolHttp } from "../../helpers/rpc-http.js";
import { makeProject, type ProjectFixture } from "./project-fixture.js";

let hosted: HostedServer;
let project: ProjectFixture;
let token: string;
let workspace: string;
let n = 0;

beforeAll(async () => {
  hosted = await startHosted();
});
afterAll(async () => {
  await hosted.close();
});
beforeEach(async () => {
  project = await makeProject();
  workspace = `bridge-${++n}`;
  token = await hosted.createToken(`dev${n}`, "editor", workspace);
});
afterEach(async () => {
  await project.cleanup();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BUNDLE, ...args],
      { cwd: project.root, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const target = () => ["--url", hosted.url, "--token", token, "--workspace", workspace];

interface ExportedRequirement {
  reference_id: string;
  external_id: string | null;
  title: string;
  description: string;
  status: string;
  revision: number;
  user_story: string;
}

interface Exported {
  epics: { reference_id: string; external_id: string | null; title: string }[];
  user_stories: { reference_id: string; external_id: string | null; title: string; epic: string }[];
  requirements: ExportedRequirement[];
}

/** The workspace as the export API gives it, less the export's own time stamp. */
async function exported(): Promise<Exported> {
  const res = await fetch(`${hosted.url}/api/v1/export?format=json`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  const { exported_at: _at, ...doc } = (await res.json()) as Exported & { exported_at?: string };
  return doc;
}

async function hostedReq(index: string): Promise<ExportedRequirement> {
  const r = (await exported()).requirements.find((x) => x.external_id === index);
  if (!r) throw new Error(`no hosted requirement with external id ${index}`);
  return r;
}

async function revisionsFrom(source: string): Promise<number> {
  const rs = await hosted.database.client.execute({
    sql: "SELECT count(*) AS n FROM revisions WHERE source = ?",
    args: [source],
  });
  return Number(rs.rows[0]?.n);
}

async function expectSameFiles(before: Map<string, Buffer>): Promise<void> {
  const after = await project.snapshot();
  for (const [name, bytes] of before) expect(after.get(name)?.equals(bytes), name).toBe(true);
}

async function pushed(): Promise<void> {
  const run = await cli(["push", ...target()]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
}

describe("reqlix-mcp push and pull", () => {
  it("push maps the files to the workspace; a pull right after leaves every file byte-identical", async () => {
    const before = await project.snapshot();
    const run = await cli(["push", ...target()]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("created (53): G.G.1, G.G.2,");
    expect(run.stdout).toContain("and 33 more (--json lists all)");
    const doc = await exported();
    expect(doc.epics.map((e) => [e.title, e.external_id])).toEqual([
      ["general", "G"],
      ["testing", "T"],
    ]);
    expect(doc.user_stories).toHaveLength(13);
    expect(doc.user_stories.find((s) => s.external_id === "G.GI")?.title).toBe("reqlix_get_instructions");
    expect(doc.requirements).toHaveLength(53);
    const failing = doc.requirements.find((r) => r.external_id === "T.U.2");
    expect(failing).toMatchObject({
      title: "Failing first",
      description: "A bug fix starts with a test that fails without the fix.",
      status: "Draft",
    });
    expect(await revisionsFrom("reqlix-mcp push")).toBeGreaterThanOrEqual(53 + 13 + 2);
    const state = JSON.parse(await readFile(join(project.root, STATE_FILE), "utf8"));
    expect(JSON.stringify(state)).not.toContain(token);

    const pull = await cli(["pull", ...target()]);
    expect(pull.stderr).toBe("");
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain("unchanged: 53");
    await expectSameFiles(before);

    // Nothing changed: a second push sends nothing and records no revision.
    const revisions = await revisionsFrom("reqlix-mcp push");
    const again = await cli(["push", ...target()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("unchanged: 53");
    expect(await revisionsFrom("reqlix-mcp push")).toBe(revisions);
    await expectSameFiles(before);
  });

  it("pull brings a workspace edit, a new requirement and an Obsolete one into the files", async () => {
    await pushed();
    const testingBefore = await readFile(join(project.dir, "testing.md"));
    const g1 = await hostedReq("G.G.1");
    await toolHttp(hosted.url, token, "update_requirement", {
      requirement_id: g1.reference_id,
      title: "Language",
      description: "All requirements are written in English.\n\nBritish or American spelling, not mixed.",
    });
    const g2 = await hostedReq("G.G.2");
    await toolHttp(hosted.url, token, "update_requirement", {
      requirement_id: g2.reference_id,
      status: "Obsolete",
    });
    await toolHttp(hosted.url, token, "create_requirement", {
      user_story_id: g1.user_story,
      title: "Plain words",
      description: "Prefer plain words to jargon.",
      type: "Functional",
      priority: 3,
    });

    const pull = await cli(["pull", ...target()]);
    expect(pull.stderr).toBe("");
    expect(pull.code).toBe(0);
    const general = await readFile(join(project.dir, "general.md"), "utf8");
    expect(general).toContain(
      "## G.G.1: Language\n\nAll requirements are written in English.\n\nBritish or American spelling, not mixed.\n\n<!-- rev: 2 -->\n",
    );
    expect(general).not.toContain("G.G.2:");
    expect(general).toContain("## G.G.3: Plain words\n\nPrefer plain words to jargon.\n");
    expect((await readFile(join(project.dir, "testing.md"))).equals(testingBefore)).toBe(true);

    // The new requirement learns its index on the next push; nothing else goes up.
    const push = await cli(["push", ...target()]);
    expect(push.code).toBe(0);
    expect(push.stdout).toContain("index set as external id (1): G.G.3");
    expect((await hostedReq("G.G.3")).title).toBe("Plain words");
    const snapshot = await project.snapshot();
    const again = await cli(["pull", ...target()]);
    expect(again.code).toBe(0);
    await expectSameFiles(snapshot);
  });

  it("a user story new in a mapped epic comes down as a new chapter, and push then maps it", async () => {
    await pushed();
    const doc = await exported();
    const epic = doc.epics.find((e) => e.external_id === "G")?.reference_id;
    const story = await toolHttp(hosted.url, token, "create_user_story", {
      epic_id: epic,
      title: "Glossary",
    });
    for (const [title, description] of [
      ["Category", "A file of requirements in the requirements folder."],
      ["Chapter", "A level-1 heading of a category file."],
    ]) {
      await toolHttp(hosted.url, token, "create_requirement", {
        user_story_id: story.reference_id,
        title,
        description,
        type: "Functional",
        priority: 3,
      });
    }
    const pull = await cli(["pull", ...target()]);
    expect(pull.stderr).toBe("");
    expect(pull.code).toBe(0);
    const general = await readFile(join(project.dir, "general.md"), "utf8");
    expect(
      general.endsWith(
        "# Glossary\n\n## G.GL.1: Category\n\nA file of requirements in the requirements folder.\n\n## G.GL.2: Chapter\n\nA level-1 heading of a category file.\n",
      ),
    ).toBe(true);

    const push = await cli(["push", ...target()]);
    expect(push.code).toBe(0);
    const after = await exported();
    expect(after.user_stories.find((s) => s.reference_id === story.reference_id)?.external_id).toBe("G.GL");
    expect((await hostedReq("G.GL.2")).title).toBe("Chapter");
    const files = await project.snapshot();
    expect((await cli(["pull", ...target()])).code).toBe(0);
    await expectSameFiles(files);
  });

  it("push sends a local edit and a local deletion (Obsolete), with source reqlix-mcp push", async () => {
    await pushed();
    const t1 = await hostedReq("T.U.1");
    await updateRequirement(project.root, {}, { index: "T.U.1", text: "Tests use real parts, always." });
    await deleteRequirement(project.root, {}, "T.E.1");
    const e1 = await hostedReq("T.E.1");
    const revisions = await revisionsFrom("reqlix-mcp push");

    const push = await cli(["push", ...target()]);
    expect(push.stderr).toBe("");
    expect(push.code).toBe(0);
    expect(push.stdout).toContain("updated in the workspace (1): T.U.1");
    const after = await exported();
    const t1After = after.requirements.find((r) => r.reference_id === t1.reference_id);
    expect(t1After).toMatchObject({ description: "Tests use real parts, always.", external_id: "T.U.1" });
    expect(t1After?.revision).toBe(t1.revision + 1);
    expect(after.requirements.find((r) => r.reference_id === e1.reference_id)?.status).toBe("Obsolete");
    expect(await revisionsFrom("reqlix-mcp push")).toBe(revisions + 2);
  });

  it("a change on both sides is a conflict: exit 3, both versions reported, nothing written anywhere", async () => {
    await pushed();
    const g1 = await hostedReq("G.G.1");
    await toolHttp(hosted.url, token, "update_requirement", {
      requirement_id: g1.reference_id,
      description: "HOSTED VERSION of the language rule.",
    });
    await updateRequirement(
      project.root,
      {},
      { index: "G.G.1", text: "LOCAL VERSION of the language rule." },
    );
    const files = await project.snapshot();
    const state = await readFile(join(project.root, STATE_FILE));
    const workspaceBefore = await exported();

    for (const command of ["push", "pull"]) {
      const run = await cli([command, ...target()]);
      expect(run.code, command).toBe(3);
      expect(run.stderr).toContain("1 conflict(s)");
      expect(run.stderr).toContain("G.G.1");
      expect(run.stderr).toContain("LOCAL VERSION of the language rule.");
      expect(run.stderr).toContain("HOSTED VERSION of the language rule.");
      expect(run.stderr).not.toContain(token);
      await expectSameFiles(files);
      expect((await readFile(join(project.root, STATE_FILE))).equals(state)).toBe(true);
      expect(await exported()).toEqual(workspaceBefore);
    }

    // The user picks a winner: pull --force takes the workspace's version, and the sides agree again.
    const forced = await cli(["pull", "--force", ...target()]);
    expect(forced.stderr).toBe("");
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("conflicts resolved by --force (1): G.G.1");
    expect(
      (await readFile(join(project.dir, "general.md"), "utf8")).includes(
        "HOSTED VERSION of the language rule.",
      ),
    ).toBe(true);
    const agreed = await project.snapshot();
    expect((await cli(["push", ...target()])).stdout).toContain("unchanged: 53");
    await expectSameFiles(agreed);

    // A deletion in the files against an edit in the workspace: push --force lets the files win.
    const t1 = await hostedReq("T.U.1");
    await toolHttp(hosted.url, token, "update_requirement", {
      requirement_id: t1.reference_id,
      title: "Edited hosted",
    });
    await deleteRequirement(project.root, {}, "T.U.1");
    expect((await cli(["push", ...target()])).code).toBe(3);
    const forcedPush = await cli(["push", "--force", ...target()]);
    expect(forcedPush.code).toBe(0);
    expect(forcedPush.stdout).toContain("made Obsolete (1): T.U.1");
    const gone = (await exported()).requirements.find((r) => r.reference_id === t1.reference_id);
    expect(gone).toMatchObject({ status: "Obsolete", external_id: null, title: "Edited hosted" });
    const files2 = await project.snapshot();
    const quiet = await cli(["pull", ...target()]);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toContain("unchanged: 52");
    await expectSameFiles(files2);
  });

  it("a refused token is a clear error (exit 2) that never shows the token, and changes nothing", async () => {
    const files = await project.snapshot();
    const bad = "rqx_0000000000000000000000000000000000000000000";
    const run = await cli(["push", "--url", hosted.url, "--token", bad, "--workspace", workspace]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("refused the token");
    expect(run.stderr).not.toContain(bad);
    await expectSameFiles(files);
    await expect(readFile(join(project.root, STATE_FILE))).rejects.toThrow();
    await expect(stat(join(project.root, ".reqlix"))).rejects.toThrow(); // not even the folder
    expect((await exported()).requirements).toEqual([]);

    const other = await cli(["push", "--url", hosted.url, "--token", token, "--workspace", "default"]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`belongs to workspace "${workspace}"`);
  });

  it("an import the workspace refuses is exit 1 with the server's reasons, and nothing is written", async () => {
    // An epic of the same name that is not the category's: epic titles are unique in a workspace.
    await toolHttp(hosted.url, token, "create_epic", { title: "general", description: "Someone else's." });
    const files = await project.snapshot();
    const run = await cli(["push", ...target()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Pushing to the hosted workspace: the server refused the change (HTTP 409");
    expect(run.stderr).toContain('An epic titled "general" already exists');
    expect(run.stderr).toContain("Nothing was changed.");
    await expectSameFiles(files);
    const doc = await exported();
    expect(doc.epics).toHaveLength(1);
    expect(doc.requirements).toEqual([]);
    await expect(readFile(join(project.root, STATE_FILE))).rejects.toThrow();
  });

  it("bad usage exits 2 with did-you-mean; the environment supplies URL, token and workspace", async () => {
    const typo = await cli(["push", "--tokn", token]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean --token?");
    const missing = await cli(["pull"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("REQLIX_URL");
    expect(missing.stderr).toContain("REQLIX_TOKEN");
    expect(missing.stderr).toContain("REQLIX_WORKSPACE");
    const stray = await cli(["pull", "now"]);
    expect(stray.code).toBe(2);
    const env = await cli(["push"], {
      REQLIX_URL: hosted.url,
      REQLIX_TOKEN: token,
      REQLIX_WORKSPACE: workspace,
    });
    expect(env.stderr).toBe("");
    expect(env.code).toBe(0);
  });
});

describe("reqlix_push and reqlix_pull over the MCP SDK Client on stdio", () => {
  it("push, pull and a conflict, with the target from the environment; a bad token argument is never echoed", async () => {
    const companion = await startCompanion({
      args: ["--toolsets", "reqlix"],
      cwd: project.root,
      env: { REQLIX_URL: hosted.url, REQLIX_TOKEN: token, REQLIX_WORKSPACE: workspace },
    });
    try {
      const call = async (name: string, extra: Record<string, unknown> = {}) => {
        const result = await companion.client.callTool({
          name,
          arguments: { project_root: project.root, operation_description: "sync", ...extra },
        });
        return { isError: result.isError === true, body: JSON.parse(textOf(result)) };
      };
      const listed = (await companion.client.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(expect.arrayContaining(["reqlix_push", "reqlix_pull"]));

      const files = await project.snapshot();
      const push = await call("reqlix_push");
      expect(push.isError).toBe(false);
      expect(push.body.data.status).toBe("done");
      expect(push.body.data.pushed.created).toHaveLength(53);
      const pull = await call("reqlix_pull");
      expect(pull.body.data.status).toBe("done");
      await expectSameFiles(files);

      const g1 = await hostedReq("G.G.1");
      await toolHttp(hosted.url, token, "update_requirement", {
        requirement_id: g1.reference_id,
        title: "Hosted title",
      });
      await updateRequirement(
        project.root,
        {},
        { index: "G.G.1", text: "Local text.", title: "Local title" },
      );
      const conflict = await call("reqlix_pull");
      expect(conflict.body.data.status).toBe("conflict");
      expect(conflict.body.data.conflicts[0]).toMatchObject({
        index: "G.G.1",
        reference_id: g1.reference_id,
        local: { title: "Local title", text: "Local text." },
        hosted: { title: "Hosted title" },
      });

      const bad = "rqx_ffffffffffffffffffffffffffffffffffffffffff";
      const refused = await call("reqlix_push", { token: bad });
      expect(refused.isError).toBe(true);
      expect(refused.body.error).toContain("refused the token");
      expect(JSON.stringify(refused.body)).not.toContain(bad);
    } finally {
      await companion.close();
    }
  });
});
