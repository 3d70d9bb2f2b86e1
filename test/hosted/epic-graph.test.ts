/** get_epic_graph: an epic's requirements, the relationships touching them, suspect ones marked, far ends. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { EpicGraph } from "../../src/db/epic-graph.repo.js";
import { createHarness, fails, type Harness, ok } from "./harness.js";

type Graph = EpicGraph & { epic_id: string; title: string };

let h: Harness;
let editor: Client;
let viewer: Client;
let stranger: Client;

const link = (source: string, target: string, type: string) =>
  ok(editor, "create_relationship", {
    source_requirement_id: source,
    target_requirement_id: target,
    relationship_type: type,
  });

beforeAll(async () => {
  h = await createHarness();
  editor = await h.connect(await h.member("carol", "editor"));
  viewer = await h.connect(await h.member("vic", "viewer"));
  stranger = await h.connect(await h.member("sam", "admin", "other"));
  await ok(editor, "create_epic", { title: "Checkout" }); // EP-001
  await ok(editor, "create_epic", { title: "Accounts" }); // EP-002
  await ok(editor, "create_user_story", { epic_id: "EP-001", title: "Pay" }); // US-001
  await ok(editor, "create_user_story", { epic_id: "EP-001", title: "Refund" }); // US-002
  await ok(editor, "create_user_story", { epic_id: "EP-002", title: "Sign up" }); // US-003
  // REQ-001..003 in US-001, REQ-004 in US-002, REQ-005 in US-003 (EP-002), REQ-006 in US-002 (unrelated).
  for (const [story, title] of [
    ["US-001", "Card payment"],
    ["US-001", "3-D Secure <script>"],
    ["US-001", "Receipt"],
    ["US-002", "Refund to card"],
    ["US-003", "Account exists"],
    ["US-002", "Refund audit"],
  ] as const) {
    await ok(editor, "create_requirement", { user_story_id: story, title, type: "Functional", priority: 2 });
  }
  await link("REQ-001", "REQ-002", "depends_on");
  await link("REQ-001", "REQ-002", "relates_to");
  await link("REQ-004", "REQ-001", "derives_from");
  await link("REQ-001", "REQ-005", "depends_on");
  await link("REQ-005", "REQ-003", "blocks");
  await ok(editor, "update_requirement", { requirement_id: "REQ-002", description: "Stricter now." });
});
afterAll(async () => h.close());

test("nodes in story order with external far ends, typed directed edges, suspect ones with the ends that changed", async () => {
  const graph = await ok<Graph>(viewer, "get_epic_graph", { epic_id: "ep-001" });
  expect(graph.epic_id).toBe("EP-001");
  expect(graph.title).toBe("Checkout");
  expect(graph.nodes.map((n) => [n.reference_id, n.user_story_id, n.external])).toEqual([
    ["REQ-001", "US-001", false],
    ["REQ-002", "US-001", false],
    ["REQ-003", "US-001", false],
    ["REQ-004", "US-002", false],
    ["REQ-006", "US-002", false],
    ["REQ-005", "US-003", true],
  ]);
  expect(graph.nodes[1]).toEqual({
    reference_id: "REQ-002",
    title: "3-D Secure <script>",
    status: "Draft",
    priority: 2,
    type_name: "Functional",
    user_story_id: "US-001",
    epic_id: "EP-001",
    external: false,
  });
  expect(graph.nodes[5]).toMatchObject({ epic_id: "EP-002", title: "Account exists" });
  expect(graph.edges).toEqual([
    {
      source_requirement_id: "REQ-001",
      target_requirement_id: "REQ-002",
      relationship_type: "depends_on",
      suspect: true,
      changed: ["target"],
    },
    {
      source_requirement_id: "REQ-001",
      target_requirement_id: "REQ-002",
      relationship_type: "relates_to",
      suspect: true,
      changed: ["target"],
    },
    {
      source_requirement_id: "REQ-004",
      target_requirement_id: "REQ-001",
      relationship_type: "derives_from",
      suspect: false,
      changed: [],
    },
    {
      source_requirement_id: "REQ-001",
      target_requirement_id: "REQ-005",
      relationship_type: "depends_on",
      suspect: false,
      changed: [],
    },
    {
      source_requirement_id: "REQ-005",
      target_requirement_id: "REQ-003",
      relationship_type: "blocks",
      suspect: false,
      changed: [],
    },
  ]);
  expect(graph.total_requirements).toBe(5);
  expect(graph.truncated).toBe(false);

  // The other epic sees the same link from its side, with EP-001's requirements as its external ends.
  const other = await ok<Graph>(viewer, "get_epic_graph", { epic_id: "EP-002" });
  expect(other.nodes.map((n) => [n.reference_id, n.external])).toEqual([
    ["REQ-005", false],
    ["REQ-001", true],
    ["REQ-003", true],
  ]);
  expect(other.edges.map((e) => `${e.source_requirement_id}>${e.target_requirement_id}`)).toEqual([
    "REQ-001>REQ-005",
    "REQ-005>REQ-003",
  ]);
});

test("confirming a link clears its suspicion in the graph", async () => {
  await ok(editor, "confirm_relationship", {
    source_requirement_id: "REQ-001",
    target_requirement_id: "REQ-002",
    relationship_type: "relates_to",
  });
  const graph = await ok<Graph>(viewer, "get_epic_graph", { epic_id: "EP-001" });
  expect(graph.edges.filter((e) => e.suspect).map((e) => e.relationship_type)).toEqual(["depends_on"]);
});

test("limit keeps the first requirements in story order and drops edges to the ones left out", async () => {
  const graph = await ok<Graph>(viewer, "get_epic_graph", { epic_id: "EP-001", limit: 2 });
  expect(graph.nodes.map((n) => n.reference_id)).toEqual(["REQ-001", "REQ-002", "REQ-005"]);
  expect(
    graph.edges.map((e) => `${e.source_requirement_id} ${e.relationship_type} ${e.target_requirement_id}`),
  ).toEqual(["REQ-001 depends_on REQ-002", "REQ-001 relates_to REQ-002", "REQ-001 depends_on REQ-005"]);
  expect(graph.total_requirements).toBe(5);
  expect(graph.truncated).toBe(true);
  expect(await fails(viewer, "get_epic_graph", { epic_id: "EP-001", limit: 1001 })).toMatch(/limit/);
});

test("an empty epic is an empty graph; an unknown epic and another workspace's epic are not found", async () => {
  await ok(editor, "create_epic", { title: "Empty" }); // EP-003
  expect(await ok<Graph>(viewer, "get_epic_graph", { epic_id: "EP-003" })).toMatchObject({
    nodes: [],
    edges: [],
    total_requirements: 0,
    truncated: false,
  });
  expect(await fails(viewer, "get_epic_graph", { epic_id: "EP-099" })).toMatch(/Epic not found: EP-099/);
  expect(await fails(stranger, "get_epic_graph", { epic_id: "EP-001" })).toMatch(/Epic not found: EP-001/);
});
