/** Full-text search (FTS5, bm25): across every entity, and over requirements with their filters. */
import * as z from "zod";
import { ENTITY_STATUSES, REQUIREMENT_STATUSES } from "../core/domain.js";
import { SEARCH_KINDS, searchGlobal, searchRequirements } from "../db/search.repo.js";
import { hostedTool, READ } from "./access.js";
import { cursor, limit, priority, requirementStatus } from "./schemas.js";

const query = () =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(500)
    .describe(
      "Words to find (all must occur, in any field), or a reference id such as REQ-012, which ranks that entity first.",
    );

const searchMeta = {
  mode: z.literal("lexical").describe("How results were found: lexical = full-text (FTS5, bm25)."),
  query: z.string(),
  next_cursor: z.string().optional().describe("Present when more results exist: pass it as cursor."),
  note: z
    .string()
    .optional()
    .describe(
      "Present when the query matches more than can be ranked: only the newest matches are ranked and returned; add words or filters.",
    ),
};

const hitFields = {
  reference_id: z.string(),
  title: z.string(),
  snippet: z.string().describe("Best matching passage; matches wrapped in ** **."),
  score: z.number().describe("Relevance; higher is better."),
  exact_match: z.boolean().describe("True when the query is this entity's reference id."),
};

export const searchGlobalTool = hostedTool({
  name: "search_global",
  title: "Search everything",
  description:
    "Full-text search across epics, user stories, requirements and acceptance criteria (id, title, text), best first; a reference id as query comes first. Use it to find what exists before creating, or the entity a user mentions. Returns ids, titles and snippets; open one with epic_hierarchy, get_user_story or get_requirement.",
  input: z.object({
    query: query(),
    entity_types: z
      .array(z.enum(SEARCH_KINDS))
      .optional()
      .describe("Only these kinds: epic, user_story, requirement, acceptance_criterion. Default: all."),
    status: z
      .enum([...new Set([...ENTITY_STATUSES, ...REQUIREMENT_STATUSES])] as [string, ...string[]])
      .optional()
      .describe("Only entities with this status (acceptance criteria have none and are then left out)."),
    limit: limit(),
    cursor: cursor().optional(),
  }),
  output: z.object({
    ...searchMeta,
    items: z.array(z.object({ kind: z.enum(SEARCH_KINDS), ...hitFields })),
  }),
  annotations: READ,
  handler: (input, ctx) => ctx.database.read((db) => searchGlobal(db, ctx.auth.workspaceId, input)),
});

export const searchRequirementsTool = hostedTool({
  name: "search_requirements",
  title: "Search requirements",
  description:
    "Full-text search over requirements (id, title, description), best first, filtered by status, type or priority; a reference id as query comes first. Use it before coding to find the requirements that govern the code, and before create_requirement to avoid duplicates. Read one fully with get_requirement.",
  input: z.object({
    query: query(),
    status: requirementStatus().optional(),
    type: z.string().trim().min(1).max(100).optional().describe("Requirement type name, any case."),
    priority: priority().optional(),
    limit: limit(),
    cursor: cursor().optional(),
  }),
  output: z.object({
    ...searchMeta,
    items: z.array(
      z.object({
        ...hitFields,
        user_story_id: z.string(),
        status: z.enum(REQUIREMENT_STATUSES),
        priority: z.number().int(),
        type_name: z.string(),
      }),
    ),
  }),
  annotations: READ,
  handler: (input, ctx) => ctx.database.read((db) => searchRequirements(db, ctx.auth.workspaceId, input)),
});

export const searchTools = [searchGlobalTool, searchRequirementsTool];
