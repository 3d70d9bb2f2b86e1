/**
 * Draws the traceability graph (pages/graph.ts) from the lists the server rendered: lays it out with dagre
 * (graph-layout.ts) and builds an SVG whose nodes are links to their requirements. Pan (drag, arrow keys),
 * zoom (wheel, +/-, buttons), fit (0); hovering or focusing a node highlights it, its neighbours and its
 * edges. Every element is made with createElementNS and textContent: no markup from data is ever parsed.
 * Performance marks `graph:start`, `graph:laid-out`, `graph:drawn` and `graph:painted` time it.
 */
import { layoutGraph, NODE_HEIGHT, NODE_WIDTH, type PlacedEdge, type PlacedNode } from "./graph-layout.js";

const SVG = "http://www.w3.org/2000/svg";
const TITLE_CHARS = 24;

interface NodeData {
  id: string;
  title: string;
  status: string;
  external: string | undefined;
  href: string;
}

interface EdgeData {
  id: string;
  source: string;
  target: string;
  type: string;
  cssClass: string;
  suspect: string | undefined;
}

function el<K extends keyof SVGElementTagNameMap>(
  name: K,
  attrs: Record<string, string | number> = {},
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** appendChild for each child (the project's Workers types shadow the DOM's `Element.append`). */
function add(parent: Node, ...children: Node[]): void {
  for (const child of children) parent.appendChild(child);
}

function readNodes(root: Element): NodeData[] {
  return [...root.querySelectorAll<HTMLLIElement>("[data-graph-nodes] > li[data-id]")].map((li) => ({
    id: li.dataset.id ?? "",
    title: li.dataset.title ?? "",
    status: li.dataset.status ?? "",
    external: li.dataset.external,
    href: li.querySelector("a")?.getAttribute("href") ?? "#",
  }));
}

function readEdges(root: Element, known: Set<string>): EdgeData[] {
  return [...root.querySelectorAll<HTMLTableRowElement>("[data-graph-edges] tr[data-source]")]
    .map((tr, i) => ({
      id: `e${i}`,
      source: tr.dataset.source ?? "",
      target: tr.dataset.target ?? "",
      type: tr.dataset.type ?? "",
      cssClass: tr.dataset.class ?? "rel-other",
      suspect: tr.dataset.suspect,
    }))
    .filter((e) => known.has(e.source) && known.has(e.target));
}

function pathOf(edge: PlacedEdge): string {
  return edge.points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join("");
}

function short(text: string): string {
  const chars = [...text];
  return chars.length > TITLE_CHARS ? `${chars.slice(0, TITLE_CHARS - 1).join("")}…` : text;
}

function drawNode(n: NodeData, at: PlacedNode, degree: number): SVGAElement {
  const a = el("a", {
    href: n.href,
    class: `node status-${n.status.toLowerCase().replace(/[^a-z0-9]+/g, "-")}${n.external ? " external" : ""}`,
    transform: `translate(${at.x.toFixed(1)},${at.y.toFixed(1)})`,
    "data-id": n.id,
  });
  const where = n.external ? `, in ${n.external}` : "";
  // The name is the visible text (WCAG 2.5.3); the <title> adds the full title, status and degree.
  a.setAttribute("aria-label", `${n.id} ${short(n.title)}`);
  add(a, el("rect", { width: NODE_WIDTH, height: NODE_HEIGHT, rx: 5 }));
  // One <text>, two lines, a space between: its visible text is exactly the accessible name.
  const text = el("text");
  const ref = el("tspan", { x: 8, y: 16, class: "node-ref" });
  ref.textContent = n.id;
  const title = el("tspan", { x: 8, y: 32, class: "node-title" });
  title.textContent = short(n.title);
  add(text, ref, document.createTextNode(" "), title);
  const tip = el("title");
  tip.textContent = `${n.id} ${n.title} (${n.status}${where}, ${degree} relationships)`;
  add(a, tip, text);
  return a;
}

function drawEdge(e: EdgeData, placed: PlacedEdge): SVGGElement {
  const g = el("g", { class: `edge ${e.cssClass}${e.suspect ? " suspect" : ""}`, "data-id": e.id });
  const path = el("path", {
    d: pathOf(placed),
    "marker-end": e.suspect ? "url(#graph-arrow-suspect)" : "url(#graph-arrow)",
  });
  const tip = el("title");
  tip.textContent = `${e.source} ${e.type} ${e.target}${e.suspect ? ` (${e.suspect})` : ""}`;
  add(g, tip, path);
  if (e.suspect) {
    const mid = placed.points[Math.floor(placed.points.length / 2)] ?? placed.points[0];
    if (mid) {
      const mark = el("g", {
        class: "suspect-mark",
        transform: `translate(${mid.x.toFixed(1)},${mid.y.toFixed(1)})`,
      });
      const text = el("text", { "text-anchor": "middle", y: 4 });
      text.textContent = "!";
      add(mark, el("circle", { r: 7 }), text);
      add(g, mark);
    }
  }
  return g;
}

function arrow(id: string): SVGMarkerElement {
  const m = el("marker", {
    id,
    viewBox: "0 0 10 10",
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: "auto-start-reverse",
  });
  add(m, el("path", { d: "M0,0L10,5L0,10z" }));
  return m;
}

interface View {
  k: number;
  x: number;
  y: number;
}

/** Pan and zoom by a transform on one group; the SVG itself keeps the canvas size. */
function interact(svg: SVGSVGElement, viewport: SVGGElement, size: { width: number; height: number }) {
  const view: View = { k: 1, x: 0, y: 0 };
  const apply = () =>
    viewport.setAttribute(
      "transform",
      `translate(${view.x.toFixed(1)},${view.y.toFixed(1)}) scale(${view.k.toFixed(4)})`,
    );
  const box = () => svg.getBoundingClientRect();
  const zoomAt = (factor: number, px: number, py: number) => {
    const k = Math.min(4, Math.max(0.05, view.k * factor));
    view.x = px - ((px - view.x) * k) / view.k;
    view.y = py - ((py - view.y) * k) / view.k;
    view.k = k;
    apply();
  };
  const fit = () => {
    const { width, height } = box();
    view.k = Math.min(1, width / size.width, height / size.height);
    view.x = (width - size.width * view.k) / 2;
    view.y = Math.max(0, (height - size.height * view.k) / 2);
    apply();
  };
  svg.addEventListener(
    "wheel",
    (event) => {
      event.preventDefault();
      const r = box();
      zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - r.left, event.clientY - r.top);
    },
    { passive: false },
  );
  let drag: { x: number; y: number; moved: boolean } | undefined;
  svg.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, moved: false };
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!drag.moved) svg.setPointerCapture(event.pointerId);
    drag.moved = true;
    view.x += dx;
    view.y += dy;
    drag.x = event.clientX;
    drag.y = event.clientY;
    apply();
  });
  const end = () => {
    if (drag?.moved) {
      // A drag that ends on a node is a pan, not a click on its link.
      svg.addEventListener("click", (e) => e.preventDefault(), { capture: true, once: true });
      setTimeout(() => {
        drag = undefined;
      });
    } else drag = undefined;
  };
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointercancel", () => {
    drag = undefined;
  });
  svg.addEventListener("keydown", (event) => {
    const r = box();
    const step = 60;
    const keys: Record<string, () => void> = {
      ArrowLeft: () => (view.x += step),
      ArrowRight: () => (view.x -= step),
      ArrowUp: () => (view.y += step),
      ArrowDown: () => (view.y -= step),
      "+": () => zoomAt(1.25, r.width / 2, r.height / 2),
      "=": () => zoomAt(1.25, r.width / 2, r.height / 2),
      "-": () => zoomAt(0.8, r.width / 2, r.height / 2),
      "0": fit,
    };
    const act = keys[event.key];
    if (!act || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    act();
    apply();
  });
  /** Brings a focused node into view (keyboard users cannot pan to it first). */
  const reveal = (node: PlacedNode) => {
    const r = box();
    const left = view.x + node.x * view.k;
    const top = view.y + node.y * view.k;
    const right = left + node.width * view.k;
    const bottom = top + node.height * view.k;
    if (left >= 0 && top >= 0 && right <= r.width && bottom <= r.height) return;
    view.x = r.width / 2 - (node.x + node.width / 2) * view.k;
    view.y = r.height / 2 - (node.y + node.height / 2) * view.k;
    apply();
  };
  return { fit, zoomAt, reveal, box };
}

function highlight(
  svg: SVGSVGElement,
  nodes: Map<string, SVGAElement>,
  edges: EdgeData[],
  edgeEls: Map<string, SVGGElement>,
) {
  const around = new Map<string, { nodes: Set<string>; edges: string[] }>();
  for (const id of nodes.keys()) around.set(id, { nodes: new Set([id]), edges: [] });
  for (const e of edges) {
    around.get(e.source)?.nodes.add(e.target);
    around.get(e.target)?.nodes.add(e.source);
    around.get(e.source)?.edges.push(e.id);
    if (e.target !== e.source) around.get(e.target)?.edges.push(e.id);
  }
  let lit: Element[] = [];
  const clear = () => {
    for (const e of lit) e.classList.remove("near", "center");
    lit = [];
    svg.classList.remove("focusing");
  };
  const light = (id: string) => {
    clear();
    const near = around.get(id);
    if (!near) return;
    for (const n of near.nodes) {
      const e = nodes.get(n);
      if (e) lit.push(e);
    }
    for (const edgeId of near.edges) {
      const e = edgeEls.get(edgeId);
      if (e) lit.push(e);
    }
    for (const e of lit) e.classList.add("near");
    nodes.get(id)?.classList.add("center");
    svg.classList.add("focusing");
  };
  const nodeOf = (target: EventTarget | null) =>
    target instanceof Element ? target.closest("a.node") : null;
  svg.addEventListener("pointerover", (event) => {
    const n = nodeOf(event.target);
    if (n) light(n.getAttribute("data-id") ?? "");
  });
  svg.addEventListener("pointerout", (event) => {
    if (nodeOf(event.target) && !nodeOf(event.relatedTarget)) clear();
  });
  svg.addEventListener("focusin", (event) => {
    const n = nodeOf(event.target);
    if (n) light(n.getAttribute("data-id") ?? "");
  });
  svg.addEventListener("focusout", clear);
}

function button(label: string, text: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "secondary";
  b.textContent = text;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

export function drawGraph(figure: HTMLElement): void {
  const canvas = figure.querySelector<HTMLElement>("[data-graph-canvas]");
  if (!canvas) return;
  performance.mark("graph:start");
  const nodeData = readNodes(figure);
  if (nodeData.length === 0) return;
  const edgeData = readEdges(figure, new Set(nodeData.map((n) => n.id)));
  const layout = layoutGraph(
    nodeData.map((n) => ({ id: n.id })),
    edgeData.map((e) => ({ id: e.id, source: e.source, target: e.target })),
  );
  performance.mark("graph:laid-out");

  const svg = el("svg", { class: "graph-svg", tabindex: 0, role: "group" });
  svg.setAttribute(
    "aria-label",
    `Graph of ${figure.dataset.graph}: ${nodeData.length} requirements, ${edgeData.length} relationships. Arrow keys pan, plus and minus zoom, 0 fits; Tab moves through the requirements.`,
  );
  const defs = el("defs");
  add(defs, arrow("graph-arrow"), arrow("graph-arrow-suspect"));
  const viewport = el("g", { class: "graph-viewport" });
  const edgeLayer = el("g", { class: "graph-edges", "aria-hidden": "true" });
  // Chromium puts a <g> holding focusable links in the tab order itself; only the links belong there.
  const nodeLayer = el("g", { class: "graph-nodes", tabindex: -1 });
  const placedEdges = new Map(layout.edges.map((e) => [e.id, e]));
  const edgeEls = new Map<string, SVGGElement>();
  const degree = new Map<string, number>();
  for (const e of edgeData) {
    const placed = placedEdges.get(e.id);
    if (!placed) continue;
    const g = drawEdge(e, placed);
    edgeEls.set(e.id, g);
    add(edgeLayer, g);
    degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
    degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
  }
  const byId = new Map(nodeData.map((n) => [n.id, n]));
  const nodeEls = new Map<string, SVGAElement>();
  const placedNodes = new Map(layout.nodes.map((n) => [n.id, n]));
  for (const at of layout.nodes) {
    const n = byId.get(at.id);
    if (!n) continue;
    const a = drawNode(n, at, degree.get(n.id) ?? 0);
    nodeEls.set(n.id, a);
    add(nodeLayer, a);
  }
  add(viewport, edgeLayer, nodeLayer);
  add(svg, defs, viewport);

  const tools = document.createElement("div");
  tools.className = "graph-tools";
  // A small graph gets a short canvas; a large one is panned inside at most 75% of the window.
  svg.style.height = `min(75vh, ${Math.max(160, layout.height + 56)}px)`;
  canvas.replaceChildren(tools, svg);
  canvas.hidden = false;
  const lists = figure.querySelector<HTMLDetailsElement>("[data-graph-lists]");
  if (lists) lists.open = false;
  const view = interact(svg, viewport, layout);
  add(
    tools,
    button("Zoom in", "+", () => {
      const r = view.box();
      view.zoomAt(1.25, r.width / 2, r.height / 2);
    }),
    button("Zoom out", "−", () => {
      const r = view.box();
      view.zoomAt(0.8, r.width / 2, r.height / 2);
    }),
    button("Fit the graph to the view", "Fit", view.fit),
  );
  highlight(svg, nodeEls, edgeData, edgeEls);
  nodeLayer.addEventListener("focusin", (event) => {
    const id =
      event.target instanceof Element ? event.target.closest("a.node")?.getAttribute("data-id") : null;
    const at = id ? placedNodes.get(id) : undefined;
    if (at) view.reveal(at);
  });
  view.fit();
  performance.mark("graph:drawn");
  // The frame after next has been painted with the graph in it.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      performance.mark("graph:painted");
      const ms = (a: string, b: string) => performance.measure(`${a}→${b}`, a, b).duration.toFixed(1);
      canvas.dataset.layoutMs = ms("graph:start", "graph:laid-out");
      canvas.dataset.paintMs = ms("graph:start", "graph:painted");
      canvas.dataset.state = "ready";
    }),
  );
}

export function drawGraphs(doc: Document): void {
  for (const figure of doc.querySelectorAll<HTMLElement>("figure[data-graph]")) drawGraph(figure);
}
