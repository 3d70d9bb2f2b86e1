/**
 * The ixchel tools that set up the graph and change or remove entities: ixchel_init, ixchel_update and
 * ixchel_delete (hardening #16). Rules and decisions: edit.ts and root.ts.
 */
import * as z from "zod";
import type { AnyZodObject, ToolDef } from "../../core/registry.js";
import type { LocalContext } from "../context.js";
import { deleteEntity, updateEntity } from "./edit.js";
import { idArg } from "./id-arg.js";
import type { IxchelService } from "./service.js";

const tool = <I extends AnyZodObject, O>(def: ToolDef<LocalContext, I, O>): ToolDef<LocalContext, I, O> =>
  def;

export function initTool(service: IxchelService, repo: z.ZodOptional<z.ZodString>) {
  return tool({
    name: "ixchel_init",
    title: "Start a knowledge graph",
    description:
      "Creates .ixchel/ for a repository that has none: at the top of the git working tree that repo (default: the working directory) is in, or in that folder when it is not in one. Calling it again changes nothing (created: false). ixchel_create makes the folder by itself too. Returns {root, created, entities}. Next: ixchel_create.",
    input: z.object({ repo }),
    output: z.object({ root: z.string(), created: z.boolean(), entities: z.number() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    handler: ({ repo }, ctx) => service.init(repo, ctx),
  });
}

export function updateTool(service: IxchelService, repo: z.ZodOptional<z.ZodString>) {
  return tool({
    name: "ixchel_update",
    title: "Change an entity",
    description:
      'Changes an entity\'s title, body, tags, status or relationships in place (id, type and created_at never change); comments, key order and every field not given stay as they are, and the body is kept byte for byte unless body is given. links sets each named relationship to exactly the given ids, e.g. {"depends_on": ["iss-1a2b3c4d"]}; an empty list removes it; relationships not named are kept (ixchel_link/ixchel_unlink add or remove one id). Returns {id, path, changed, fields}.',
    input: z.object({
      id: idArg("Id of the entity to change, e.g. dec-1a2b3c4d."),
      title: z.string().min(1).optional().describe("New one-line title."),
      body: z.string().optional().describe("New markdown body (replaces the whole body)."),
      tags: z.array(z.string().trim().min(1)).optional().describe("New tags (replace the old ones)."),
      status: z.string().trim().min(1).optional().describe("e.g. proposed, accepted, open, closed."),
      links: z
        .record(z.string(), z.array(z.string().min(1)))
        .optional()
        .describe("Relationship name → the complete list of target ids ([] removes the relationship)."),
      repo,
    }),
    output: z.object({ id: z.string(), path: z.string(), changed: z.boolean(), fields: z.array(z.string()) }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    handler: ({ repo, ...input }, ctx) =>
      service.withSyncedStore(repo, ctx, (store) => updateEntity(store, input), "write"),
  });
}

export function deleteTool(service: IxchelService, repo: z.ZodOptional<z.ZodString>) {
  return tool({
    name: "ixchel_delete",
    title: "Delete an entity",
    description:
      "Deletes an entity's file. Refused while other entities link to it (the error names them): remove those links with ixchel_unlink, or pass cascade: true to remove every link to it along with it, so no link is left broken. Returns {id, path, unlinked: [{from, rel}]}.",
    input: z.object({
      id: idArg("Id of the entity to delete, e.g. dec-1a2b3c4d."),
      cascade: z
        .boolean()
        .default(false)
        .describe("Also remove the links other entities have to it (default: refuse while any exist)."),
      repo,
    }),
    output: z.object({
      id: z.string(),
      path: z.string(),
      unlinked: z.array(z.object({ from: z.string(), rel: z.string() })),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    handler: ({ repo, ...input }, ctx) =>
      service.withSyncedStore(repo, ctx, (store) => deleteEntity(store, input), "write"),
  });
}
