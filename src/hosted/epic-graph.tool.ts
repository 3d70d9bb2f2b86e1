/**
 * get_epic_graph: an epic's requirements and the typed, directed relationships between them (suspect links
 * marked), with the requirements of other epics they reach. The web app's traceability graph reads it; an
 * assistant can use it for impact analysis of a whole epic in one call.
 */
import * as z from "zod";
import { epicGraph } from "../db/epic-graph.repo.js";
import { requireEpicRow } from "../db/epics.repo.js";
import { hostedTool, READ } from "./access.js";
import { epicId } from "./schemas.js";

const node = z.object({
  reference_id: z.string(),
  title: z.string(),
  status: z.string(),
  priority: z.number().int().describe("1 = Critical, 2 = High, 3 = Medium, 4 = Low."),
  type_name: z.string(),
  user_story_id: z.string(),
  epic_id: z.string(),
  external: z.boolean().describe("A requirement of another epic that a relationship of this epic reaches."),
});

const edge = z.object({
  source_requirement_id: z.string(),
  target_requirement_id: z.string(),
  relationship_type: z.string(),
  suspect: z
    .boolean()
    .describe("An end changed since the link was created or confirmed (confirm_relationship)."),
  changed: z.array(z.enum(["source", "target"])).describe("The ends that changed since."),
});

export const getEpicGraphTool = hostedTool({
  name: "get_epic_graph",
  title: "Get epic graph",
  description:
    "The traceability graph of an epic: its requirements (nodes) and every relationship touching them (directed edges source → target with their type, suspect ones marked), plus the requirements of other epics those relationships reach (external: true). Use it to see the impact of a change across an epic in one call; then list_suspect_links for what to review, get_requirement for one node. At most `limit` requirements of the epic (in story order); `truncated` says when there are more.",
  input: z.object({
    epic_id: epicId(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(500)
      .describe("How many of the epic's requirements to include (1–1,000, default 500)."),
  }),
  output: z.object({
    epic_id: z.string(),
    title: z.string(),
    nodes: z.array(node),
    edges: z.array(edge),
    total_requirements: z.number().int().describe("The epic's requirements in all."),
    truncated: z.boolean().describe("True when the epic has more requirements than `limit`."),
  }),
  annotations: READ,
  handler: ({ epic_id, limit }, ctx) =>
    ctx.database.read(async (db) => {
      const epic = await requireEpicRow(db, ctx.auth.workspaceId, epic_id);
      const graph = await epicGraph(db, ctx.auth.workspaceId, epic, limit);
      return { epic_id: epic.reference_id, title: epic.title, ...graph };
    }),
});
