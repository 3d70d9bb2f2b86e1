/** Typed links between requirements (depends_on, blocks, relates_to, conflicts_with, derives_from, …). */
import * as z from "zod";
import { createRelationship, deleteRelationship } from "../db/relationships.repo.js";
import { actor, CREATE, DELETE, hostedTool } from "./access.js";
import { requirementId, writtenRelationshipOutput } from "./schemas.js";

export const relationshipKey = z.object({
  source_requirement_id: requirementId(),
  target_requirement_id: requirementId(),
  relationship_type: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe(
      "Relationship type name, any case: depends_on, blocks, relates_to, conflicts_with, derives_from (or the workspace's own; list_relationship_types).",
    ),
});

export const createRelationshipTool = hostedTool({
  name: "create_relationship",
  title: "Create relationship",
  description:
    "Link two requirements: source --relationship_type--> target (e.g. REQ-012 depends_on REQ-004), when one constrains, blocks, refines or contradicts the other, so impact can be traced. An existing link is refused as a conflict.",
  input: relationshipKey,
  output: writtenRelationshipOutput,
  annotations: CREATE,
  recordsHistory: true,
  handler: (input, ctx) =>
    ctx.database.write((tx) => createRelationship(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const deleteRelationshipTool = hostedTool({
  name: "delete_relationship",
  title: "Delete relationship",
  description:
    "Remove the link source --relationship_type--> target between two requirements (the requirements themselves stay). Returns the relationship that was removed; not found if there was no such link.",
  input: relationshipKey,
  output: writtenRelationshipOutput,
  annotations: DELETE,
  recordsHistory: true,
  handler: (input, ctx) =>
    ctx.database.write((tx) => deleteRelationship(tx, ctx.auth.workspaceId, input, actor(ctx))),
});

export const relationshipTools = [createRelationshipTool, deleteRelationshipTool];
