/**
 * The traceability graph of an epic (issue 13): one get_epic_graph read, rendered as plain lists of
 * requirements and relationships (readable without JavaScript, and the accessible alternative), which the
 * script (client/graph.ts) reads back, lays out with dagre and draws as an SVG. The layout runs in the
 * browser because dagre (16.6 KiB gzip) does not fit the Worker's budget; see docs/ARCHITECTURE.md.
 */
import { html } from "hono/html";
import { notice } from "../layout.js";
import type { PageModule } from "../routes.js";
import { badge, empty, hrefOf, priority, refLink } from "../view.js";

/** get_epic_graph's answer (its output schema), as this page uses it. */
interface GraphNode {
  reference_id: string;
  title: string;
  status: string;
  priority: number;
  user_story_id: string;
  epic_id: string;
  external: boolean;
}

interface GraphEdge {
  source_requirement_id: string;
  target_requirement_id: string;
  relationship_type: string;
  suspect: boolean;
  changed: ("source" | "target")[];
}

interface Graph {
  epic_id: string;
  title: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  total_requirements: number;
  truncated: boolean;
}

/** The relationship types the stylesheet colours; a workspace's own types are drawn in the default colour. */
export const STYLED_TYPES = ["depends_on", "blocks", "relates_to", "conflicts_with", "derives_from"];

export function typeClass(type: string): string {
  const t = type.toLowerCase();
  return STYLED_TYPES.includes(t) ? `rel-${t.replace(/_/g, "-")}` : "rel-other";
}

function suspectText(edge: GraphEdge): string {
  if (!edge.suspect) return "";
  const ends = edge.changed.map((end) => (end === "source" ? "source" : "target")).join(" and ");
  return `suspect: ${ends} changed`;
}

function nodeItem(n: GraphNode) {
  return html`<li data-id="${n.reference_id}" data-title="${n.title}" data-status="${n.status}"${
    n.external ? html` data-external="${n.epic_id}"` : ""
  }>${refLink(n.reference_id, n.title)} ${badge(n.status)} ${priority(n.priority)} <span class="muted">${
    n.external ? html`in ${refLink(n.epic_id)}, ` : ""
  }${n.user_story_id}</span></li>`;
}

function edgeRow(e: GraphEdge) {
  const suspect = suspectText(e);
  return html`<tr data-source="${e.source_requirement_id}" data-target="${e.target_requirement_id}" data-type="${
    e.relationship_type
  }" data-class="${typeClass(e.relationship_type)}"${e.suspect ? html` data-suspect="${suspect}"` : ""}><td>${refLink(
    e.source_requirement_id,
  )}</td><td><span class="rel ${typeClass(e.relationship_type)}">${e.relationship_type}</span></td><td>${refLink(
    e.target_requirement_id,
  )}</td><td>${e.suspect ? badge("suspect") : ""}${e.suspect ? html` <span class="muted">${suspect.replace("suspect: ", "")}</span>` : ""}</td></tr>`;
}

function legend(edges: GraphEdge[]) {
  const types = [...new Set(edges.map((e) => e.relationship_type))].sort();
  return html`<ul class="inline-list graph-legend" aria-label="Legend">${types.map(
    (t) => html`<li><span class="swatch ${typeClass(t)}" aria-hidden="true"></span>${t}</li>`,
  )}<li><span class="swatch suspect" aria-hidden="true"></span>suspect link (an end changed since it was confirmed)</li><li><span class="swatch external" aria-hidden="true"></span>requirement of another epic</li></ul>`;
}

export const graphPage: PageModule = (pages) => {
  pages.get("/epics/:id/graph", async (p) => {
    const graph = await p.read<Graph>("get_epic_graph", { epic_id: p.param("id") });
    const own = graph.nodes.filter((n) => !n.external).length;
    const suspects = graph.edges.filter((e) => e.suspect).length;
    const body = html`<p class="muted"><a href="${hrefOf(graph.epic_id)}">← ${graph.epic_id}</a></p>
<h1>Traceability graph of <span class="ref">${graph.epic_id}</span> ${graph.title}</h1>
<p>${own} requirements, ${graph.edges.length} relationships, ${suspects} suspect${
      graph.nodes.length > own
        ? html`, ${graph.nodes.length - own} ${graph.nodes.length - own === 1 ? "requirement" : "requirements"} of other epics`
        : ""
    }.</p>
${
  graph.truncated
    ? notice(
        "info",
        `This epic has ${graph.total_requirements} requirements; the graph shows the first ${own} in story order and their relationships.`,
      )
    : ""
}
${legend(graph.edges)}
<figure class="graph" data-graph="${graph.epic_id}" aria-labelledby="graph-caption">
<figcaption id="graph-caption" class="muted">Each requirement links to its page. Arrows run from source to target.</figcaption>
<div class="graph-canvas" data-graph-canvas hidden></div>
<details class="graph-lists" open data-graph-lists>
<summary>Requirements and relationships as lists</summary>
<h2 id="graph-nodes">Requirements</h2>
${graph.nodes.length === 0 ? empty("This epic has no requirements yet.") : html`<ul class="plain" data-graph-nodes aria-labelledby="graph-nodes">${graph.nodes.map(nodeItem)}</ul>`}
<h2 id="graph-edges">Relationships</h2>
${
  graph.edges.length === 0
    ? empty("No relationships touch these requirements.")
    : html`<div class="table-wrap"><table data-graph-edges aria-labelledby="graph-edges"><thead><tr><th scope="col">Source</th><th scope="col">Relationship</th><th scope="col">Target</th><th scope="col">Suspect</th></tr></thead><tbody>${graph.edges.map(edgeRow)}</tbody></table></div>`
}
</details>
</figure>`;
    return p.page(`Graph ${graph.epic_id}`, body, { section: "tree" });
  });
};
