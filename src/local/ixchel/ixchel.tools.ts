/**
 * The `ixchel` toolset: a knowledge graph of decisions, issues, ideas, reports, sources, citations, agents
 * and sessions kept as markdown files with YAML frontmatter under `.ixchel/` (spec: ixchel-tools.md).
 */
import * as z from "zod";
import type { AnyZodObject, Registry, ToolDef } from "../../core/registry.js";
import type { LocalContext, LocalEnvironment } from "../context.js";
import { idArg } from "./id-arg.js";
import { KINDS } from "./kinds.js";
import { deleteTool, initTool, updateTool } from "./manage.tools.js";
import { check, context, graph, show, tags } from "./queries.js";
import { IxchelService } from "./service.js";
import { createEntity, linkEntities, unlinkEntities } from "./write.js";

/** defineTool with the companion's context fixed, so handlers see cwd and env. */
const tool = <I extends AnyZodObject, O>(def: ToolDef<LocalContext, I, O>): ToolDef<LocalContext, I, O> =>
  def;

const repo = z
  .string()
  .optional()
  .describe(
    "Any path inside the repository (absolute, or relative to the working directory); the root is the nearest folder above it holding .ixchel/. Default: the working directory.",
  );
const kind = z.enum(KINDS);
const id = idArg("An entity id such as dec-1a2b3c4d (case-insensitive).");
const idTitle = z.object({ id: z.string(), title: z.string() });

const syncOutput = z.object({
  scanned: z.number(),
  added: z.number(),
  modified: z.number(),
  deleted: z.number(),
  unchanged: z.number(),
  invalid: z.number(),
});

const searchOutput = z.object({
  mode: z.enum(["lexical", "hybrid"]),
  hits: z.array(z.object({ score: z.number(), id: z.string(), kind, title: z.string() })),
  note: z.string().optional(),
});

const showOutput = z.object({
  id: z.string(),
  kind,
  title: z.string(),
  path: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  body: z.string(),
  raw: z.string(),
  duplicates: z.array(z.string()).optional(),
});

const graphOutput = z.object({
  id: z.string(),
  title: z.string(),
  outgoing: z
    .array(
      z.object({
        rel: z.string(),
        targets: z.array(z.object({ id: z.string(), title: z.string().nullable() })),
      }),
    )
    .optional(),
  incoming: z.array(z.object({ rel: z.string(), sources: z.array(idTitle) })).optional(),
});

const contextOutput = z.object({
  id: z.string(),
  items: z.array(z.object({ id: z.string(), kind, title: z.string(), body: z.string(), depth: z.number() })),
  broken: z.array(z.string()),
});

const tagsOutput = z.object({
  total: z.number(),
  tags: z.array(z.object({ tag: z.string(), count: z.number() })).optional(),
  untagged: z.array(z.object({ id: z.string(), kind, title: z.string() })).optional(),
});

const createOutput = z.object({ id: z.string(), kind, title: z.string(), path: z.string() });

const linkOutput = z.object({
  from: z.string(),
  rel: z.string(),
  to: z.string(),
  changed: z.boolean(),
  targets: z.array(z.string()),
  path: z.string(),
});

const checkOutput = z.object({
  ok: z.boolean(),
  files: z.number(),
  entities: z.number(),
  problems: z.array(
    z.object({
      problem: z.string(),
      path: z.string(),
      line: z.number().optional(),
      id: z.string().optional(),
      message: z.string(),
    }),
  ),
});

const linkInput = z.object({
  from: idArg("Id of the entity whose frontmatter holds the link."),
  rel: z
    .string()
    .min(1)
    .describe("Relationship name: a frontmatter key such as depends_on, relates_to, supersedes."),
  to: idArg("Id of the target entity."),
  repo,
});

export function ixchelRegistry(environment: LocalEnvironment): Registry<LocalContext> {
  const service = new IxchelService(environment);

  const tools = [
    tool({
      name: "ixchel_sync",
      title: "Sync the ixchel cache",
      description:
        "Re-reads .ixchel/**/*.md into the cache under .ixchel/.cache/, parsing only new or changed files. Other ixchel tools sync on their own, so call this to see what changed, right after editing files outside these tools, or with rebuild: true to re-parse everything. Returns {scanned, added, modified, deleted, unchanged, invalid}; when invalid > 0, ixchel_check says which files and why.",
      input: z.object({
        rebuild: z
          .boolean()
          .default(false)
          .describe(
            "Re-read and re-parse every file instead of trusting the cache (after an upgrade, or when in doubt).",
          ),
        repo,
      }),
      output: syncOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      handler: ({ rebuild, repo }, ctx) => {
        const store = service.storeFor(repo, ctx);
        return store.exclusive(() => store.sync({ signal: ctx.signal, progress: ctx.progress, rebuild }));
      },
    }),
    initTool(service, repo),
    tool({
      name: "ixchel_search",
      title: "Search the knowledge graph",
      description:
        "Finds decisions, issues, ideas, reports, sources, citations, agents and sessions by words in their title, tags and body. Returns {mode, hits: [{score, id, kind, title}]} best first; mode is 'lexical' (BM25) or 'hybrid' (BM25 fused with embeddings when IXCHEL_EMBEDDINGS_URL is configured). An exact id as the query ranks that entity first. Next: ixchel_show or ixchel_context with a hit's id.",
      input: z.object({
        query: z.string().trim().min(1).describe("Words to look for, or an entity id."),
        limit: z.number().int().min(1).max(100).default(10),
        kind: kind.optional().describe("Only entities of this kind."),
        repo,
      }),
      output: searchOutput,
      annotations: { readOnlyHint: true },
      handler: ({ query, limit, kind, repo }, ctx) =>
        service.withSyncedStore(repo, ctx, (store) =>
          service.search(store, { query, limit, ...(kind ? { kind } : {}) }, ctx.signal),
        ),
    }),
    tool({
      name: "ixchel_show",
      title: "Show an entity",
      description:
        "Reads one entity by id (AC-002.3). Returns {id, kind, title, path, frontmatter, body, raw}; raw is the whole file. Use ixchel_graph for its links, ixchel_context to read it with what it links to.",
      input: z.object({ id, repo }),
      output: showOutput,
      annotations: { readOnlyHint: true },
      handler: ({ id, repo }, ctx) => service.withSyncedStore(repo, ctx, (store) => show(store, id)),
    }),
    tool({
      name: "ixchel_graph",
      title: "Show an entity's links",
      description:
        "Lists an entity's relationships (AC-002.4): outgoing links are frontmatter keys whose values are ids. Returns {id, title, outgoing: [{rel, targets: [{id, title}]}]} grouped by rel and sorted; a target that does not exist has title null. direction 'incoming' lists {rel, sources} that link to the entity instead; 'both' gives both.",
      input: z.object({
        id,
        direction: z.enum(["outgoing", "incoming", "both"]).default("outgoing"),
        repo,
      }),
      output: graphOutput,
      annotations: { readOnlyHint: true },
      handler: ({ id, direction, repo }, ctx) =>
        service.withSyncedStore(repo, ctx, (store) => graph(store, id, direction)),
    }),
    tool({
      name: "ixchel_context",
      title: "Assemble a context pack",
      description:
        "Collects an entity and the entities it links to, with their bodies (no frontmatter), to read before working on it (AC-002.5). depth 1 (default) follows links one hop, up to 3. Returns {id, items: [{id, kind, title, body, depth}], broken: [ids]}: broken lists link targets that do not exist (reported, never an error).",
      input: z.object({ id, depth: z.number().int().min(0).max(3).default(1), repo }),
      output: contextOutput,
      annotations: { readOnlyHint: true },
      handler: ({ id, depth, repo }, ctx) =>
        service.withSyncedStore(repo, ctx, (store) => context(store, id, depth)),
    }),
    tool({
      name: "ixchel_tags",
      title: "List tags",
      description:
        "Lists every tag with how many entities use it, sorted alphabetically (AC-004). Returns {total, tags: [{tag, count}]}. With untagged: true, returns {total, untagged: [{id, kind, title}]}: the entities without tags, to tag them. kind limits either list to one kind.",
      input: z.object({ kind: kind.optional(), untagged: z.boolean().default(false), repo }),
      output: tagsOutput,
      annotations: { readOnlyHint: true },
      handler: ({ kind, untagged, repo }, ctx) =>
        service.withSyncedStore(repo, ctx, (store) => tags(store, kind, untagged)),
    }),
    tool({
      name: "ixchel_create",
      title: "Create an entity",
      description:
        'Records a new decision, issue, idea, report, source, citation, agent or session as .ixchel/<kind folder>/<id>.md with a fresh unique id and frontmatter (id, type, title, status, created_at, updated_at, tags, and one key per relationship); makes .ixchel/ first when the repository has none (see ixchel_init). links maps a relationship name to existing target ids, e.g. {"depends_on": ["iss-1a2b3c4d"]}. Returns {id, kind, title, path}.',
      input: z.object({
        kind,
        title: z.string().min(1).describe("One line."),
        body: z.string().optional().describe("Markdown body."),
        tags: z.array(z.string().trim().min(1)).optional(),
        links: z
          .record(z.string(), z.array(z.string().min(1)).min(1))
          .optional()
          .describe("Relationship name → target ids."),
        status: z.string().trim().min(1).optional().describe("e.g. proposed, accepted, open, closed."),
        created_by: z.string().trim().min(1).optional(),
        repo,
      }),
      output: createOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      handler: ({ repo, ...input }, ctx) =>
        service.withSyncedStore(repo, ctx, (store) => createEntity(store, input), "create"),
    }),
    tool({
      name: "ixchel_link",
      title: "Link two entities",
      description:
        "Adds `to` to the relationship `rel` in the frontmatter of `from` (created as a list when absent); the body is kept byte for byte. Linking twice changes nothing (changed: false). Returns {from, rel, to, changed, targets, path}.",
      input: linkInput,
      output: linkOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      handler: ({ repo, ...input }, ctx) =>
        service.withSyncedStore(repo, ctx, (store) => linkEntities(store, input), "write"),
    }),
    tool({
      name: "ixchel_unlink",
      title: "Remove a link",
      description:
        "Removes `to` from the relationship `rel` in the frontmatter of `from` (the key goes when its list is empty); works for broken links too. The body is kept byte for byte. Returns {from, rel, to, changed, targets, path}.",
      input: linkInput,
      output: linkOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      handler: ({ repo, ...input }, ctx) =>
        service.withSyncedStore(repo, ctx, (store) => unlinkEntities(store, input), "write"),
    }),
    updateTool(service, repo),
    deleteTool(service, repo),
    tool({
      name: "ixchel_check",
      title: "Check the knowledge graph",
      description:
        "Finds what is wrong in .ixchel/: unparsable frontmatter (with file and line), missing or invalid ids, duplicate ids, broken links, files whose folder or name does not match their id, files outside the kind folders. Returns {ok, files, entities, problems: [{problem, path, line?, id?, message}]}; each message says how to fix it.",
      input: z.object({ repo }),
      output: checkOutput,
      annotations: { readOnlyHint: true },
      handler: ({ repo }, ctx) => service.withSyncedStore(repo, ctx, (store) => check(store)),
    }),
  ];

  return {
    name: "ixchel",
    tools,
    instructions:
      "ixchel tools: a knowledge graph of decisions, issues, ideas and reports as markdown under .ixchel/. Search with ixchel_search, read with ixchel_show or ixchel_context, record new knowledge with ixchel_create and ixchel_link, change it with ixchel_update, remove it with ixchel_delete. ixchel_init starts a graph in a repository without .ixchel/.",
  };
}
