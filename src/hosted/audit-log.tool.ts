/**
 * list_audit_events (admin): the workspace's audit trail, newest first, filtered by user, tool, entity and
 * time, paged. The web app's audit log reads it; the rows carry ids and names only, never argument values.
 */
import * as z from "zod";
import { searchAuditEvents } from "../db/audit-search.repo.js";
import { decodeCursor, encodeCursor, isPositiveInt } from "../db/entity-support.js";
import { hostedTool, READ } from "./access.js";
import { cursor } from "./schemas.js";

const isoTime = (what: string) =>
  z.iso
    .datetime({ offset: true, local: false })
    .describe(`${what}, ISO 8601 with a time zone (e.g. 2026-11-25T13:00:00Z).`);

export const listAuditEventsTool = hostedTool({
  name: "list_audit_events",
  title: "List audit events",
  description:
    "The workspace's audit trail (admins only), newest first: who (user, token id), which channel, what (method and tool, resource or prompt), which entity, the outcome and error code, the request id, duration and time. Filter by username, tool (the target name, e.g. update_requirement), entity reference id and a time range; page with next_cursor. Never shows argument values.",
  input: z.object({
    username: z.string().trim().min(1).max(100).optional().describe("Only this user's calls."),
    tool: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .describe("Only calls of this tool, resource URI or prompt."),
    entity: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .describe("Only calls about this reference id (e.g. REQ-001)."),
    since: isoTime("Only events at or after this time").optional(),
    until: isoTime("Only events at or before this time").optional(),
    limit: z.number().int().min(1).max(200).default(50).describe("Events per page (1–200, default 50)."),
    cursor: cursor().optional(),
  }),
  output: z.object({
    items: z.array(
      z.object({
        id: z.number().int(),
        created_at: z.string(),
        username: z.string().nullable(),
        token_id: z.number().int().nullable(),
        channel: z.string(),
        method: z.string(),
        target: z.string().nullable(),
        entity: z.string().nullable().describe("The reference id the call named, if any."),
        outcome: z.string(),
        error_code: z.string().nullable(),
        request_id: z.string().nullable(),
        duration_ms: z.number().nullable(),
      }),
    ),
    next_cursor: z.string().optional().describe("Present when older events match: pass it as cursor."),
  }),
  annotations: READ,
  role: "admin",
  handler: (input, ctx) =>
    ctx.database.read(async (db) => {
      const before = decodeCursor("audit", input.cursor, isPositiveInt);
      const since = input.since === undefined ? undefined : new Date(input.since).toISOString();
      const until = input.until === undefined ? undefined : new Date(input.until).toISOString();
      const { items, more } = await searchAuditEvents(
        db,
        ctx.auth.workspaceId,
        {
          ...(input.username === undefined ? {} : { username: input.username }),
          ...(input.tool === undefined ? {} : { target: input.tool }),
          ...(input.entity === undefined
            ? {}
            : {
                referenceId: /^[a-z]+-\d+$/i.test(input.entity) ? input.entity.toUpperCase() : input.entity,
              }),
          ...(since === undefined ? {} : { since }),
          ...(until === undefined ? {} : { until }),
        },
        input.limit,
        before,
      );
      const last = items.at(-1);
      return { items, ...(more && last ? { next_cursor: encodeCursor("audit", last.id) } : {}) };
    }),
});
