/**
 * Resources (DESIGN's URI list, offered as templates; jsonrpc spec requirement 6). Entities read as
 * markdown for people; relationship and type lists as JSON. An unknown or malformed URI is not found.
 */
import { DomainError } from "../core/errors.js";
import { normalizeReference } from "../core/references.js";
import type { ResourceContent, ResourceDef } from "../core/registry.js";
import { getAcceptanceCriterion } from "../db/acceptance-criteria.repo.js";
import { getEpic, listEpics } from "../db/epics.repo.js";
import { epicHierarchyPage, userStoryCriteriaPage } from "../db/hierarchy.repo.js";
import { relationshipsOfRequirement } from "../db/relationships.repo.js";
import { listRelationshipTypes, listRequirementTypes } from "../db/requirement-types.repo.js";
import { getRequirement } from "../db/requirements.repo.js";
import { requireUserStoryRow } from "../db/user-stories.repo.js";
import type { HostedContext } from "./context.js";
import { coverageOfOne } from "./coverage.js";
import {
  criterionMarkdown,
  epicMarkdown,
  epicTreeMarkdown,
  requirementMarkdown,
  userStoryMarkdown,
} from "./markdown.js";
import { DEFAULT_PAGE_ITEMS, toolBudget } from "./paging.js";
import { renderUserStoryRequirements, userStoryRequirementsPage } from "./user-story-requirements.tool.js";

const MARKDOWN = "text/markdown";
const JSON_TYPE = "application/json";

/** A `scheme://ID[/suffix]` resource whose ID has `prefix`; the id is matched in any case. */
export function entityResource(
  scheme: string,
  suffix: string,
  prefix: string,
  def: Omit<ResourceDef<HostedContext>, "match" | "read" | "uriTemplate"> & { variable: string },
  read: (id: string, ctx: HostedContext) => Promise<string>,
): ResourceDef<HostedContext> {
  const pattern = new RegExp(`^${scheme}://([^/?#]+)${suffix ? `/${suffix}` : ""}$`, "i");
  const { variable, ...rest } = def;
  return {
    ...rest,
    uriTemplate: `${scheme}://{${variable}}${suffix ? `/${suffix}` : ""}`,
    match(uri) {
      const m = pattern.exec(uri);
      return m ? { [variable]: decodeURIComponent(m[1] as string) } : undefined;
    },
    async read(params, uri, ctx): Promise<ResourceContent[]> {
      const raw = params[variable] ?? "";
      const id = normalizeReference(prefix, raw);
      if (!id)
        throw DomainError.notFound(
          `Resource not found: ${uri} (${raw} is not a ${prefix}-<number> id).`,
          raw,
        );
      return [{ uri, mimeType: def.mimeType, text: await read(id, ctx) }];
    },
  };
}

export const epicResource = entityResource(
  "epic",
  "",
  "EP",
  {
    variable: "epic_id",
    name: "epic",
    title: "Epic",
    description: "An epic as markdown: title, status, priority, people, dates and description.",
    mimeType: MARKDOWN,
    async list(ctx) {
      const page = await ctx.database.read((db) => listEpics(db, ctx.auth.workspaceId, { limit: 100 }));
      return page.items.map((e) => ({
        uri: `epic://${e.reference_id}`,
        name: `${e.reference_id}: ${e.title}`,
        mimeType: MARKDOWN,
      }));
    },
  },
  async (id, ctx) => epicMarkdown(await ctx.database.read((db) => getEpic(db, ctx.auth.workspaceId, id))),
);

export const epicHierarchyResource = entityResource(
  "epic",
  "hierarchy",
  "EP",
  {
    variable: "epic_id",
    name: "epic-hierarchy",
    title: "Epic hierarchy",
    description:
      "An epic with its user stories, their requirements and acceptance criteria, as markdown. A large epic shows its first page and names the epic_hierarchy call for the rest.",
    mimeType: MARKDOWN,
  },
  async (id, ctx) => {
    // Issue item 8: a resource has no cursor, so it is the first page plus the tool call for the rest.
    const page = await ctx.database.read((db) =>
      epicHierarchyPage(db, ctx.auth.workspaceId, id, toolBudget(DEFAULT_PAGE_ITEMS)),
    );
    const rest = page.next_cursor
      ? `\n_This epic continues beyond this page: call epic_hierarchy with epic_id "${id}" and cursor "${page.next_cursor}" for the rest._\n`
      : "";
    return `${epicTreeMarkdown(page)}${rest}`;
  },
);

export const userStoryResource = entityResource(
  "user-story",
  "",
  "US",
  {
    variable: "user_story_id",
    name: "user-story",
    title: "User story",
    description:
      "A user story as markdown: title, epic, status, priority, people, dates, description and acceptance criteria.",
    mimeType: MARKDOWN,
  },
  async (id, ctx) => {
    const { acceptance_criteria, more, ...story } = await ctx.database.read((db) =>
      userStoryCriteriaPage(db, ctx.auth.workspaceId, id, toolBudget(DEFAULT_PAGE_ITEMS)),
    );
    const rest = more
      ? `\n_More acceptance criteria follow: call get_user_story with user_story_id "${id}" and follow its next_cursor to read them all._\n`
      : "";
    return `${userStoryMarkdown(story, acceptance_criteria)}${rest}`;
  },
);

export const userStoryRequirementsResource = entityResource(
  "user-story",
  "requirements",
  "US",
  {
    variable: "user_story_id",
    name: "user-story-requirements",
    title: "User story requirements",
    description:
      "The requirements of a user story, most important first, in the same text as get_user_story_requirements: its first page, whose last line names the call for the next one when there is more.",
    mimeType: "text/plain",
  },
  async (id, ctx) =>
    ctx.database.read(async (db) => {
      const story = await requireUserStoryRow(db, ctx.auth.workspaceId, id);
      return renderUserStoryRequirements(
        await userStoryRequirementsPage(db, ctx.auth.workspaceId, story, DEFAULT_PAGE_ITEMS),
      );
    }),
);

export const requirementResource = entityResource(
  "requirement",
  "",
  "REQ",
  {
    variable: "requirement_id",
    name: "requirement",
    title: "Requirement",
    description:
      "A requirement as markdown: text, type, status, priority, people, dates, trace coverage and relationships.",
    mimeType: MARKDOWN,
  },
  async (id, ctx) =>
    ctx.database.read(async (db) =>
      requirementMarkdown(
        await getRequirement(db, ctx.auth.workspaceId, id),
        await relationshipsOfRequirement(db, ctx.auth.workspaceId, id),
        await coverageOfOne(db, ctx.auth.workspaceId, id),
      ),
    ),
);

export const requirementRelationshipsResource = entityResource(
  "requirement",
  "relationships",
  "REQ",
  {
    variable: "requirement_id",
    name: "requirement-relationships",
    title: "Requirement relationships",
    description: "A requirement's relationships as JSON: {requirement_id, outgoing: [...], incoming: [...]}.",
    mimeType: JSON_TYPE,
  },
  async (id, ctx) => {
    const links = await ctx.database.read((db) => relationshipsOfRequirement(db, ctx.auth.workspaceId, id));
    return JSON.stringify({ requirement_id: id, ...links }, null, 2);
  },
);

export const acceptanceCriterionResource = entityResource(
  "acceptance-criteria",
  "",
  "AC",
  {
    variable: "acceptance_criteria_id",
    name: "acceptance-criterion",
    title: "Acceptance criterion",
    description:
      "An acceptance criterion as markdown: its user story, creator, dates and the condition itself.",
    mimeType: MARKDOWN,
  },
  async (id, ctx) =>
    criterionMarkdown(await ctx.database.read((db) => getAcceptanceCriterion(db, ctx.auth.workspaceId, id))),
);

const TYPES_URI = "requirements://requirements-types";

/** Criterion 1.9 of the user-story spec: type names shown by tools are the names listed here. */
export const requirementTypesResource: ResourceDef<HostedContext> = {
  uriTemplate: TYPES_URI,
  name: "requirements-types",
  title: "Requirement types",
  description:
    "The workspace's requirement types and relationship types as JSON: {requirement_types: [{name, description}], relationship_types: [...]}.",
  mimeType: JSON_TYPE,
  match: (uri) => (uri.toLowerCase() === TYPES_URI ? {} : undefined),
  async read(_params, uri, ctx) {
    const [requirementTypes, relationshipTypes] = await ctx.database.read((db) =>
      Promise.all([
        listRequirementTypes(db, ctx.auth.workspaceId),
        listRelationshipTypes(db, ctx.auth.workspaceId),
      ]),
    );
    return [
      {
        uri,
        mimeType: JSON_TYPE,
        text: JSON.stringify(
          { requirement_types: requirementTypes, relationship_types: relationshipTypes },
          null,
          2,
        ),
      },
    ];
  },
  async list() {
    return [{ uri: TYPES_URI, name: "Requirement types", mimeType: JSON_TYPE }];
  },
};

// Order matters for matching: the more specific `…/hierarchy` forms are distinct patterns, so any order works;
// this order is the order of resources/templates/list.
export const hostedResources: ResourceDef<HostedContext>[] = [
  epicResource,
  epicHierarchyResource,
  userStoryResource,
  userStoryRequirementsResource,
  requirementResource,
  requirementRelationshipsResource,
  acceptanceCriterionResource,
  requirementTypesResource,
];
