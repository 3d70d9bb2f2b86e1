/**
 * Prompt review_changes carries at most 100 suspect links (as it carries at most 100 changes) and says
 * where the rest are: a workspace with more suspect links than that no longer grows the prompt without bound.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { createHarness, type Harness, ok } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(async () => h.close());

test("review_changes lists the first 100 suspect links in id order and points at list_suspect_links", async () => {
  const editor = await h.connect(await h.member("ed", "editor"));
  await ok(editor, "create_epic", { title: "E" });
  await ok(editor, "create_user_story", { epic_id: "EP-001", title: "S" });
  for (let i = 1; i <= 102; i++) {
    await ok(editor, "create_requirement", {
      user_story_id: "US-001",
      title: `R${i}`,
      type: "Functional",
      priority: 3,
    });
  }
  for (let i = 2; i <= 102; i++) {
    await ok(editor, "create_relationship", {
      source_requirement_id: `REQ-${String(i).padStart(3, "0")}`,
      target_requirement_id: "REQ-001",
      relationship_type: "depends_on",
    });
  }
  await ok(editor, "create_baseline", { name: "v1" });
  await ok(editor, "update_requirement", { requirement_id: "REQ-001", description: "changed" });
  const prompt = await editor.getPrompt({ name: "review_changes", arguments: { baseline: "v1" } });
  const text = String((prompt.messages[0]?.content as { text?: string } | undefined)?.text);
  const lines = text.split("\n").filter((l) => / depends_on REQ-001: target changed/.test(l));
  expect(lines).toHaveLength(100);
  expect(lines[0]).toMatch(/^- REQ-002 depends_on/);
  expect(lines[99]).toMatch(/^- REQ-101 depends_on/);
  expect(text).toContain("- more: the first 100 are shown; list_suspect_links pages through all of them");
}, 60_000);
