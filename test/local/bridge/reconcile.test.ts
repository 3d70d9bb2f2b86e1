/**
 * The three-way classification over real files: the hosted side is a document as the export API writes it
 * (data, built here), the base is a sync state.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type LocalProject, readLocalProject } from "../../../src/local/bridge/local-project.js";
import { type BridgeDocument, contentHash, type RequirementDoc } from "../../../src/local/bridge/mapping.js";
import { nextRequirementsState, reconcile } from "../../../src/local/bridge/reconcile.js";
import { emptyTarget, type TargetState } from "../../../src/local/bridge/sync-state.js";
import { makeProject, type ProjectFixture } from "./project-fixture.js";

let project: ProjectFixture;
let local: LocalProject;
beforeEach(async () => {
  project = await makeProject();
  local = await readLocalProject(project.root, {});
});
afterEach(async () => {
  await project.cleanup();
});

/** The workspace as a push of `local` would leave it: one epic per category, one story per chapter. */
function mirrored(): { doc: BridgeDocument; state: TargetState } {
  const doc: BridgeDocument = {
    format: "reqlix-export",
    version: 1,
    epics: [],
    user_stories: [],
    requirements: [],
  };
  const state = emptyTarget("http://h", "default");
  let n = 0;
  for (const [ci, c] of local.categories.entries()) {
    doc.epics.push({ reference_id: `EP-00${ci + 1}`, external_id: c.prefix, title: c.name });
    for (const ch of c.chapters) {
      const story = `US-${String(doc.user_stories.length + 1).padStart(3, "0")}`;
      doc.user_stories.push({
        reference_id: story,
        external_id: ch.key,
        title: ch.name,
        epic: `EP-00${ci + 1}`,
      });
      for (const r of ch.requirements) {
        const ref = `REQ-${String(++n).padStart(3, "0")}`;
        doc.requirements.push({
          reference_id: ref,
          external_id: r.index,
          title: r.title,
          description: r.text,
          user_story: story,
          status: "Draft",
          type: "Functional",
          revision: 1,
        });
        state.requirements[r.index.toUpperCase()] = {
          reference_id: ref,
          hash: contentHash(r.title, r.text),
          hosted_revision: 1,
        };
      }
    }
  }
  return { doc, state };
}

function hostedOf(doc: BridgeDocument, index: string): RequirementDoc {
  const r = doc.requirements.find((x) => x.external_id === index);
  if (!r) throw new Error(index);
  return r;
}

describe("reconcile", () => {
  it("finds nothing to do right after a sync", () => {
    const { doc, state } = mirrored();
    const rec = reconcile(local, doc, state);
    expect(rec.items).toHaveLength(53);
    expect(rec.items.every((i) => i.change === "none")).toBe(true);
    expect(rec.targetOfStory.size).toBe(13);
    expect(nextRequirementsState(rec.items)).toEqual(state.requirements);
  });

  it("pairs by external id when there is no state, and tells each side's change apart", () => {
    const { doc } = mirrored();
    hostedOf(doc, "G.G.1").description = "Changed in the workspace.";
    hostedOf(doc, "G.G.2").status = "Obsolete";
    const first = reconcile(local, doc, emptyTarget("http://h", "default"));
    const byIndex = new Map(first.items.map((i) => [i.local?.index, i.change]));
    // Without a last sync, equal sides converge and different ones conflict.
    expect(byIndex.get("G.P.1")).toBe("converged");
    expect(byIndex.get("G.G.1")).toBe("conflict");
    expect(byIndex.get("G.G.2")).toBe("local"); // an Obsolete one is not paired: the local one is new
  });

  it("classifies local, hosted, converged and conflicting changes against the last sync", () => {
    const { doc, state } = mirrored();
    const hosted = (i: string) => hostedOf(doc, i);
    hosted("G.G.1").description = "Hosted only.";
    hosted("G.G.2").status = "Obsolete";
    hosted("G.P.1").title = "Both, differently";
    hosted("G.P.2").title = "Both, the same";
    const edit = (i: string, f: Partial<{ title: string; text: string }>) =>
      Object.assign(local.requirements.get(i) as object, f);
    edit("G.P.1", { title: "Both, but not the same" });
    edit("G.P.2", { title: "Both, the same" });
    edit("T.U.1", { text: "Local only." });
    local.requirements.delete("T.E.1");
    doc.requirements.push({
      reference_id: "REQ-900",
      title: "New in the workspace",
      description: "Made by a teammate.",
      user_story: hosted("T.U.1").user_story,
      status: "Draft",
      type: "Functional",
    });
    const rec = reconcile(local, doc, state);
    const change = (key: string) =>
      rec.items.find((i) => (i.local?.index ?? i.key ?? i.hosted?.reference_id) === key)?.change;
    expect(change("G.G.1")).toBe("hosted");
    expect(change("G.G.2")).toBe("hosted");
    expect(change("G.P.1")).toBe("conflict");
    expect(change("G.P.2")).toBe("converged");
    expect(change("T.U.1")).toBe("local");
    expect(change("T.E.1")).toBe("local");
    expect(change("REQ-900")).toBe("hosted");
    const next = nextRequirementsState(rec.items);
    // Agreed now → remembered with the new content; pending or conflicting → the old agreement stays.
    expect(next["G.P.2"]?.hash).toBe(
      contentHash("Both, the same", local.requirements.get("G.P.2")?.text ?? ""),
    );
    expect(next["G.P.1"]).toEqual(state.requirements["G.P.1"]);
    expect(next["T.U.1"]).toEqual(state.requirements["T.U.1"]);
    expect(next["T.E.1"]).toEqual(state.requirements["T.E.1"]);
  });
});
