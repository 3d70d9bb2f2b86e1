/**
 * Suspect links (change control item 3): links whose ends changed since they were created or confirmed,
 * trace citations pinned to an older revision than their entity's current one, and the confirmation that
 * a link still holds.
 */
import * as z from "zod";
import { decodeCursor, encodeCursor } from "../db/entity-support.js";
import { requireEpicRow } from "../db/epics.repo.js";
import { confirmRelationship } from "../db/relationships.repo.js";
import { isSuspectPosition, suspectLinksPage } from "../db/suspect-links.repo.js";
import { actor, hostedTool, READ } from "./access.js";
import { relationshipKey } from "./relationships.tools.js";
import { cursor, epicId, limit, relationshipOutput } from "./schemas.js";

const suspectRelationshipOutput = z.object({
  source_requirement_id: z.string(),
  target_requirement_id: z.string(),
  relationship_type: z.string(),
  source_revision: z.number().int().describe("The source's revision when the link was created or confirmed."),
  source_revision_now: z.number().int(),
  target_revision: z.number().int().describe("The target's revision when the link was created or confirmed."),
  target_revision_now: z.number().int(),
  changed: z.array(z.enum(["source", "target"])).describe("The ends that changed since."),
});

const suspectCitationOutput = z.object({
  reference_id: z.string().describe("The cited entity."),
  entity_kind: z.enum(["epic", "user_story", "requirement", "acceptance_criterion"]),
  repository: z.string(),
  commit: z.string().describe("The commit of the repository's latest pushed scan."),
  file: z.string(),
  line: z.number().int(),
  kind: z.enum(["impl", "test", "doc"]),
  pinned_revision: z.number().int().describe("The revision the code pins (`REQ-001@2`)."),
  revision_now: z.number().int().describe("The entity's current revision."),
});

export const listSuspectLinksTool = hostedTool({
  name: "list_suspect_links",
  title: "List suspect links",
  description:
    "Links that may be stale: relationships whose source or target requirement changed since the link was created or last confirmed, and trace citations (in the latest pushed scan of each repository) pinned to an older revision of what they cite, with repository, file and line. Optionally only those touching one epic. Paged: up to limit links in all, the relationships first (in creation order), then the citations (by repository, file, line and reference id, in binary order); pass next_cursor as cursor, with the same epic_id, for the next page. For each, see what changed with diff_revisions (from the remembered revision), then update the dependent requirement or test, or call confirm_relationship if the link still holds.",
  input: z.object({
    epic_id: epicId()
      .optional()
      .describe(
        "Only links with an end in this epic, and citations of its epic, stories, requirements or criteria.",
      ),
    limit: limit().describe("Most links to return, relationships and citations together."),
    cursor: cursor().optional(),
  }),
  output: z.object({
    relationships: z.array(suspectRelationshipOutput),
    trace_citations: z.array(suspectCitationOutput),
    next_cursor: z
      .string()
      .optional()
      .describe("Present when more links follow: pass it as cursor, with the same epic_id, to get them."),
  }),
  annotations: READ,
  handler: ({ epic_id, limit, cursor }, ctx) =>
    ctx.database.read(async (db) => {
      const ws = ctx.auth.workspaceId;
      const epicRowId = epic_id === undefined ? undefined : (await requireEpicRow(db, ws, epic_id)).id;
      // The workspace is in the tag too: a cursor of another workspace is refused, not read as a position.
      const tag = `suspect_links:${ws}:${epicRowId ?? ""}`;
      const from = decodeCursor(tag, cursor, isSuspectPosition);
      const page = await suspectLinksPage(db, ws, { epicRowId, from, limit });
      return {
        relationships: page.relationships,
        trace_citations: page.trace_citations,
        ...(page.next ? { next_cursor: encodeCursor(tag, page.next) } : {}),
      };
    }),
});

export const confirmRelationshipTool = hostedTool({
  name: "confirm_relationship",
  title: "Confirm relationship",
  description:
    "Confirm that a link still holds after one of its requirements changed: it remembers both ends' current revisions, so it is no longer suspect. Recorded in the history of both requirements (say why in change_note). Returns the relationship.",
  input: relationshipKey,
  output: relationshipOutput,
  // Overwrites only the remembered revisions (no content); a second confirm records a second revision.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  recordsHistory: true,
  handler: (input, ctx) =>
    ctx.database.write((tx) => confirmRelationship(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const suspectLinkTools = [listSuspectLinksTool, confirmRelationshipTool];
