/**
 * Lays out an epic's traceability graph (issue 13) with dagre, the layered layout of directed graphs:
 * relationships read source → target, left to right. Pure and DOM-free, so the browser (graph.ts) and the
 * unit tests run the same code.
 *
 * Why not one dagre call: dagre's crossing reduction and node placement grow faster than linearly with the
 * graph (500 random nodes took seconds), and most of an epic's requirements are related to few others. So
 * each connected component is laid out on its own, large components skip dagre's repeated ordering sweeps,
 * components are packed on shelves, and unrelated requirements go in a grid below in the order given.
 */
import { graphlib, layout } from "@dagrejs/dagre";

export interface LayoutNode {
  id: string;
}

export interface LayoutEdge {
  /** Unique among the edges (two requirements may be linked by several relationship types). */
  id: string;
  source: string;
  target: string;
}

export interface Point {
  x: number;
  y: number;
}

export interface PlacedNode {
  id: string;
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge {
  id: string;
  source: string;
  target: string;
  /** From the source's border to the target's border. */
  points: Point[];
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

export const NODE_WIDTH = 184;
export const NODE_HEIGHT = 40;
const GAP = 24;
const MARGIN = 16;
/** Above this many nodes a component keeps dagre's first ordering instead of sweeping for fewer crossings. */
export const SWEEP_LIMIT = 120;

interface Block {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

/** Connected components (edges taken undirected), each in input order; single nodes are their own. */
function components(nodes: LayoutNode[], edges: LayoutEdge[]): string[][] {
  const parent = new Map(nodes.map((n) => [n.id, n.id]));
  const find = (id: string): string => {
    let root = id;
    while (parent.get(root) !== root) root = parent.get(root) as string;
    for (let at = id; at !== root; ) {
      const next = parent.get(at) as string;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  for (const e of edges) parent.set(find(e.source), find(e.target));
  const groups = new Map<string, string[]>();
  for (const n of nodes) {
    const root = find(n.id);
    const group = groups.get(root);
    if (group) group.push(n.id);
    else groups.set(root, [n.id]);
  }
  return [...groups.values()];
}

function layoutComponent(ids: string[], edges: LayoutEdge[]): Block {
  const g = new graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 14, ranksep: 56, edgesep: 8, marginx: 0, marginy: 0 });
  for (const id of ids) g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of edges) g.setEdge(e.source, e.target, {}, e.id);
  layout(g, { disableOptimalOrderHeuristic: ids.length > SWEEP_LIMIT });
  const nodes = ids.map((id) => {
    const n = g.node(id);
    return {
      id,
      x: (n.x ?? 0) - NODE_WIDTH / 2,
      y: (n.y ?? 0) - NODE_HEIGHT / 2,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
    };
  });
  const placed = edges.map((e) => {
    const label = g.edge(e.source, e.target, e.id);
    return {
      id: e.id,
      source: e.source,
      target: e.target,
      points: (label?.points ?? []).map((p: Point) => ({ x: p.x, y: p.y })),
    };
  });
  const graph = g.graph();
  return { width: graph.width ?? NODE_WIDTH, height: graph.height ?? NODE_HEIGHT, nodes, edges: placed };
}

function moved(block: Block, dx: number, dy: number): Block {
  return {
    ...block,
    nodes: block.nodes.map((n) => ({ ...n, x: n.x + dx, y: n.y + dy })),
    edges: block.edges.map((e) => ({ ...e, points: e.points.map((p) => ({ x: p.x + dx, y: p.y + dy })) })),
  };
}

/**
 * Positions every node (top-left corner, fixed size) and routes every edge; deterministic for the same
 * input. Edges whose ends are not both among `nodes` are refused: the caller filters them first.
 */
export function layoutGraph(nodes: LayoutNode[], edges: LayoutEdge[]): GraphLayout {
  const known = new Set(nodes.map((n) => n.id));
  if (known.size !== nodes.length) throw new Error("layoutGraph: node ids must be unique");
  for (const e of edges) {
    if (!known.has(e.source) || !known.has(e.target)) {
      throw new Error(`layoutGraph: edge ${e.id} has an end that is not a node (${e.source} → ${e.target})`);
    }
  }
  const edgesOf = new Map<string, LayoutEdge[]>();
  const groups = components(nodes, edges);
  const rootOf = new Map<string, number>();
  groups.forEach((ids, i) => {
    for (const id of ids) rootOf.set(id, i);
  });
  for (const e of edges) {
    const key = String(rootOf.get(e.source));
    const list = edgesOf.get(key);
    if (list) list.push(e);
    else edgesOf.set(key, [e]);
  }
  const connected: Block[] = [];
  const single: string[] = [];
  groups.forEach((ids, i) => {
    if (ids.length === 1 && !edgesOf.has(String(i))) single.push(ids[0] as string);
    else connected.push(layoutComponent(ids, edgesOf.get(String(i)) ?? []));
  });

  // Shelves: tallest components first, rows no wider than the widest component or a near-square area.
  const area = connected.reduce((sum, b) => sum + (b.width + GAP) * (b.height + GAP), 0);
  const gridColumns = Math.max(1, Math.ceil(Math.sqrt(single.length * 2)));
  const gridWidth = gridColumns * (NODE_WIDTH + GAP);
  const rowWidth = Math.max(Math.sqrt(area) * 1.4, gridWidth, ...connected.map((b) => b.width));
  const placed: Block[] = [];
  let x = MARGIN;
  let y = MARGIN;
  let shelf = 0;
  let width = MARGIN;
  for (const block of [...connected].sort((a, b) => b.height - a.height || b.width - a.width)) {
    if (x > MARGIN && x + block.width > rowWidth + MARGIN) {
      x = MARGIN;
      y += shelf + GAP;
      shelf = 0;
    }
    placed.push(moved(block, x, y));
    x += block.width + GAP;
    width = Math.max(width, x - GAP);
    shelf = Math.max(shelf, block.height);
  }
  if (connected.length > 0) y += shelf + GAP * 2;
  const columns = Math.max(
    1,
    Math.min(single.length, Math.floor((Math.max(rowWidth, width) + GAP) / (NODE_WIDTH + GAP))),
  );
  const grid: PlacedNode[] = single.map((id, i) => ({
    id,
    x: MARGIN + (i % columns) * (NODE_WIDTH + GAP),
    y: y + Math.floor(i / columns) * (NODE_HEIGHT + GAP / 2),
    width: NODE_WIDTH,
    height: NODE_HEIGHT,
  }));
  if (grid.length > 0) {
    width = Math.max(width, MARGIN + columns * (NODE_WIDTH + GAP) - GAP);
    y += Math.ceil(grid.length / columns) * (NODE_HEIGHT + GAP / 2);
  } else if (connected.length > 0) {
    y -= GAP * 2;
  }
  const order = new Map(nodes.map((n, i) => [n.id, i]));
  const all = [...placed.flatMap((b) => b.nodes), ...grid].sort(
    (a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0),
  );
  const edgeOrder = new Map(edges.map((e, i) => [e.id, i]));
  const routed = placed
    .flatMap((b) => b.edges)
    .sort((a, b) => (edgeOrder.get(a.id) ?? 0) - (edgeOrder.get(b.id) ?? 0));
  return { width: Math.ceil(width + MARGIN), height: Math.ceil(y + MARGIN), nodes: all, edges: routed };
}
