/** external_id (issue 15): set and cleared by the create/update tools, validated, unique per kind, shown when set. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, fails, type Harness, ok } from "./harness.js";

let h: Harness;
let editor: Client;
let story: string;

beforeAll(async () => {
  h = await createHarness();
  editor = await h.connect(await h.member("erin", "editor"));
  const epic = await ok<{ reference_id: string }>(editor, "create_epic", {
    title: "Interchange",
    external_id: "  DOORS-EP-1 ",
  });
  expect(epic).toMatchObject({ external_id: "DOORS-EP-1" });
  story = (
    await ok<{ reference_id: string }>(editor, "create_user_story", {
      epic_id: epic.reference_id,
      title: "S",
    })
  ).reference_id;
});
afterAll(async () => h?.close());

describe("external_id", () => {
  test("create and update set it, get shows it, null clears it; absent when unset", async () => {
    const req = await ok<Record<string, unknown>>(editor, "create_requirement", {
      user_story_id: story,
      title: "Keeps ids",
      type: "Functional",
      priority: 2,
      external_id: "REQ-IDX-7",
    });
    expect(req.external_id).toBe("REQ-IDX-7");
    const read = await editor.readResource({ uri: `requirement://${req.reference_id}` });
    expect(JSON.stringify(read.contents[0])).toContain("- External id: REQ-IDX-7");
    const changed = await ok<Record<string, unknown>>(editor, "update_requirement", {
      requirement_id: req.reference_id,
      external_id: "REQ-IDX-8",
    });
    expect(changed.external_id).toBe("REQ-IDX-8");
    expect(changed.revision).toBe(2);
    const cleared = await ok<Record<string, unknown>>(editor, "update_requirement", {
      requirement_id: req.reference_id,
      external_id: null,
    });
    expect(cleared).not.toHaveProperty("external_id");
    const ac = await ok<Record<string, unknown>>(editor, "create_acceptance_criteria", {
      user_story_id: story,
      description: "Given x then y",
    });
    expect(ac).not.toHaveProperty("external_id");
    expect(ac).not.toHaveProperty("attributes");
    const acSet = await ok<Record<string, unknown>>(editor, "update_acceptance_criteria", {
      acceptance_criteria_id: ac.reference_id,
      external_id: "AC-X",
    });
    expect(acSet.external_id).toBe("AC-X");
  });

  test("unique per kind in the workspace: a second item with the same id is a conflict naming the first", async () => {
    await ok(editor, "create_requirement", {
      user_story_id: story,
      title: "First",
      type: "Functional",
      priority: 2,
      external_id: "DUP-1",
    });
    const refused = await fails(editor, "create_requirement", {
      user_story_id: story,
      title: "Second",
      type: "Functional",
      priority: 2,
      external_id: "DUP-1",
    });
    expect(refused).toMatch(/REQ-\d+ already has external id "DUP-1"/);
    // Another kind may carry the same foreign id.
    const ac = await ok<Record<string, unknown>>(editor, "create_acceptance_criteria", {
      user_story_id: story,
      description: "Given DUP",
      external_id: "DUP-1",
    });
    expect(ac.external_id).toBe("DUP-1");
  });

  test("validated: control characters, empty and over 200 characters are refused naming the field", async () => {
    for (const bad of ["a\u0007b", "   ", "x".repeat(201)]) {
      const refused = await fails(editor, "create_epic", { title: `Bad ${bad.length}`, external_id: bad });
      expect(refused).toContain("external_id");
    }
  });
});
