/**
 * Baselines (change control item 2): freeze what the requirements say at a release, read them back as they
 * were, and see what changed since.
 */
import * as z from "zod";
import { renderFieldChange } from "../core/field-diff.js";
import type { ResourceDef } from "../core/registry.js";
import {
  type BaselineDiff,
  createBaseline,
  diffBaseline,
  getBaseline,
  listBaselines,
} from "../db/baselines.repo.js";
import { ENTITY_KINDS } from "../db/schema.js";
import { actor, hostedTool, READ } from "./access.js";
import { fieldChangeOutput } from "./change-control.schemas.js";
import type { HostedContext } from "./context.js";
import { cursor, epicId, limit } from "./schemas.js";

export const baselineName = () =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(100)
    .regex(
      /^[\p{L}\p{N}][\p{L}\p{N} ._-]*$/u,
      "use letters, digits, spaces, '.', '_' and '-', starting with a letter or digit (e.g. 'v1.2', 'Release 2026-11')",
    )
    .describe("Baseline name, unique in the workspace, case-sensitive (e.g. 'v1.2', 'Release 2026-11').");

const baselineOutput = z.object({
  name: z.string(),
  description: z.string(),
  epic_id: z.string().nullable().describe("The epic the baseline covers; null = the whole workspace."),
  creator_username: z.string().nullable(),
  created_at: z.string(),
  entry_count: z.number().int().describe("How many entities (and relationships) it froze."),
});

export const createBaselineTool = hostedTool({
  name: "create_baseline",
  title: "Create baseline",
  description:
    "Freeze the current revision of every epic, user story, requirement, acceptance criterion and relationship in the workspace (or under one epic) under a name, e.g. at a release. A baseline never changes; read it back with get_baseline and compare it with now or another baseline with diff_baseline. Returns the baseline.",
  input: z.object({
    name: baselineName(),
    description: z.string().max(2_000).optional().describe("What it marks (release, sign-off, audit)."),
    epic_id: epicId().optional().describe("Only this epic's tree; default the whole workspace."),
  }),
  output: baselineOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: (input, ctx) =>
    ctx.database.write((tx) => createBaseline(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const listBaselinesTool = hostedTool({
  name: "list_baselines",
  title: "List baselines",
  description:
    "List the workspace's baselines, oldest first: name, description, scope (epic or workspace), who made it, when, and how many entities it froze. Read one with get_baseline; compare with diff_baseline.",
  input: z.object({}),
  output: z.object({ baselines: z.array(baselineOutput) }),
  annotations: READ,
  handler: async (_input, ctx) => ({
    baselines: await ctx.database.read((db) => listBaselines(db, ctx.auth.workspaceId)),
  }),
});

const baselineEntityOutput = z.object({
  entity_kind: z.enum(ENTITY_KINDS),
  reference_id: z.string(),
  revision: z.number().int(),
  snapshot: z.record(z.string(), z.unknown()).describe("The entity as it was when the baseline was made."),
});

export const getBaselineTool = hostedTool({
  name: "get_baseline",
  title: "Get baseline",
  description:
    "Read a baseline: its details and, a page at a time, every entity it froze exactly as it was then (epics, then user stories, requirements, acceptance criteria, relationships). Use it to see what a release shipped with.",
  input: z.object({ name: baselineName(), limit: limit(), cursor: cursor().optional() }),
  output: baselineOutput.extend({
    items: z.array(baselineEntityOutput),
    next_cursor: z.string().optional().describe("Present when more entities exist: pass it as cursor."),
  }),
  annotations: READ,
  handler: ({ name, ...page }, ctx) =>
    ctx.database.read((db) => getBaseline(db, ctx.auth.workspaceId, name, page)),
});

const entityChangeOutput = z.object({
  entity_kind: z.enum(ENTITY_KINDS),
  reference_id: z.string(),
  change: z.enum(["added", "removed", "changed"]),
  from_revision: z.number().int().nullable(),
  to_revision: z.number().int().nullable(),
  changes: z.array(fieldChangeOutput).optional().describe("Changed entities: the fields that differ."),
  snapshot: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Added: the entity now; removed: the entity as it was in the baseline."),
});

export const diffBaselineOutput = z.object({
  from: z.string(),
  to: z.string().describe("The other baseline, or 'now'."),
  counts: z.object({ added: z.number().int(), removed: z.number().int(), changed: z.number().int() }),
  items: z.array(entityChangeOutput),
  next_cursor: z.string().optional().describe("Present when more changes exist: pass it as cursor."),
});

/** A baseline diff laid out for a reader: counts, then each entity with its field changes. */
export function renderBaselineDiff(d: BaselineDiff): string {
  const lines = [
    `Changes from baseline "${d.from}" to ${d.to === "now" ? "now" : `baseline "${d.to}"`}: ${d.counts.changed} changed, ${d.counts.added} added, ${d.counts.removed} removed.`,
  ];
  for (const item of d.items) {
    const revs =
      item.change === "changed"
        ? ` (revision ${item.from_revision} → ${item.to_revision})`
        : item.change === "added"
          ? ` (revision ${item.to_revision})`
          : ` (was revision ${item.from_revision})`;
    lines.push("", `## ${item.change.toUpperCase()} ${item.entity_kind} ${item.reference_id}${revs}`);
    if (item.changes) for (const c of item.changes) lines.push(renderFieldChange(c));
    else if (item.snapshot?.title !== undefined) lines.push(`title: ${JSON.stringify(item.snapshot.title)}`);
  }
  if (d.next_cursor) lines.push("", `More changes: call diff_baseline again with cursor "${d.next_cursor}".`);
  return lines.join("\n");
}

export const diffBaselineTool = hostedTool({
  name: "diff_baseline",
  title: "Diff baseline",
  description:
    "What changed since a baseline: entities added, removed and changed, each changed one with its field diff (text word by word: removed words in [-…-], added in {+…+}). Compares with now (within the baseline's scope) or with another baseline (`to`). Paged. Use it before a release review or to see what drifted since the last release.",
  input: z.object({
    from: baselineName().describe("The baseline to compare from."),
    to: baselineName().optional().describe("Another baseline to compare with; default now."),
    limit: limit(),
    cursor: cursor().optional(),
  }),
  output: diffBaselineOutput,
  annotations: READ,
  handler: (input, ctx) => ctx.database.read((db) => diffBaseline(db, ctx.auth.workspaceId, input)),
  render: renderBaselineDiff,
});

export const baselineTools = [createBaselineTool, listBaselinesTool, getBaselineTool, diffBaselineTool];

const BASELINE_URI = /^baseline:\/\/([^/?#]+)$/i;

export const baselineResource: ResourceDef<HostedContext> = {
  uriTemplate: "baseline://{name}",
  name: "baseline",
  title: "Baseline",
  description:
    "A baseline as JSON: its details and the first 100 entities it froze, as they were (get_baseline pages through the rest).",
  mimeType: "application/json",
  match(uri) {
    const m = BASELINE_URI.exec(uri);
    return m ? { name: decodeURIComponent(m[1] as string) } : undefined;
  },
  async read(params, uri, ctx) {
    const baseline = await ctx.database.read((db) =>
      getBaseline(db, ctx.auth.workspaceId, params.name ?? "", { limit: 100 }),
    );
    return [{ uri, mimeType: "application/json", text: JSON.stringify(baseline, null, 2) }];
  },
  async list(ctx) {
    const all = await ctx.database.read((db) => listBaselines(db, ctx.auth.workspaceId));
    return all.slice(0, 100).map((b) => ({
      uri: `baseline://${encodeURIComponent(b.name)}`,
      name: `Baseline ${b.name}`,
      mimeType: "application/json",
    }));
  },
};
