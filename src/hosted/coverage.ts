/**
 * The coverage status that get_requirement, epic_hierarchy and `requirement://` show for each requirement:
 * from the latest trace snapshot of every repository (core/trace-coverage.ts says how they combine).
 */
import * as z from "zod";
import { DomainError } from "../core/errors.js";
import { COVERAGE_STATUSES, type CoverageStatus, coverageStatus } from "../core/trace-coverage.js";
import type { Executor } from "../db/database.js";
import type { EpicTree } from "../db/hierarchy.repo.js";
import { latestSnapshots, requirementTallies, type SnapshotInfo } from "../db/trace-coverage.repo.js";
import type { HostedContext } from "./context.js";
import { requirementItemOutput, storyTreeOutput } from "./schemas.js";

export const coverageOutput = () =>
  z
    .enum(COVERAGE_STATUSES)
    .describe(
      "From the latest pushed scans: covered = cited by code and by a test; impl_only, test_only, uncovered.",
    );

/** Coverage status of each of `referenceIds` (normalized requirement ids); absent ones are uncovered. */
export async function coverageOf(
  ex: Executor,
  workspaceId: number,
  referenceIds: string[],
): Promise<Map<string, CoverageStatus>> {
  const out = new Map<string, CoverageStatus>();
  const snapshots = (await latestSnapshots(ex, workspaceId)).map((s) => s.snapshot_id);
  for (let i = 0; i < referenceIds.length && snapshots.length > 0; i += 500) {
    const part = referenceIds.slice(i, i + 500);
    const tallies = await requirementTallies(ex, workspaceId, snapshots, { referenceIds: part });
    for (const [id, t] of tallies) out.set(id, coverageStatus(t));
  }
  for (const id of referenceIds) if (!out.has(id)) out.set(id, "uncovered");
  return out;
}

/**
 * A user story of epic_hierarchy as advertised: get_user_story's answer (listed there in full), each
 * requirement also with its coverage.
 */
export const storyTreeWithCoverageOutput = storyTreeOutput
  .pick({ reference_id: true, title: true, description: true, status: true, priority: true })
  .extend({
    requirements: z.array(requirementItemOutput.extend({ coverage: coverageOutput() })),
    acceptance_criteria: z.array(
      storyTreeOutput.shape.acceptance_criteria.element
        .pick({ reference_id: true, title: true, description: true })
        .loose(),
    ),
  })
  .loose()
  .describe("Each story with every field get_user_story shows; requirements also with coverage.");

export async function hierarchyWithCoverage<T extends EpicTree>(ex: Executor, workspaceId: number, tree: T) {
  const ids = tree.user_stories.flatMap((s) => s.requirements.map((r) => r.reference_id));
  const coverage = await coverageOf(ex, workspaceId, ids);
  return {
    ...tree,
    user_stories: tree.user_stories.map((s) => ({
      ...s,
      requirements: s.requirements.map((r) => ({
        ...r,
        coverage: coverage.get(r.reference_id) ?? "uncovered",
      })),
    })),
  };
}

export async function coverageOfOne(
  ex: Executor,
  workspaceId: number,
  referenceId: string,
): Promise<CoverageStatus> {
  return (await coverageOf(ex, workspaceId, [referenceId])).get(referenceId) ?? "uncovered";
}

export const repositoryArg = () =>
  z
    .string()
    .min(1)
    .max(200)
    .describe("Repository name as `reqlix-mcp trace` pushed it (e.g. acme/web). Omit for every repository.");

export const snapshotOutput = z.object({
  repository: z.string(),
  commit: z.string(),
  branch: z.string().nullable(),
  scanned_at: z.string(),
  pushed_at: z.string(),
  snapshot_id: z.number().int(),
});
export const snapshotOf = (s: SnapshotInfo) => ({
  repository: s.repository,
  commit: s.commit,
  branch: s.branch,
  scanned_at: s.scanned_at,
  pushed_at: s.pushed_at,
  snapshot_id: s.snapshot_id,
});

/** The latest snapshot of each repository, or of one (not found when it has none). */
export async function snapshotsFor(
  ctx: HostedContext,
  ex: Parameters<typeof latestSnapshots>[0],
  repository: string | undefined,
): Promise<SnapshotInfo[]> {
  const snapshots = await latestSnapshots(ex, ctx.auth.workspaceId, repository);
  if (repository !== undefined && snapshots.length === 0) {
    throw DomainError.notFound(
      `No trace snapshot of repository "${repository}" in this workspace. Push one with \`reqlix-mcp trace\`, or omit repository; trace_summary lists the pushed repositories.`,
      repository,
    );
  }
  return snapshots;
}
