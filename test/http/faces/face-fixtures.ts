/**
 * Test-only registry served beside the hosted one, for outcomes the production registry cannot be made to
 * produce on purpose: an unexpected exception (500 / correlation id) and a long call that reports progress.
 */
import { z } from "zod";
import { defineTool, type Registry } from "../../../src/core/registry.js";
import type { HostedContext } from "../../../src/hosted/context.js";
import { hostedRegistry } from "../../../src/hosted/registry.js";

export const SECRET_DETAIL = "SQLITE_CORRUPT: secret detail at /var/lib/reqlix/db";

export const faceFixtures: Registry<HostedContext> = {
  name: "face-fixtures",
  tools: [
    defineTool<HostedContext, z.ZodObject<Record<string, never>>, never>({
      name: "fixture_explode",
      title: "Explode",
      description: "Test fixture: fails with an unexpected error.",
      input: z.object({}),
      annotations: { readOnlyHint: true },
      handler() {
        throw new Error(SECRET_DETAIL);
      },
    }),
    defineTool<HostedContext, z.ZodObject<{ steps: z.ZodNumber }>, { counted: number; workspace: string }>({
      name: "fixture_count",
      title: "Count",
      description: "Test fixture: counts to `steps`, reporting progress at each step.",
      input: z.object({ steps: z.number().int().min(1).max(10) }),
      output: z.object({ counted: z.number(), workspace: z.string() }),
      annotations: { readOnlyHint: true },
      async handler({ steps }, ctx) {
        for (let i = 1; i <= steps; i++) await ctx.progress(i, steps, `step ${i}`);
        return { counted: steps, workspace: ctx.auth.workspaceSlug };
      },
    }),
    defineTool<
      HostedContext,
      z.ZodObject<{ note: z.ZodString; epic_id: z.ZodOptional<z.ZodString> }>,
      { length: number }
    >({
      name: "fixture_measure",
      title: "Measure",
      description: "Test fixture: measures a free-text note (whose value must never reach the audit trail).",
      input: z.object({ note: z.string(), epic_id: z.string().optional() }),
      output: z.object({ length: z.number() }),
      annotations: { readOnlyHint: true },
      handler({ note }) {
        return { length: note.length };
      },
    }),
  ],
};

export const withFixtures = [hostedRegistry, faceFixtures];
