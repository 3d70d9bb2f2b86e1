/**
 * The hosted registry: every tool, resource and prompt the hosted server offers, defined once and served
 * by `/mcp` and `/api/v1/mcp` alike (DESIGN: one registry, several faces). Roles are checked inside each
 * tool (access.ts); workspace scoping inside every repository call.
 */
import { groupTools, type Registry, type ToolsetGroup } from "../core/registry.js";
import { acceptanceCriteriaTools } from "./acceptance-criteria.tools.js";
import { listAuditEventsTool } from "./audit-log.tool.js";
import { changeControlResources, changeControlTools } from "./change-control.js";
import type { HostedContext } from "./context.js";
import { deleteTools } from "./deletes.tools.js";
import { listDocsetPagesTool } from "./docset-pages.tool.js";
import { docsetResources } from "./docsets.resources.js";
import { docsetTools } from "./docsets.tools.js";
import { getEpicGraphTool } from "./epic-graph.tool.js";
import {
  createEpicTool,
  epicHierarchyTool,
  getEpicTool,
  listEpicsTool,
  updateEpicTool,
} from "./epics.tools.js";
import { HOSTED_INSTRUCTIONS } from "./instructions.js";
import { exportRequirementsTool, exportResource } from "./interchange.tools.js";
import { myTokenTools } from "./my-tokens.tools.js";
import { workspaceOverviewTool } from "./overview.tool.js";
import { hostedPrompts } from "./prompts.js";
import { createRelationshipTool, deleteRelationshipTool } from "./relationships.tools.js";
import {
  createRequirementTool,
  getRequirementTool,
  listRequirementsTool,
  updateRequirementTool,
} from "./requirements.tools.js";
import { hostedResources } from "./resources.js";
import { reviewChangesPrompt } from "./review-changes.prompt.js";
import { searchGlobalTool, searchRequirementsTool } from "./search.tools.js";
import { traceTools } from "./traces.tools.js";
import {
  createRequirementTypeTool,
  listRelationshipTypesTool,
  listRequirementTypesTool,
} from "./types.tools.js";
import {
  createUserStoryTool,
  getUserStoryTool,
  listUserStoriesTool,
  updateUserStoryTool,
} from "./user-stories.tools.js";
import { getUserStoryRequirementsTool } from "./user-story-requirements.tool.js";

export type { HostedContext } from "./context.js";

/**
 * The toolsets a connection chooses from (`?toolsets=` or `X-MCP-Toolsets`; protocol/tool-selection.ts).
 * The default is what a coding assistant needs on every task (find, read, add and amend requirements) and
 * stays under 6,000 tokens of tools/list (bench/tools-list-tokens.ts); reshaping the backlog, deleting,
 * reviews, traces, docsets, exports and administration are one toolset name away.
 */
const toolsets: ToolsetGroup<HostedContext>[] = [
  {
    name: "requirements",
    default: true,
    description:
      "Find, read and write requirements and acceptance criteria: search, overview, epic and story trees, create and update, links",
    tools: [
      searchRequirementsTool,
      searchGlobalTool,
      workspaceOverviewTool,
      epicHierarchyTool,
      getUserStoryTool,
      getRequirementTool,
      createRequirementTool,
      updateRequirementTool,
      ...acceptanceCriteriaTools,
      createRelationshipTool,
    ],
  },
  {
    name: "backlog",
    default: false,
    description:
      "Epics and user stories (list, read, create, update), requirement lists, the spec's story report, deletes of every entity and relationship, requirement and relationship types",
    tools: [
      listEpicsTool,
      getEpicTool,
      createEpicTool,
      updateEpicTool,
      listUserStoriesTool,
      createUserStoryTool,
      updateUserStoryTool,
      listRequirementsTool,
      getUserStoryRequirementsTool,
      listRequirementTypesTool,
      listRelationshipTypesTool,
      deleteRelationshipTool,
      ...deleteTools,
    ],
  },
  {
    name: "change_control",
    default: false,
    description: "History and diffs, suspect links, baselines, comments, reviews and approvals",
    tools: changeControlTools,
  },
  {
    name: "traceability",
    default: false,
    description:
      "Citations of requirement ids in code, tests and commits: traces, coverage, untraced, epic graph",
    tools: [...traceTools, getEpicGraphTool],
  },
  {
    name: "docsets",
    default: false,
    description: "Documentation sets: search, list and read stored pages; register, update, upload, delete",
    // list_docset_pages before delete_docset, which the generated role tests call on the seeded docset.
    tools: [listDocsetPagesTool, ...docsetTools],
  },
  {
    name: "interchange",
    default: false,
    description: "Export the workspace as JSON, CSV, markdown or ReqIF (imports: POST /api/v1/import)",
    tools: [exportRequirementsTool],
  },
  {
    name: "admin",
    default: false,
    description: "Your own access tokens; for admins also the audit log and new requirement types",
    tools: [...myTokenTools, listAuditEventsTool, createRequirementTypeTool],
  },
];

export const hostedRegistry: Registry<HostedContext> = {
  name: "hosted",
  ...groupTools(toolsets),
  resources: [...hostedResources, ...changeControlResources, ...docsetResources, exportResource],
  prompts: [...hostedPrompts, reviewChangesPrompt],
  instructions: HOSTED_INSTRUCTIONS,
};
