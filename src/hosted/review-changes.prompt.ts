/** Prompt `review_changes` (change control item 5): what changed since a baseline, laid out for a reviewer. */

import { DomainError } from "../core/errors.js";
import type { PromptDef, PromptMessage } from "../core/registry.js";
import { diffBaseline, listBaselines } from "../db/baselines.repo.js";
import { suspectRelationships } from "../db/suspect-links.repo.js";
import { baselineName, renderBaselineDiff } from "./baselines.tools.js";
import type { HostedContext } from "./context.js";

/** How many changes the prompt carries; the reviewer pages through the rest with diff_baseline. */
const SHOWN = 100;

export const reviewChangesPrompt: PromptDef<HostedContext> = {
  name: "review_changes",
  title: "Review changes since a baseline",
  description:
    "Review what changed since a baseline (e.g. the last release): every added, removed and changed entity with its word-level diff, and the links those changes made suspect, with what to check and which tools record the verdict.",
  arguments: [
    { name: "baseline", description: "Baseline name (list_baselines), e.g. 'v1.2'", required: true },
  ],
  async get(args, ctx) {
    const parsed = baselineName().safeParse(args.baseline);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((i) => ({ field: "baseline", message: i.message }));
      throw DomainError.invalid(
        `Invalid argument baseline: ${errors.map((e) => e.message).join("; ")}`,
        errors,
      );
    }
    const name = parsed.data;
    const { diff, suspects } = await ctx.database.read(async (db) => ({
      diff: await diffBaseline(db, ctx.auth.workspaceId, { from: name, limit: SHOWN }),
      suspects: await suspectRelationships(db, ctx.auth.workspaceId, { limit: SHOWN + 1 }),
    }));
    const suspectLines = suspects
      .slice(0, SHOWN)
      .map(
        (s) =>
          `- ${s.source_requirement_id} ${s.relationship_type} ${s.target_requirement_id}: ${s.changed.join(" and ")} changed (confirmed at ${s.source_revision}/${s.target_revision}, now ${s.source_revision_now}/${s.target_revision_now})`,
      );
    const text = `Review the changes since baseline "${name}".

${renderBaselineDiff(diff)}

Links made suspect by changes (an end changed since the link was confirmed):
${suspectLines.length > 0 ? suspectLines.join("\n") : "- none"}${suspects.length > SHOWN ? `\n- more: the first ${SHOWN} are shown; list_suspect_links pages through all of them` : ""}

For each changed or added requirement: is the new wording clear, verifiable and consistent with the others?
Does the change break what its linked requirements, acceptance criteria or tests assume? For each removed
entity: was removing it intended? Report per entity: keep / needs changes (say what) / question.
Then record the verdicts: approve {id, revision} for wording that is right (revision = its to_revision above),
request_changes {id, revision, comment} otherwise; for each suspect link that still holds, confirm_relationship;
read older wording with get_revision and full history with get_history.`;
    const messages: PromptMessage[] = [{ role: "user", content: { type: "text", text } }];
    return { description: `Changes since baseline ${name}`, messages };
  },
  async complete(argument, value, ctx) {
    if (argument !== "baseline") return [];
    const all = await ctx.database.read((db) => listBaselines(db, ctx.auth.workspaceId));
    return all.map((b) => b.name).filter((n) => n.toLowerCase().startsWith(value.toLowerCase()));
  },
};
