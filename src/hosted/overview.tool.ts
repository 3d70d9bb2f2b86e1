/** workspace_overview: the workspace at a glance (the web app's home page, and any client's first look). */
import * as z from "zod";
import { countsByStatus, recentChanges } from "../db/overview.repo.js";
import { hostedTool, READ } from "./access.js";

export const workspaceOverviewTool = hostedTool({
  name: "workspace_overview",
  title: "Workspace overview",
  description:
    "The workspace at a glance: epics, user stories and requirements counted per status, and the latest changes (who, when, which revision, why). Use it to orient yourself; then epic_hierarchy for the tree.",
  input: z.object({
    recent: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(20)
      .describe("How many recent changes to return (0–100, default 20)."),
  }),
  output: z.object({
    counts: z.array(
      z.object({
        kind: z.enum(["epic", "user_story", "requirement"]),
        status: z.string(),
        count: z.number().int(),
      }),
    ),
    recent: z.array(
      z.object({
        reference_id: z.string(),
        entity_kind: z.string(),
        revision: z.number().int(),
        op: z.string(),
        username: z.string().nullable(),
        created_at: z.string(),
        change_note: z.string().nullable(),
        title: z.string().nullable(),
      }),
    ),
  }),
  annotations: READ,
  handler: ({ recent }, ctx) =>
    ctx.database.read(async (db) => ({
      counts: await countsByStatus(db, ctx.auth.workspaceId),
      recent: recent === 0 ? [] : await recentChanges(db, ctx.auth.workspaceId, recent),
    })),
});
