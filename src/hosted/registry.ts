/**
 * The hosted registry: every tool, resource and prompt the hosted server offers, defined once and served
 * by `/mcp` and `/api/v1/mcp` alike (DESIGN: one registry, several faces). Roles are checked inside each
 * tool (access.ts); workspace scoping inside every repository call.
 */
import type { Registry } from "../core/registry.js";
import { acceptanceCriteriaTools } from "./acceptance-criteria.tools.js";
import { listAuditEventsTool } from "./audit-log.tool.js";
import { changeControlResources, changeControlTools } from "./change-control.js";
import type { HostedContext } from "./context.js";
import { deleteTools } from "./deletes.tools.js";
import { listDocsetPagesTool } from "./docset-pages.tool.js";
import { docsetResources } from "./docsets.resources.js";
import { docsetTools } from "./docsets.tools.js";
import { getEpicGraphTool } from "./epic-graph.tool.js";
import { epicTools } from "./epics.tools.js";
import { HOSTED_INSTRUCTIONS } from "./instructions.js";
import { exportRequirementsTool, exportResource } from "./interchange.tools.js";
import { myTokenTools } from "./my-tokens.tools.js";
import { workspaceOverviewTool } from "./overview.tool.js";
import { hostedPrompts } from "./prompts.js";
import { relationshipTools } from "./relationships.tools.js";
import { requirementTools } from "./requirements.tools.js";
import { hostedResources } from "./resources.js";
import { reviewChangesPrompt } from "./review-changes.prompt.js";
import { searchTools } from "./search.tools.js";
import { traceTools } from "./traces.tools.js";
import { typeTools } from "./types.tools.js";
import { userStoryTools } from "./user-stories.tools.js";
import { getUserStoryRequirementsTool } from "./user-story-requirements.tool.js";

export type { HostedContext } from "./context.js";

export const hostedRegistry: Registry<HostedContext> = {
  name: "hosted",
  tools: [
    ...searchTools,
    workspaceOverviewTool,
    ...epicTools,
    ...userStoryTools,
    getUserStoryRequirementsTool,
    ...requirementTools,
    ...acceptanceCriteriaTools,
    ...relationshipTools,
    getEpicGraphTool,
    ...deleteTools,
    ...changeControlTools,
    ...typeTools,
    // Before docsetTools, whose delete_docset the generated role tests call on the seeded docset.
    listDocsetPagesTool,
    ...docsetTools,
    listAuditEventsTool,
    ...traceTools,
    exportRequirementsTool,
    ...myTokenTools,
  ],
  resources: [...hostedResources, ...changeControlResources, ...docsetResources, exportResource],
  prompts: [...hostedPrompts, reviewChangesPrompt],
  instructions: HOSTED_INSTRUCTIONS,
};
