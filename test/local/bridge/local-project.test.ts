import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLocalProject } from "../../../src/local/bridge/local-project.js";
import { getRequirementsByIndex } from "../../../src/local/reqlix/requirements-store.js";
import { makeProject, type ProjectFixture } from "./project-fixture.js";

let project: ProjectFixture;
beforeEach(async () => {
  project = await makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

describe("the bridge's reading of reqlix markdown", () => {
  it("maps categories to prefixes and chapters to keys as the reqlix tools index them", async () => {
    const local = await readLocalProject(project.root, {});
    expect(local.categories.map((c) => [c.name, c.prefix])).toEqual([
      ["general", "G"],
      ["testing", "T"],
    ]);
    const general = local.categories[0];
    expect(general?.chapters.map((c) => `${c.key} ${c.name}`)).toEqual([
      "G.G General Requirements",
      "G.P Parameter Constraints",
      "G.F Requirements Storage Format",
      "G.C Common Implementation Requirements",
      "G.GI reqlix_get_instructions",
      "G.GC reqlix_get_categories",
      "G.GCH reqlix_get_chapters",
      "G.GR reqlix_get_requirements",
      "G.GRQ reqlix_get_requirement",
      "G.IR reqlix_insert_requirement",
      "G.UR reqlix_update_requirement",
    ]);
    expect(local.categories[1]?.chapters.map((c) => c.key)).toEqual(["T.U", "T.E"]);
    expect(local.requirements.size).toBe(50 + 3);
  });

  it("reads every title and text exactly as reqlix_get_requirement returns them", async () => {
    const local = await readLocalProject(project.root, {});
    const indices = [...local.requirements.values()].map((r) => r.index);
    const { requirements, errors } = await getRequirementsByIndex(project.root, {}, indices);
    expect(errors).toEqual([]);
    for (const r of requirements) {
      const mine = local.requirements.get(r.index);
      expect({ title: mine?.title, text: mine?.text, chapter: mine?.chapter }).toEqual({
        title: r.title,
        text: r.text,
        chapter: r.chapter,
      });
    }
    // The revision line is reqlix's, not text: stripped, and kept as the local revision.
    const failing = local.requirements.get("T.U.2");
    expect(failing?.text).toBe("A bug fix starts with a test that fails without the fix.");
    expect(failing?.localRevision).toBe(3);
    expect(local.requirements.get("T.E.1")?.text).toBe(
      "```sh\n# not a chapter: a comment in a code block\nnode dist/reqlix-mcp.js\n```",
    );
  });
});
