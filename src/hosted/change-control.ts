/** Change control's part of the hosted registry: history, suspect links, baselines, review. */
import { baselineResource, baselineTools } from "./baselines.tools.js";
import { historyResources, historyTools } from "./history.tools.js";
import { reviewTools } from "./review.tools.js";
import { suspectLinkTools } from "./suspect-links.tools.js";

export const changeControlTools = [...historyTools, ...suspectLinkTools, ...baselineTools, ...reviewTools];

export const changeControlResources = [...historyResources, baselineResource];
