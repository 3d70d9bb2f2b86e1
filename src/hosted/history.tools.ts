/**
 * History (change control item 1): who changed an entity, when, why and from where, each revision's full
 * snapshot, and field-by-field differences between two revisions. Read-only: revisions are appended by the
 * write paths themselves (db/revisions.repo.ts).
 */
import * as z from "zod";
import { type FieldChange, fieldChanges, renderFieldChange } from "../core/field-diff.js";
import type { ResourceDef } from "../core/registry.js";
import { historyOf, latestRevisionOf, type Revision, revisionOf } from "../db/revisions.repo.js";
import { hostedTool, READ } from "./access.js";
import { entityId, fieldChangeOutput, revisionNumber, revisionOutput } from "./change-control.schemas.js";
import type { HostedContext } from "./context.js";
import { entityResource } from "./resources.js";
import { cursor, limit, pageOutput } from "./schemas.js";

export const getHistoryTool = hostedTool({
  name: "get_history",
  title: "Get history",
  description:
    "The change history of an epic, user story, requirement or acceptance criterion, newest first: every create, update, move and delete with its revision number, who made it, when, with which tool, why (change_note) and from where (source), and the full snapshot after it. A requirement's history also holds the revisions of its relationships. A deleted entity's history stays readable. To see what changed between two revisions, call diff_revisions.",
  input: z.object({ id: entityId(), limit: limit(), cursor: cursor().optional() }),
  output: pageOutput(revisionOutput),
  annotations: READ,
  handler: ({ id, ...page }, ctx) => ctx.database.read((db) => historyOf(db, ctx.auth.workspaceId, id, page)),
});

export const getRevisionTool = hostedTool({
  name: "get_revision",
  title: "Get revision",
  description:
    "One revision of an entity: the entity exactly as it was after that change, with who, when, why and from where. Use it to read the wording a release shipped with; get_history lists the revision numbers.",
  input: z.object({ id: entityId(), revision: revisionNumber() }),
  output: revisionOutput,
  annotations: READ,
  handler: ({ id, revision }, ctx) =>
    ctx.database.read((db) => revisionOf(db, ctx.auth.workspaceId, id, revision)),
});

const revisionSummary = z.object({
  revision: z.number().int(),
  op: z.string(),
  username: z.string().nullable(),
  created_at: z.string(),
  change_note: z.string().nullable(),
});

const diffOutput = z.object({
  reference_id: z.string(),
  from: revisionSummary,
  to: revisionSummary,
  changes: z.array(fieldChangeOutput),
});

type Diff = z.infer<typeof diffOutput> & { changes: FieldChange[] };

function summary(r: Revision) {
  return {
    revision: r.revision,
    op: r.op,
    username: r.username,
    created_at: r.created_at,
    change_note: r.change_note,
  };
}

export function renderDiff(d: Diff): string {
  const head = `${d.reference_id}: revision ${d.from.revision} (${d.from.created_at}, ${d.from.username ?? "unknown"}) → revision ${d.to.revision} (${d.to.created_at}, ${d.to.username ?? "unknown"}, ${d.to.op}${d.to.change_note ? `: ${d.to.change_note}` : ""})`;
  if (d.changes.length === 0) return `${head}\nNo field changed.`;
  return `${head}\n${d.changes.length} field(s) changed (removed words in [-…-], added words in {+…+}):\n\n${d.changes.map(renderFieldChange).join("\n\n")}`;
}

export const diffRevisionsTool = hostedTool({
  name: "diff_revisions",
  title: "Diff revisions",
  description:
    "What changed in an entity between two of its revisions, field by field; text fields as a word-level diff (removed words in [-…-], added words in {+…+}). `to` defaults to the latest revision. Use it to review a change or to see how a requirement moved on since the revision a release shipped.",
  input: z.object({
    id: entityId(),
    from: revisionNumber().describe("The older revision."),
    to: revisionNumber().optional().describe("The newer revision; default the latest."),
  }),
  output: diffOutput,
  annotations: READ,
  handler: ({ id, from, to }, ctx) =>
    ctx.database.read(async (db) => {
      const a = await revisionOf(db, ctx.auth.workspaceId, id, from);
      const b =
        to === undefined
          ? await latestRevisionOf(db, ctx.auth.workspaceId, id)
          : await revisionOf(db, ctx.auth.workspaceId, id, to);
      return {
        reference_id: id,
        from: summary(a),
        to: summary(b),
        changes: fieldChanges(a.snapshot, b.snapshot),
      };
    }),
  render: renderDiff,
});

export const historyTools = [getHistoryTool, getRevisionTool, diffRevisionsTool];

// ----- resources ----------------------------------------------------------------------------------------

/** The newest 100 revisions as markdown, each with what it changed from the previous one of the same entity. */
export async function historyMarkdown(id: string, ctx: HostedContext): Promise<string> {
  const page = await ctx.database.read((db) => historyOf(db, ctx.auth.workspaceId, id, { limit: 100 }));
  const items = page.items;
  const lines = [`# History of ${id}`, ""];
  items.forEach((r, i) => {
    const previous = items.slice(i + 1).find((p) => p.reference_id === r.reference_id);
    const who = r.username ?? "unknown";
    lines.push(
      `## ${r.reference_id} revision ${r.revision}: ${r.op} by ${who} at ${r.created_at}${r.tool ? ` (${r.tool})` : ""}`,
    );
    if (r.change_note) lines.push(`Why: ${r.change_note}`);
    if (r.source) lines.push(`Source: ${r.source}`);
    if (r.op !== "create" && r.op !== "delete" && previous) {
      const changes = fieldChanges(previous.snapshot, r.snapshot);
      for (const c of changes) lines.push(`- ${renderFieldChange(c).replace(/\n/g, "\n  ")}`);
    }
    lines.push("");
  });
  if (page.next_cursor) lines.push("Older revisions: call get_history with the cursor of its pages.");
  return lines.join("\n");
}

function historyResource(scheme: string, prefix: string, variable: string, label: string, a: string) {
  return entityResource(
    scheme,
    "history",
    prefix,
    {
      variable,
      name: `${scheme}-history`,
      title: `${label} history`,
      description: `${a} ${label.toLowerCase()}'s change history as markdown, newest first: who, when, why, from where, and the fields each revision changed.`,
      mimeType: "text/markdown",
    },
    historyMarkdown,
  );
}

export const historyResources: ResourceDef<HostedContext>[] = [
  historyResource("epic", "EP", "epic_id", "Epic", "An"),
  historyResource("user-story", "US", "user_story_id", "User story", "A"),
  historyResource("requirement", "REQ", "requirement_id", "Requirement", "A"),
];
