/** Requirement and relationship types: everyone reads them; workspace admins add requirement types. */
import * as z from "zod";
import {
  createRequirementType,
  listRelationshipTypes,
  listRequirementTypes,
} from "../db/requirement-types.repo.js";
import { CREATE, hostedTool, READ } from "./access.js";
import { namedTypeOutput } from "./schemas.js";

/** What both list tools answer: the workspace's types of that kind, name and meaning. */
const typesOutput = z.object({ types: z.array(namedTypeOutput) });

export const listRequirementTypesTool = hostedTool({
  name: "list_requirement_types",
  title: "List requirement types",
  description:
    "List this workspace's requirement types (name and meaning), e.g. Functional, Non-Functional: the values of `type` in create_requirement, update_requirement and search_requirements.",
  input: z.object({}),
  output: typesOutput,
  annotations: READ,
  handler: async (_input, ctx) => ({
    types: await ctx.database.read((db) => listRequirementTypes(db, ctx.auth.workspaceId)),
  }),
});

export const listRelationshipTypesTool = hostedTool({
  name: "list_relationship_types",
  title: "List relationship types",
  description:
    "List the relationship types of this workspace (name and meaning), e.g. depends_on, blocks, relates_to. Use a name from this list as relationship_type in create_relationship.",
  input: z.object({}),
  output: typesOutput,
  annotations: READ,
  handler: async (_input, ctx) => ({
    types: await ctx.database.read((db) => listRelationshipTypes(db, ctx.auth.workspaceId)),
  }),
});

export const createRequirementTypeTool = hostedTool({
  name: "create_requirement_type",
  title: "Create requirement type",
  description:
    "Add a requirement type to this workspace (workspace admins only), when the team classifies requirements in a way the existing types do not cover. A name that exists in any case is refused as a conflict. Returns the new type.",
  input: z.object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(60)
      .regex(
        /^[\p{L}\p{N}][\p{L}\p{N} _-]*$/u,
        "letters, digits, spaces, - and _ only, starting with a letter or digit",
      )
      .describe("The type's name, e.g. 'Security'."),
    description: z.string().trim().max(500).default("").describe("What requirements of this type describe."),
  }),
  output: namedTypeOutput,
  annotations: CREATE,
  role: "admin",
  handler: (input, ctx) => ctx.database.write((tx) => createRequirementType(tx, ctx.auth.workspaceId, input)),
});

export const typeTools = [listRequirementTypesTool, listRelationshipTypesTool, createRequirementTypeTool];
