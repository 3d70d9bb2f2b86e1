/**
 * The graph layout (src/web/client/graph-layout.ts) over real graphs: read with get_epic_graph from a real
 * migrated libSQL database, as the graph page gets them, then laid out by dagre.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { EpicGraph } from "../../src/db/epic-graph.repo.js";
import {
  type GraphLayout,
  layoutGraph,
  NODE_HEIGHT,
  NODE_WIDTH,
  type PlacedNode,
  type Point,
} from "../../src/web/client/graph-layout.js";
import { createHarness, type Harness, ok } from "../hosted/harness.js";

let h: Harness;
let graph: EpicGraph;

/** The layout input the page builds: nodes by reference id, one edge per relationship. */
function input(g: EpicGraph) {
  return {
    nodes: g.nodes.map((n) => ({ id: n.reference_id })),
    edges: g.edges.map((e, i) => ({
      id: `e${i}`,
      source: e.source_requirement_id,
      target: e.target_requirement_id,
    })),
  };
}

const overlaps = (a: PlacedNode, b: PlacedNode) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** On the border of the node's box (dagre ends each edge where it meets the box), within rounding. */
function onBorder(p: Point, n: PlacedNode): boolean {
  const e = 0.5;
  const inside = p.x >= n.x - e && p.x <= n.x + n.width + e && p.y >= n.y - e && p.y <= n.y + n.height + e;
  const edge =
    Math.abs(p.x - n.x) < e ||
    Math.abs(p.x - (n.x + n.width)) < e ||
    Math.abs(p.y - n.y) < e ||
    Math.abs(p.y - (n.y + n.height)) < e;
  return inside && edge;
}

function checkGeometry(layout: GraphLayout, ids: string[], edgeCount: number) {
  expect(layout.nodes.map((n) => n.id)).toEqual(ids);
  for (const n of layout.nodes) {
    expect([n.width, n.height]).toEqual([NODE_WIDTH, NODE_HEIGHT]);
    expect(n.x).toBeGreaterThanOrEqual(0);
    expect(n.y).toBeGreaterThanOrEqual(0);
    expect(n.x + n.width).toBeLessThanOrEqual(layout.width);
    expect(n.y + n.height).toBeLessThanOrEqual(layout.height);
  }
  for (let i = 0; i < layout.nodes.length; i++) {
    for (let j = i + 1; j < layout.nodes.length; j++) {
      const [a, b] = [layout.nodes[i] as PlacedNode, layout.nodes[j] as PlacedNode];
      expect(overlaps(a, b), `${a.id} overlaps ${b.id}`).toBe(false);
    }
  }
  const byId = new Map(layout.nodes.map((n) => [n.id, n]));
  expect(layout.edges).toHaveLength(edgeCount);
  for (const e of layout.edges) {
    expect(e.points.length, e.id).toBeGreaterThanOrEqual(2);
    const [first, last] = [e.points[0] as Point, e.points.at(-1) as Point];
    expect(onBorder(first, byId.get(e.source) as PlacedNode), `${e.id} leaves ${e.source}`).toBe(true);
    expect(onBorder(last, byId.get(e.target) as PlacedNode), `${e.id} reaches ${e.target}`).toBe(true);
    for (const p of e.points) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(layout.width);
      expect(p.y).toBeLessThanOrEqual(layout.height);
    }
  }
}

beforeAll(async () => {
  h = await createHarness();
  const editor = await h.connect(await h.member("carol", "editor"));
  await ok(editor, "create_epic", { title: "Checkout" }); // EP-001
  await ok(editor, "create_epic", { title: "Accounts" }); // EP-002
  for (const [epic, story] of [
    ["EP-001", "Pay"],
    ["EP-001", "Refund"],
    ["EP-001", "Invoices"],
    ["EP-002", "Sign up"],
  ]) {
    await ok(editor, "create_user_story", { epic_id: epic, title: story });
  }
  // 8 requirements per story of EP-001 (REQ-001..024), 2 in EP-002 (REQ-025, REQ-026).
  for (let story = 1; story <= 4; story++) {
    for (let i = 1; i <= (story === 4 ? 2 : 8); i++) {
      await ok(editor, "create_requirement", {
        user_story_id: `US-00${story}`,
        title: `Requirement ${story}.${i}`,
        type: "Functional",
        priority: 1 + (i % 4),
      });
    }
  }
  const req = (n: number) => `REQ-${String(n).padStart(3, "0")}`;
  // Chains inside each story, a cycle, two links between one pair, links across stories and epics; REQ-008,
  // REQ-016 and REQ-024 stay unrelated.
  const links: [number, number, string][] = [];
  for (const base of [0, 8, 16]) {
    for (let i = 1; i <= 6; i++) links.push([base + i, base + i + 1, "depends_on"]);
  }
  links.push([7, 1, "relates_to"], [1, 2, "relates_to"], [3, 11, "derives_from"], [12, 19, "blocks"]);
  links.push([20, 25, "depends_on"], [26, 5, "conflicts_with"]);
  for (const [source, target, type] of links) {
    await ok(editor, "create_relationship", {
      source_requirement_id: req(source),
      target_requirement_id: req(target),
      relationship_type: type,
    });
  }
  await ok(editor, "update_requirement", { requirement_id: "REQ-002", description: "Changed." });
  graph = await ok<EpicGraph>(editor, "get_epic_graph", { epic_id: "EP-001" });
});
afterAll(async () => h.close());

describe("layoutGraph", () => {
  test("places every node of a real epic once, without overlaps, and routes every edge border to border", () => {
    expect(graph.nodes).toHaveLength(26); // 24 of the epic, 2 external
    expect(graph.edges).toHaveLength(24);
    expect(graph.edges.filter((e) => e.suspect)).toHaveLength(3); // REQ-001 → REQ-002 twice, REQ-002 → REQ-003
    const { nodes, edges } = input(graph);
    const layout = layoutGraph(nodes, edges);
    checkGeometry(
      layout,
      nodes.map((n) => n.id),
      edges.length,
    );
  });

  test("relationships run left to right; unrelated requirements sit in a grid below the related ones", () => {
    const { nodes, edges } = input(graph);
    const layout = layoutGraph(nodes, edges);
    const at = new Map(layout.nodes.map((n) => [n.id, n]));
    // A chain without a cycle is laid out in rank order: each target to the right of its source.
    for (let i = 17; i <= 22; i++) {
      const source = at.get(`REQ-0${i}`) as PlacedNode;
      const target = at.get(`REQ-0${i + 1}`) as PlacedNode;
      expect(target.x, `REQ-0${i} → REQ-0${i + 1}`).toBeGreaterThan(source.x + source.width);
    }
    const related = layout.nodes.filter((n) => !["REQ-008", "REQ-016", "REQ-024"].includes(n.id));
    const bottom = Math.max(...related.map((n) => n.y + n.height));
    const unrelated = ["REQ-008", "REQ-016", "REQ-024"].map((id) => at.get(id) as PlacedNode);
    for (const n of unrelated) expect(n.y).toBeGreaterThan(bottom);
    expect(unrelated.map((n) => n.y)).toEqual([unrelated[0]?.y, unrelated[0]?.y, unrelated[0]?.y]);
    expect(unrelated.map((n) => n.x)).toEqual([...unrelated.map((n) => n.x)].sort((a, b) => a - b));
  });

  test("is deterministic: the same graph gives the same layout", () => {
    const { nodes, edges } = input(graph);
    expect(layoutGraph(nodes, edges)).toEqual(layoutGraph(nodes, edges));
  });

  test("a truncated graph, an empty one and a graph without edges lay out too", async () => {
    const viewer = await h.connect(await h.member("vic", "viewer"));
    const part = await ok<EpicGraph>(viewer, "get_epic_graph", { epic_id: "EP-001", limit: 10 });
    expect(part.truncated).toBe(true);
    const { nodes, edges } = input(part);
    checkGeometry(
      layoutGraph(nodes, edges),
      nodes.map((n) => n.id),
      edges.length,
    );
    expect(layoutGraph([], [])).toEqual({ width: 32, height: 32, nodes: [], edges: [] });
    const grid = layoutGraph(
      nodes.map((n) => ({ id: n.id })),
      [],
    );
    checkGeometry(
      grid,
      nodes.map((n) => n.id),
      0,
    );
  });

  test("a large component (past the sweep limit) still lays out without overlaps", () => {
    const n = 200;
    const nodes = Array.from({ length: n }, (_, i) => ({ id: `N${i}` }));
    const edges = Array.from({ length: n - 1 }, (_, i) => ({
      id: `e${i}`,
      source: `N${Math.floor(i / 3)}`,
      target: `N${i + 1}`,
    }));
    checkGeometry(
      layoutGraph(nodes, edges),
      nodes.map((x) => x.id),
      edges.length,
    );
  });

  test("refuses duplicate node ids and edges whose ends are not nodes", () => {
    expect(() => layoutGraph([{ id: "A" }, { id: "A" }], [])).toThrow(/unique/);
    expect(() => layoutGraph([{ id: "A" }], [{ id: "e", source: "A", target: "B" }])).toThrow(
      /edge e has an end that is not a node \(A → B\)/,
    );
  });
});
