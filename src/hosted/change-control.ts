/** Change control's part of the hosted registry: history, suspect links, baselines, review. */
import { historyResources, historyTools } from "./history.tools.js";

export const changeControlTools = [...historyTools];

export const changeControlResources = [...historyResources];
