/**
 * The hosted registry: every tool, resource and prompt the hosted server offers, defined once and served
 * by `/mcp` and `/api/v1/mcp` alike.
 */
import { z } from "zod";
import { DomainError } from "../core/errors.js";
import { defineTool, type Registry } from "../core/registry.js";
import type { HostedContext } from "./context.js";

const getUserStoryRequirements = defineTool<HostedContext, z.ZodObject<{ user_story: z.ZodString }>, never>({
  name: "get_user_story_requirements",
  title: "Get user story requirements",
  description: "Get all requirements linked to a specific user story",
  input: z.object({
    user_story: z
      .string()
      .regex(/^US-\d+$/, "Invalid user story reference ID format")
      .describe("User story reference ID (e.g., 'US-047')"),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler() {
    throw new DomainError("unavailable", "Not implemented yet");
  },
});

export const hostedRegistry: Registry<HostedContext> = {
  name: "hosted",
  tools: [getUserStoryRequirements],
};
