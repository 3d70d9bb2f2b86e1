/** Change control, suspect links: a change to either end makes a link suspect until it is confirmed. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createHarness, fails, type Harness, ok } from "./harness.js";

type Link = {
  source_requirement_id: string;
  target_requirement_id: string;
  suspect: boolean;
  revision: number;
};
type Suspects = { relationships: (Link & { changed: string[] })[]; trace_citations: unknown[] };

let h: Harness;
let editor: Client;
let viewer: Client;

beforeAll(async () => {
  h = await createHarness();
  editor = await h.connect(await h.member("carol", "editor"));
  viewer = await h.connect(await h.member("vic", "viewer"));
  for (const title of ["One", "Two"]) {
    const epic = await ok<{ reference_id: string }>(editor, "create_epic", { title });
    await ok(editor, "create_user_story", { epic_id: epic.reference_id, title: `${title} story` });
  }
  // REQ-001, REQ-002 in EP-001; REQ-003 in EP-002.
  for (const [story, title] of [
    ["US-001", "A"],
    ["US-001", "B"],
    ["US-002", "C"],
  ] as const) {
    await ok(editor, "create_requirement", { user_story_id: story, title, type: "Functional", priority: 2 });
  }
  await ok(editor, "create_relationship", {
    source_requirement_id: "REQ-001",
    target_requirement_id: "REQ-002",
    relationship_type: "depends_on",
  });
  await ok(editor, "create_relationship", {
    source_requirement_id: "REQ-003",
    target_requirement_id: "REQ-001",
    relationship_type: "relates_to",
  });
});
afterAll(async () => h.close());

const links = async (id: string) =>
  (
    await ok<{ relationships: { outgoing: Link[]; incoming: Link[] } }>(viewer, "get_requirement", {
      requirement_id: id,
    })
  ).relationships;

test("new links are not suspect; a change to an end makes every link of it suspect, both ways", async () => {
  expect((await ok<Suspects>(viewer, "list_suspect_links")).relationships).toEqual([]);
  expect((await links("REQ-001")).outgoing[0]).toMatchObject({ suspect: false, revision: 1 });

  await ok(editor, "update_requirement", { requirement_id: "REQ-002", description: "Now stricter." });
  const fromSource = await links("REQ-001");
  expect(fromSource.outgoing[0]).toMatchObject({ target_requirement_id: "REQ-002", suspect: true });
  expect(fromSource.incoming[0]).toMatchObject({ source_requirement_id: "REQ-003", suspect: false });
  expect((await links("REQ-002")).incoming[0]).toMatchObject({
    source_requirement_id: "REQ-001",
    suspect: true,
  });

  const all = await ok<Suspects>(viewer, "list_suspect_links");
  expect(all.relationships).toEqual([
    {
      source_requirement_id: "REQ-001",
      target_requirement_id: "REQ-002",
      relationship_type: "depends_on",
      source_revision: 1,
      source_revision_now: 1,
      target_revision: 1,
      target_revision_now: 2,
      changed: ["target"],
    },
  ]);
  expect(all.trace_citations).toEqual([]);
  const md = await viewer.readResource({ uri: "requirement://REQ-001" });
  expect((md.contents[0] as { text: string }).text).toContain("depends_on → REQ-002 (suspect");

  // A move of the shared end makes the other link suspect too; the epic filter takes either end.
  await ok(editor, "update_requirement", { requirement_id: "REQ-001", user_story_id: "US-002" });
  const inTwo = await ok<Suspects>(viewer, "list_suspect_links", { epic_id: "EP-002" });
  expect(inTwo.relationships.map((l) => [l.source_requirement_id, l.changed])).toEqual([
    ["REQ-001", ["source", "target"]],
    ["REQ-003", ["target"]],
  ]);
  expect(await fails(viewer, "list_suspect_links", { epic_id: "EP-009" })).toMatch(/Epic not found/);
});

test("confirm_relationship clears the suspicion, is audited in both histories, and viewers cannot confirm", async () => {
  const key = {
    source_requirement_id: "REQ-001",
    target_requirement_id: "REQ-002",
    relationship_type: "depends_on",
  };
  expect(await fails(viewer, "confirm_relationship", key)).toMatch(/^Forbidden/);
  const confirmed = await ok<Link & { source_revision: number; target_revision: number }>(
    editor,
    "confirm_relationship",
    { ...key, change_note: "Still holds after the tightening" },
  );
  expect(confirmed).toMatchObject({ suspect: false, revision: 2, source_revision: 2, target_revision: 2 });
  const left = await ok<Suspects>(viewer, "list_suspect_links");
  expect(left.relationships.map((l) => l.source_requirement_id)).toEqual(["REQ-003"]);
  for (const end of ["REQ-001", "REQ-002"]) {
    const history = await ok<{
      items: { reference_id: string; op: string; tool: string; change_note: string }[];
    }>(viewer, "get_history", { id: end });
    expect(history.items[0]).toMatchObject({
      reference_id: "REQ-001 depends_on REQ-002",
      op: "update",
      tool: "confirm_relationship",
      change_note: "Still holds after the tightening",
    });
  }
  expect(await fails(editor, "confirm_relationship", { ...key, relationship_type: "blocks" })).toMatch(
    /No relationship REQ-001 blocks REQ-002/,
  );
});
