/**
 * Traceability tools over the snapshots `reqlix-mcp trace` pushes (`POST /api/v1/traces`): which code and
 * tests cite a requirement, which requirements nothing implements or tests, coverage counts and their
 * change, and the existence/revision of cited ids. All read-only; all scoped to the caller's workspace.
 */
import * as z from "zod";
import { REQUIREMENT_STATUSES } from "../core/domain.js";
import { kindOfReference } from "../core/references.js";
import {
  COVERAGE_STATUSES,
  coverageStatus,
  EMPTY_TALLY,
  isSuspect,
  MISSING,
} from "../core/trace-coverage.js";
import { CITATION_KINDS } from "../core/trace-snapshot.js";
import { requireEpicRow } from "../db/epics.repo.js";
import { requirementNotFound } from "../db/requirements.repo.js";
import {
  citationsOfEntity,
  commitsCiting,
  latestSnapshots,
  requirementTallies,
  untracedRequirements,
} from "../db/trace-coverage.repo.js";
import { resolveReferences } from "../db/traces.repo.js";
import { requireUserStoryRow } from "../db/user-stories.repo.js";
import { hostedTool, READ } from "./access.js";
import { repositoryArg, snapshotOf, snapshotOutput, snapshotsFor } from "./coverage.js";
import {
  cursor,
  epicId,
  limit,
  pageOutput,
  requirementId,
  requirementStatus,
  userStoryId,
} from "./schemas.js";
import { traceSummaryTool } from "./trace-summary.tool.js";

/** Citations listed per repository in get_requirement_traces; the rest are counted. */
const MAX_CITATIONS_SHOWN = 200;

const anyId = z
  .string()
  .trim()
  .regex(/^(EP|US|REQ|AC)-\d+$/i, "must be a reference id such as REQ-012 (EP-, US-, REQ- or AC- and digits)")
  .describe("EP-…, US-…, REQ-… or AC-… (any case)");

export const resolveReferencesTool = hostedTool({
  name: "resolve_references",
  title: "Resolve reference ids",
  description:
    "Check which reference ids (EP-, US-, REQ-, AC-) exist in this workspace, with each one's kind, title, status and current revision. Use it to validate ids cited in code, tests or commit messages before relying on them; ids that are not found are orphans. A citation pinned to an older revision than the current one is suspect: re-read the entity.",
  input: z.object({ ids: z.array(anyId).min(1).max(1000).describe("1 to 1000 reference ids.") }),
  output: z.object({
    references: z.array(
      z.object({
        id: z.string(),
        found: z.boolean(),
        kind: z.enum(["epic", "user_story", "requirement", "acceptance_criterion"]).optional(),
        title: z.string().optional(),
        status: z.string().nullable().optional().describe("Null for acceptance criteria (no status)."),
        revision: z.number().int().optional(),
      }),
    ),
  }),
  annotations: READ,
  handler: async ({ ids }, ctx) => {
    const normalized = [...new Set(ids.map((id) => kindOfReference(id)?.reference ?? id.toUpperCase()))];
    const valid = normalized.filter((id) => kindOfReference(id) !== undefined);
    const found = await ctx.database.read((db) => resolveReferences(db, ctx.auth.workspaceId, valid));
    return {
      references: normalized.map((id) => {
        const e = found.get(id);
        return e
          ? { id, found: true, kind: e.kind, title: e.title, status: e.status, revision: e.revision }
          : { id, found: false };
      }),
    };
  },
});

export const getRequirementTracesTool = hostedTool({
  name: "get_requirement_traces",
  title: "Get requirement traces",
  description:
    "Where a requirement is implemented, tested and documented: its citations (file, line, kind, test name, snippet) and the commits whose messages cite it, from the latest pushed scan of each repository (or of one). Also its coverage status and suspect citations (pinned to an older revision than the current one: the code may be stale). Use it before changing the behaviour a requirement describes.",
  input: z.object({ requirement_id: requirementId(), repository: repositoryArg().optional() }),
  output: z.object({
    requirement_id: z.string(),
    revision: z.number().int().describe("The requirement's current revision."),
    coverage: z.enum(COVERAGE_STATUSES),
    counts: z.object({
      impl: z.number().int(),
      test: z.number().int(),
      doc: z.number().int(),
      suspect: z.number().int(),
    }),
    repositories: z.array(
      snapshotOutput.extend({
        citations: z.array(
          z.object({
            file: z.string(),
            line: z.number().int(),
            column: z.number().int(),
            kind: z.enum(CITATION_KINDS),
            test_name: z.string().nullable(),
            snippet: z.string(),
            revision: z.number().int().nullable().describe("Revision pinned in the code, if any."),
            suspect: z.boolean(),
          }),
        ),
        citations_not_shown: z.number().int().describe("Citations beyond the first 200 of this repository."),
        commits: z.array(z.object({ sha: z.string(), subject: z.string() })),
      }),
    ),
  }),
  annotations: READ,
  handler: ({ requirement_id, repository }, ctx) =>
    ctx.database.read(async (db) => {
      const ws = ctx.auth.workspaceId;
      const row = (await resolveReferences(db, ws, [requirement_id])).get(requirement_id);
      if (!row) throw requirementNotFound(requirement_id);
      const revision = row.revision;
      const snapshots = await snapshotsFor(ctx, db, repository);
      const ids = snapshots.map((s) => s.snapshot_id);
      const tally =
        (await requirementTallies(db, ws, ids, { requirementRowIds: [row.row_id] })).get(requirement_id) ??
        EMPTY_TALLY;
      const citations = await citationsOfEntity(db, ws, ids, "requirement", row.row_id);
      const commits = await commitsCiting(db, ws, ids, requirement_id);
      return {
        requirement_id,
        revision,
        coverage: coverageStatus(tally),
        counts: tally,
        repositories: snapshots.map((s) => {
          const mine = citations.filter((c) => c.snapshot_id === s.snapshot_id);
          return {
            ...snapshotOf(s),
            citations: mine.slice(0, MAX_CITATIONS_SHOWN).map(({ snapshot_id: _s, ...c }) => ({
              ...c,
              kind: c.kind as (typeof CITATION_KINDS)[number],
              suspect: isSuspect(c.revision, revision),
            })),
            citations_not_shown: Math.max(0, mine.length - MAX_CITATIONS_SHOWN),
            commits: commits
              .filter((c) => c.snapshot_id === s.snapshot_id)
              .map(({ sha, subject }) => ({ sha, subject })),
          };
        }),
      };
    }),
});

const OPEN_STATUSES = REQUIREMENT_STATUSES.filter((s) => s !== "Obsolete");

export const listUntracedRequirementsTool = hostedTool({
  name: "list_untraced_requirements",
  title: "List untraced requirements",
  description:
    "List requirements that no code implements (missing: impl), no test checks (missing: test), or either (missing: any), according to the latest pushed scan of each repository. Filter by epic, user story or status (default: Draft and Active; Obsolete ones need no code). Returns a page with each requirement's coverage and citation counts, and next_cursor when there are more. Use it to plan work or find gaps before a release.",
  input: z.object({
    epic_id: epicId().optional(),
    user_story_id: userStoryId().optional(),
    status: requirementStatus().optional(),
    missing: z
      .enum(MISSING)
      .describe("impl: no implementation citation; test: no test citation; any: lacking either."),
    limit: limit(),
    cursor: cursor().optional(),
  }),
  output: pageOutput(
    z.object({
      reference_id: z.string(),
      user_story_id: z.string(),
      title: z.string(),
      status: z.enum(REQUIREMENT_STATUSES),
      priority: z.number().int(),
      coverage: z.enum(COVERAGE_STATUSES),
      impl: z.number().int(),
      test: z.number().int(),
    }),
  ).extend({
    repositories: z
      .array(z.string())
      .describe("Repositories whose latest scan was considered; none means nothing was pushed yet."),
  }),
  annotations: READ,
  handler: (input, ctx) =>
    ctx.database.read(async (db) => {
      const ws = ctx.auth.workspaceId;
      const epicRowId =
        input.epic_id === undefined ? undefined : (await requireEpicRow(db, ws, input.epic_id)).id;
      const storyRowId =
        input.user_story_id === undefined
          ? undefined
          : (await requireUserStoryRow(db, ws, input.user_story_id)).id;
      const snapshots = await latestSnapshots(db, ws);
      const page = await untracedRequirements(
        db,
        ws,
        snapshots.map((s) => s.snapshot_id),
        {
          ...(epicRowId !== undefined ? { epicRowId } : {}),
          ...(storyRowId !== undefined ? { storyRowId } : {}),
          statuses: input.status ? [input.status] : OPEN_STATUSES,
          missing: input.missing,
          limit: input.limit,
          ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
          tag: `untraced:${input.epic_id ?? ""}:${input.user_story_id ?? ""}:${input.status ?? ""}:${input.missing}`,
        },
      );
      return {
        ...page,
        items: page.items.map((i) => ({ ...i, status: i.status as (typeof REQUIREMENT_STATUSES)[number] })),
        repositories: snapshots.map((s) => s.repository),
      };
    }),
});

export const traceTools = [
  resolveReferencesTool,
  getRequirementTracesTool,
  listUntracedRequirementsTool,
  traceSummaryTool,
];
