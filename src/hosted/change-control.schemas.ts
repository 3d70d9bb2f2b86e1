/** The zod pieces of change control: the any-entity id argument and the history and diff outputs. */
import * as z from "zod";
import { kindOfReference } from "../core/references.js";
import { ENTITY_KINDS, REVISION_OPS } from "../db/schema.js";

/** An epic, user story, requirement or acceptance criterion id, any case (`req-5` → `REQ-005`). */
export const entityId = () =>
  z
    .string()
    .trim()
    .refine((id) => kindOfReference(id) !== undefined, {
      message: "Invalid reference ID format: expected EP-<n>, US-<n>, REQ-<n> or AC-<n>",
    })
    .transform((id) => kindOfReference(id)?.reference ?? id)
    .describe(
      "Reference ID of an epic, user story, requirement or acceptance criterion (e.g., 'REQ-048', 'US-047').",
    );

export const revisionNumber = () =>
  z
    .number()
    .int()
    .min(1)
    .describe("A revision number of the entity (1 = as created; get_history lists them).");

export const revisionOutput = z.object({
  entity_kind: z.enum(ENTITY_KINDS),
  reference_id: z
    .string()
    .describe("The entity's reference id; a relationship's is 'SOURCE relationship_type TARGET'."),
  revision: z.number().int(),
  op: z.enum(REVISION_OPS),
  snapshot: z
    .record(z.string(), z.unknown())
    .describe("The entity as it was after this change (parents by reference id)."),
  username: z.string().nullable().describe("Who made the change."),
  token_id: z.number().int().nullable(),
  request_id: z.string().nullable(),
  tool: z.string().nullable().describe("The tool that made the change."),
  change_note: z.string().nullable().describe("Why, as the writer said."),
  source: z.string().nullable().describe("Where the change came from (URL, meeting, ticket)."),
  created_at: z.string(),
});

export const fieldChangeOutput = z.object({
  field: z.string(),
  from: z.unknown(),
  to: z.unknown(),
  diff: z
    .string()
    .optional()
    .describe("Text fields: word-level diff, removed words in [-…-], added words in {+…+}."),
});
