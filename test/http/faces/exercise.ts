/**
 * Drives every tool, resource and prompt of a compiled registry with valid arguments, generated from the
 * registry itself: a new tool is exercised by the role and tenant suites without editing them. A required
 * argument this file cannot fill fails loudly, naming the argument to add a sample for.
 */
import type { ListedTool } from "../../../src/protocol/compile.js";
import type { TestApp } from "../../helpers/app.js";
import { type RpcAnswer, rpc } from "./http.js";

/** Reference ids of a seeded set of entities in one workspace. */
export interface Seed {
  epic: string;
  story: string;
  req1: string;
  req2: string;
  ac: string;
  /** Name of a registered docset with one stored page (when the registry has docsets). */
  docset?: string;
  /** Name of a baseline of the seeded entities (when the registry has baselines); lower case, no marker. */
  baseline?: string;
  /** comment_id of a comment on req1 (when the registry has comments). */
  comment?: number;
  /** Id of a spare token of the seeding user, named with the marker (when the registry has my tokens). */
  token?: number;
  /** In every title and description; a relationship `req1 depends_on req2` exists. */
  marker: string;
  /** Slug of the seed's workspace, for URIs that name it (export://{workspace}/…); default "default". */
  workspace?: string;
}

/** A docset name made from free text: `[a-z0-9][a-z0-9._-]*`, short. */
export function docsetName(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  return `docs-${slug}`.slice(0, 48).replace(/[-.]+$/, "");
}

function ok(a: RpcAnswer, what: string): Record<string, unknown> {
  if (a.status !== 200 || !a.body?.result) throw new Error(`${what} failed: ${a.status} ${a.text}`);
  return a.body.result.structuredContent as Record<string, unknown>;
}

async function create(
  t: TestApp,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const out = ok(await rpc(t, "tools/call", { name, arguments: args }, token), name);
  return out.reference_id as string;
}

/** Creates an epic, a story, two requirements, an acceptance criterion and a relationship, all marked. */
export async function seed(t: TestApp, token: string, marker: string): Promise<Seed> {
  const epic = await create(t, token, "create_epic", {
    title: `${marker} epic`,
    description: `${marker} epic body`,
  });
  const story = await create(t, token, "create_user_story", {
    epic_id: epic,
    title: `${marker} story`,
    description: marker,
  });
  const req1 = await create(t, token, "create_requirement", {
    user_story_id: story,
    title: `${marker} requirement one`,
    description: `${marker} first`,
    type: "Functional",
    priority: 1,
  });
  const req2 = await create(t, token, "create_requirement", {
    user_story_id: story,
    title: `${marker} requirement two`,
    description: `${marker} second`,
    type: "Non-Functional",
    priority: 2,
  });
  const ac = await create(t, token, "create_acceptance_criteria", {
    user_story_id: story,
    description: `Given ${marker} when used then it works`,
  });
  ok(
    await rpc(
      t,
      "tools/call",
      {
        name: "create_relationship",
        arguments: {
          source_requirement_id: req1,
          target_requirement_id: req2,
          relationship_type: "depends_on",
        },
      },
      token,
    ),
    "create_relationship",
  );
  // A baseline of it all, when the registry has them. Its name echoes in answers, so it does not carry
  // the (upper-case) marker: an intruder's "not found" naming it is not a leak.
  const baselineName = `base-${docsetName(marker).slice(5)}`.toLowerCase();
  const based = await rpc(
    t,
    "tools/call",
    { name: "create_baseline", arguments: { name: baselineName } },
    token,
  );
  const hasBaselines = based.body?.error?.code !== -32601;
  if (hasBaselines) ok(based, "create_baseline");
  const baseline = hasBaselines ? baselineName : undefined;
  const commented = await rpc(
    t,
    "tools/call",
    { name: "add_comment", arguments: { id: req1, text: `${marker} comment` } },
    token,
  );
  const comment =
    commented.body?.error?.code === -32601 ? undefined : (ok(commented, "add_comment").comment_id as number);
  // A spare token of the seeding user: revoke_my_token gets its id (the seeding token itself stays valid).
  const minted = await rpc(
    t,
    "tools/call",
    { name: "create_my_token", arguments: { name: `${marker} token` } },
    token,
  );
  const spare =
    minted.body?.error?.code === -32601 ? undefined : (ok(minted, "create_my_token").id as number);
  const extras = {
    ...(baseline ? { baseline } : {}),
    ...(comment !== undefined ? { comment } : {}),
    ...(spare !== undefined ? { token: spare } : {}),
  };
  // Docsets, when the registry serves them: one docset with one page that carries the marker.
  const docset = docsetName(marker);
  const registered = await rpc(
    t,
    "tools/call",
    { name: "register_docset", arguments: { name: docset, version: "1.0", description: `${marker} docs` } },
    token,
  );
  if (registered.body?.error?.code === -32601) return { epic, story, req1, req2, ac, marker, ...extras };
  ok(registered, "register_docset");
  ok(
    await rpc(
      t,
      "tools/call",
      {
        name: "upload_docset_pages",
        arguments: {
          docset,
          pages: [{ path: "guide/intro.md", content: `# ${marker} intro\n\nHooks of ${marker}.` }],
        },
      },
      token,
    ),
    "upload_docset_pages",
  );
  return { epic, story, req1, req2, ac, docset, marker, ...extras };
}

/** The value of an id-like argument, or undefined when `name` is not one. */
export function idFor(name: string, s: Seed): string | undefined {
  switch (name) {
    case "epic_id":
      return s.epic;
    case "user_story_id":
    case "user_story":
      return s.story;
    case "requirement_id":
    case "source_requirement_id":
    case "id":
      return s.req1;
    case "target_requirement_id":
      return s.req2;
    case "acceptance_criteria_id":
      return s.ac;
    case "docset":
      return s.docset;
    case "baseline":
      return s.baseline;
    default:
      return undefined;
  }
}

function valueFor(tool: string, name: string, s: Seed, unique: string): unknown {
  if (tool.includes("baseline") && (name === "name" || name === "from")) {
    return tool.startsWith("create_") ? `base ${unique}`.replace(/[^\p{L}\p{N} ._-]/gu, "-") : s.baseline;
  }
  // A verdict names a revision: req2, which no other tool of the suites changes, stays at revision 1.
  if ((tool === "approve" || tool === "request_changes") && name === "id") return s.req2;
  const id = idFor(name, s);
  if (id !== undefined) return id;
  switch (name) {
    case "title":
      return `${unique} ${tool} title`;
    case "description":
      return `${unique} ${tool} description`;
    case "type":
      return "Functional";
    case "priority":
      return 2;
    case "relationship_type":
      // The seed's link is depends_on: deleting removes it, creating adds a second kind.
      return tool.startsWith("delete_") ? "depends_on" : "relates_to";
    case "query":
      // Lower case: an answer that echoes its query must not be mistaken for a leak of the (upper-case) marker.
      return s.marker.toLowerCase();
    case "name":
      return tool.includes("docset")
        ? docsetName(unique)
        : `Type ${unique}`.replace(/[^\p{L}\p{N} _-]/gu, "-");
    case "version":
      return "2.0";
    case "revision":
    case "from":
      return 1;
    case "text":
      return `${unique} comment`;
    case "comment":
      return `${unique} please change`;
    case "comment_id":
      return s.comment;
    case "token_id":
      return s.token;
    case "reviewers":
      // The admin every role suite has; another workspace's caller is refused on the entity first.
      return ["ada"];
    case "approvals_required":
      return 0;
    case "keywords":
      return [s.marker.toLowerCase()];
    case "generalized_keywords":
      return ["intro"];
    case "pages":
      return [{ path: "guide/extra.md", content: `# ${unique}\n\nMore.` }];
    case "docs_root":
      return "docs/vendor";
    case "cascade":
      // A delete of a seeded parent with children is refused without it; with it, the call reaches as far
      // as it can (so a delete that crossed workspaces would show).
      return true;
    case "ids":
      // resolve_references: the seed's ids, and one no workspace has.
      return [s.req1, s.epic, s.story, s.ac, "REQ-9999"];
    case "missing":
      return "any";
    case "format":
      return "json";
    default:
      return undefined;
  }
}

/**
 * Arguments for one call: every required argument, plus an id-like optional one (a filter) and, for an
 * update, a title to change, so a call that reached another workspace's data would both read and write it.
 */
export function sampleArgs(tool: ListedTool, s: Seed, unique: string): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const args: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties ?? {})) {
    const isRequired = required.has(name);
    const wanted =
      isRequired ||
      idFor(name, s) !== undefined ||
      (name === "title" && tool.name.startsWith("update_")) ||
      (name === "cascade" && tool.name.startsWith("delete_"));
    // An update's optional parent id would move the entity: keep the one it has.
    if (!wanted || (!isRequired && tool.name.startsWith("update_") && name.endsWith("_id"))) continue;
    const value = valueFor(tool.name, name, s, unique);
    if (value === undefined) {
      if (isRequired)
        throw new Error(
          `No sample value for required argument "${name}" of ${tool.name}: add one in test/http/faces/exercise.ts`,
        );
      continue;
    }
    args[name] = value;
  }
  return args;
}

/** Deletes of the seed's own entities, leaf first: each finds its target before a parent's cascade took it. */
const DELETE_ORDER = [
  "delete_relationship",
  "delete_acceptance_criteria",
  "delete_requirement",
  "delete_user_story",
  "delete_epic",
];

/**
 * The tools in the order one seed can serve them all: every other tool first, then the deletes, leaf
 * first (a delete tool this list does not know goes before them, so it fails loudly if it needs more).
 */
export function exerciseOrder<T extends { name: string }>(tools: T[]): T[] {
  const rank = (t: T) => (t.name.startsWith("delete_") ? 1 + DELETE_ORDER.indexOf(t.name) : 0);
  return [...tools].sort((a, b) => rank(a) - rank(b));
}

/** A template's URI with its variables filled from the seed (`epic://{epic_id}` → `epic://EP-001`). */
export function sampleUri(template: string, s: Seed): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (name === "workspace") return s.workspace ?? "default";
    if (name === "format") return "json";
    const id =
      template.startsWith("docset://") && name === "name"
        ? s.docset
        : template.startsWith("baseline://")
          ? s.baseline
          : idFor(name, s);
    if (id === undefined)
      throw new Error(`No sample value for URI variable {${name}} in ${template}: add one in exercise.ts`);
    return id;
  });
}

/** Prompt arguments: each declared argument that names an entity, filled from the seed. */
export function samplePromptArgs(
  args: { name: string; required: boolean }[],
  s: Seed,
  prompt: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of args) {
    const id = idFor(a.name, s);
    if (id !== undefined) {
      // suggest_test_scenarios takes one of two ids: give the first the prompt declares.
      if (!a.required && Object.keys(out).length > 0) continue;
      out[a.name] = id;
    } else if (a.required) {
      throw new Error(
        `No sample value for required argument "${a.name}" of prompt ${prompt}: add one in exercise.ts`,
      );
    }
  }
  return out;
}

export type Outcome = "ok" | "forbidden" | "not_found" | "other";

/** How a JSON-RPC or /mcp answer to tools/call came out. */
export function outcomeOf(face: "jsonrpc" | "mcp", a: RpcAnswer): Outcome {
  if (face === "jsonrpc") {
    if (a.status === 200 && a.body?.result) return "ok";
    if (a.status === 403 && a.body?.error?.code === -32003) return "forbidden";
    if (a.status === 200 && a.body?.error?.code === -32002) return "not_found";
    return "other";
  }
  const result = a.body?.result;
  if (!result) return a.body?.error?.code === -32002 ? "not_found" : "other";
  if (!result.isError) return "ok";
  const text = String(result.content?.[0]?.text ?? "");
  if (text.startsWith("Forbidden")) return "forbidden";
  if (/not found|^unknown /i.test(text)) return "not_found";
  return "other";
}
