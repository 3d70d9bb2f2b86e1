/**
 * An export reads one snapshot (issue 15): a write committed while an export streams is entirely in the
 * document or entirely absent. The export is paused after its epics and stories are written and before
 * its requirements are read; a write then creates an epic, a story in it and a requirement in that story,
 * renames a requirement and deletes one; the document must be the one an export before the write gives.
 * Read page by page without one snapshot, it held a requirement whose story it did not hold (a torn
 * document that cannot be imported).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/client.js";
import { deleteRequirement } from "../../src/db/deletes.repo.js";
import { createEpic } from "../../src/db/epics.repo.js";
import { type InterchangeCaller, prepareExport } from "../../src/db/interchange-ops.js";
import { createRequirement, updateRequirement } from "../../src/db/requirements.repo.js";
import { createUserStory } from "../../src/db/user-stories.repo.js";
import { openInterchangeDatabase } from "../helpers/interchange-db.js";

const dir = mkdtempSync(join(tmpdir(), "reqlix-export-snapshot-"));
let database: Database;
let caller: InterchangeCaller;
const actor = { userId: 1, now: new Date("2026-11-25T10:00:00.000Z") };
/** More requirements than one page of the export's reads (1,000). */
const REQUIREMENTS = 1200;

beforeAll(async () => {
  // A file: the export's read transaction and the writer use two connections, as on a server.
  ({ database, caller } = await openInterchangeDatabase(join(dir, "snapshot.db"), actor.now));
  const ws = caller.workspaceId;
  await database.write(async (tx) => {
    const epic = await createEpic(tx, ws, { title: "Epic" }, actor);
    const story = await createUserStory(tx, ws, { epic_id: epic.reference_id, title: "Story" }, actor);
    for (let i = 1; i <= REQUIREMENTS; i++) {
      await createRequirement(
        tx,
        ws,
        { user_story_id: story.reference_id, title: `Requirement ${i}`, type: "Functional", priority: 3 },
        actor,
      );
    }
  });
});
afterAll(async () => {
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The export as text; `during` runs once, when the export has written its stories and not yet read its requirements. */
async function exportJson(during?: () => Promise<void>): Promise<string> {
  const prepared = await prepareExport(database, caller, { format: "json" });
  const chunks: string[] = [];
  let paused = false;
  await prepared.run({
    async write(chunk) {
      const text = String(chunk);
      if (during && !paused && text.includes('"requirements":[')) {
        paused = true;
        await during();
      }
      chunks.push(text);
    },
  });
  expect(paused).toBe(during !== undefined);
  return chunks.join("");
}

describe("export snapshot", () => {
  it("a write committed while the export streams is not in the document, and no list is torn", async () => {
    const before = await exportJson();
    const during = await exportJson(async () => {
      await database.write(async (tx) => {
        const ws = caller.workspaceId;
        const epic = await createEpic(tx, ws, { title: "Late epic" }, actor);
        const story = await createUserStory(
          tx,
          ws,
          { epic_id: epic.reference_id, title: "Late story" },
          actor,
        );
        await createRequirement(
          tx,
          ws,
          { user_story_id: story.reference_id, title: "Late requirement", type: "Functional", priority: 1 },
          actor,
        );
        await updateRequirement(tx, ws, "REQ-1100", { title: "Renamed meanwhile" }, actor);
        await deleteRequirement(tx, ws, "REQ-1050", false, actor);
      });
    });
    const doc = JSON.parse(during) as {
      user_stories: { reference_id: string }[];
      requirements: { reference_id: string; user_story: string; title: string }[];
    };
    const stories = new Set(doc.user_stories.map((s) => s.reference_id));
    expect(doc.requirements.filter((r) => !stories.has(r.user_story))).toEqual([]);
    expect(doc.requirements).toHaveLength(REQUIREMENTS);
    expect(doc.requirements.find((r) => r.reference_id === "REQ-1100")?.title).toBe("Requirement 1100");
    expect(during).toBe(before);
    // The write did commit: the next export has it.
    const after = JSON.parse(await exportJson()) as typeof doc;
    expect(after.requirements.map((r) => r.title)).toContain("Late requirement");
    expect(after.requirements.map((r) => r.reference_id)).not.toContain("REQ-1050");
  });

  it("an unknown epic is not_found before anything streams, and its snapshot is released", async () => {
    await expect(prepareExport(database, caller, { format: "json", epic: "EP-999" })).rejects.toThrow(
      /EP-999/,
    );
    // Nothing is left holding a connection: a write and another export still run.
    await database.write(async (tx) => {
      await createEpic(tx, caller.workspaceId, { title: "After the refusal" }, actor);
    });
    expect(await exportJson()).toContain("After the refusal");
  });
});
