/**
 * The tools, resources and prompts of the requirements area of the hosted registry (the registry also
 * serves other areas, e.g. docsets, which test themselves). Tests here look at these, in listing order.
 */
import { acceptanceCriteriaTools } from "../../src/hosted/acceptance-criteria.tools.js";
import { deleteTools } from "../../src/hosted/deletes.tools.js";
import { epicTools } from "../../src/hosted/epics.tools.js";
import { relationshipTools } from "../../src/hosted/relationships.tools.js";
import { requirementTools } from "../../src/hosted/requirements.tools.js";
import { hostedResources } from "../../src/hosted/resources.js";
import { searchTools } from "../../src/hosted/search.tools.js";
import { typeTools } from "../../src/hosted/types.tools.js";
import { userStoryTools } from "../../src/hosted/user-stories.tools.js";
import { getUserStoryRequirementsTool } from "../../src/hosted/user-story-requirements.tool.js";

export const OWN_TOOL_NAMES = new Set(
  [
    ...searchTools,
    ...epicTools,
    ...userStoryTools,
    getUserStoryRequirementsTool,
    ...requirementTools,
    ...acceptanceCriteriaTools,
    ...relationshipTools,
    ...deleteTools,
    ...typeTools,
  ].map((t) => t.name),
);

export const OWN_RESOURCE_TEMPLATES = new Set(hostedResources.map((r) => r.uriTemplate));

/** URIs of the requirements area (the schemes of its templates). */
export function isOwnUri(uri: string): boolean {
  return /^(epic|user-story|requirement|requirements|acceptance-criteria):\/\//i.test(uri);
}
