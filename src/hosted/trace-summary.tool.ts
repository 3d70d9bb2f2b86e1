/**
 * trace_summary: coverage counts of the requirements in scope (Draft and Active, optionally one epic) over
 * the latest scan of each repository (or of one), and what the most recent push changed: the same counts
 * with that push's repository at its previous snapshot.
 */
import * as z from "zod";
import type { RequirementStatus } from "../core/domain.js";
import {
  COVERAGE_STATUSES,
  type CoverageCounts,
  type CoverageStatus,
  countStatuses,
  coverageStatus,
  EMPTY_TALLY,
  statusChanges,
} from "../core/trace-coverage.js";
import type { Executor } from "../db/database.js";
import { requireEpicRow } from "../db/epics.repo.js";
import {
  citationHealth,
  previousSnapshot,
  type RequirementScope,
  requirementsInScope,
  requirementTallies,
} from "../db/trace-coverage.repo.js";
import { hostedTool, READ } from "./access.js";
import { repositoryArg, snapshotOf, snapshotOutput, snapshotsFor } from "./coverage.js";
import { epicId } from "./schemas.js";

const OPEN: RequirementStatus[] = ["Draft", "Active"];
/** Ids listed per category; the counts are always complete. */
const MAX_LISTED = 100;

const countsOutput = z.object(
  Object.fromEntries(COVERAGE_STATUSES.map((s) => [s, z.number().int()])) as Record<
    CoverageStatus,
    z.ZodNumber
  >,
);
const idCounts = z.object({
  citations: z.number().int(),
  ids: z.array(z.string()).describe("Cited ids (first 100), by prefix and number."),
});

async function statuses(
  ex: Executor,
  workspaceId: number,
  snapshotIds: number[],
  scope: RequirementScope,
  ids: string[],
): Promise<Map<string, CoverageStatus>> {
  const tallies = await requirementTallies(ex, workspaceId, snapshotIds, scope);
  return new Map(ids.map((id) => [id, coverageStatus(tallies.get(id) ?? EMPTY_TALLY)]));
}

function difference(now: CoverageCounts, before: CoverageCounts): CoverageCounts {
  return {
    covered: now.covered - before.covered,
    impl_only: now.impl_only - before.impl_only,
    test_only: now.test_only - before.test_only,
    uncovered: now.uncovered - before.uncovered,
  };
}

function listed(m: Map<string, number>) {
  let citations = 0;
  for (const n of m.values()) citations += n;
  return { citations, ids: [...m.keys()].slice(0, MAX_LISTED) };
}

export const traceSummaryTool = hostedTool({
  name: "trace_summary",
  title: "Trace summary",
  description:
    "Coverage of Draft and Active requirements (optionally of one epic) by code and tests, from the latest pushed scan of each repository (or of one): counts per status (covered, impl_only, test_only, uncovered), the change since the previous scan of the most recently pushed repository with the requirements that changed, and orphan citations (ids this workspace does not have) and suspect ones (pinned to an older revision). Next: list_untraced_requirements for the gaps, get_requirement_traces for one requirement.",
  input: z.object({ epic_id: epicId().optional(), repository: repositoryArg().optional() }),
  output: z.object({
    epic_id: z.string().nullable(),
    repository: z.string().nullable(),
    repositories: z.array(snapshotOutput.extend({ citations: z.number().int() })),
    requirements: z.number().int().describe("Draft and Active requirements in scope."),
    counts: countsOutput,
    latest_push: z
      .object({
        repository: z.string(),
        commit: z.string(),
        previous_commit: z.string().nullable().describe("Null when it was the repository's first push."),
      })
      .nullable(),
    change: countsOutput.describe("counts minus the counts before the latest push."),
    changed: z
      .array(
        z.object({
          reference_id: z.string(),
          from: z.enum(COVERAGE_STATUSES),
          to: z.enum(COVERAGE_STATUSES),
        }),
      )
      .describe("Requirements whose status the latest push changed (first 100)."),
    orphans: idCounts.describe("Citations of ids this workspace does not have (over the whole scans)."),
    suspect: idCounts.describe("Citations pinned to an older revision than the entity's current one."),
  }),
  annotations: READ,
  handler: ({ epic_id, repository }, ctx) =>
    ctx.database.read(async (db) => {
      const ws = ctx.auth.workspaceId;
      const scope: RequirementScope =
        epic_id === undefined ? {} : { epicRowId: (await requireEpicRow(db, ws, epic_id)).id };
      const latest = await snapshotsFor(ctx, db, repository);
      const ids = (await requirementsInScope(db, ws, scope, OPEN)).map((r) => r.reference_id);
      const latestIds = latest.map((s) => s.snapshot_id);
      const now = await statuses(db, ws, latestIds, scope, ids);

      const newest = latest.reduce<(typeof latest)[number] | undefined>(
        (a, s) => (a === undefined || s.snapshot_id > a.snapshot_id ? s : a),
        undefined,
      );
      const before = newest
        ? await previousSnapshot(db, ws, newest.repository, newest.snapshot_id)
        : undefined;
      const beforeIds = [
        ...latestIds.filter((id) => id !== newest?.snapshot_id),
        ...(before ? [before.snapshot_id] : []),
      ];
      const then = newest ? await statuses(db, ws, beforeIds, scope, ids) : now;
      const counts = countStatuses(now.values());
      const health = await citationHealth(db, ws, latestIds);
      return {
        epic_id: epic_id ?? null,
        repository: repository ?? null,
        repositories: latest.map((s) => ({ ...snapshotOf(s), citations: s.citations })),
        requirements: ids.length,
        counts,
        latest_push: newest
          ? { repository: newest.repository, commit: newest.commit, previous_commit: before?.commit ?? null }
          : null,
        change: difference(counts, countStatuses(then.values())),
        changed: statusChanges(then, now).slice(0, MAX_LISTED),
        orphans: listed(health.orphans),
        suspect: listed(health.suspect),
      };
    }),
});
