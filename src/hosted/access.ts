/**
 * Roles inside the hosted registry (DESIGN roles): viewer reads, editor also writes, admin also manages
 * types. A tool's minimum role follows from its annotations unless it says otherwise, so a new write tool
 * cannot forget its check. Every face reports the refusal its own way (403 / -32003, or an isError result).
 */
import type { z } from "zod";
import { DomainError } from "../core/errors.js";
import { scopesAllowWrites } from "../core/oauth.js";
import { type AnyZodObject, defineTool, type ToolDef } from "../core/registry.js";
import { type Role, roleAtLeast } from "../core/roles.js";
import type { Actor } from "../db/entity-support.js";
import { type ChangeFields, changeFields } from "./change-fields.js";
import type { HostedContext } from "./context.js";

export function requireRole(ctx: HostedContext, needed: Role, what: string): void {
  if (roleAtLeast(ctx.auth.role, needed)) return;
  const scopes = ctx.auth.oauthScopes;
  const cap = scopes ? ` (capped by this OAuth token's scopes: ${scopes.join(" ")})` : "";
  throw DomainError.forbidden(
    `Forbidden: ${what} needs the ${needed} role; your role in workspace "${ctx.auth.workspaceSlug}" is ${ctx.auth.role}${cap}. ` +
      `Ask a workspace admin for the ${needed} role, or use read-only tools.`,
  );
}

/** An OAuth client granted only `reqlix:read` writes nothing, whatever its member's role (issue 12). */
export function requireWriteScope(ctx: HostedContext, what: string): void {
  const scopes = ctx.auth.oauthScopes;
  if (scopes === undefined || scopesAllowWrites(scopes)) return;
  throw DomainError.forbidden(
    `Forbidden: ${what} writes, and this OAuth token was granted only ${scopes.join(" ")}. ` +
      "Connect the client again and allow reqlix:write, or use read-only tools.",
  );
}

export interface HostedToolDef<I extends AnyZodObject, O> extends ToolDef<HostedContext, I, O> {
  /** Minimum role; default viewer for read-only tools, editor for the rest. */
  role?: Role;
  /**
   * The tool writes entities under change control: its input also takes `change_note` and `source` (one
   * shared fragment, appended here so no write tool can forget them), which reach the revisions it records
   * through `ctx.change`, never the handler's input.
   */
  recordsHistory?: boolean;
}

/** Defines a hosted tool whose handler first checks the caller's role. */
export function hostedTool<I extends AnyZodObject, O>(
  def: HostedToolDef<I, O>,
): ToolDef<HostedContext, I, O> {
  const { role, handler, recordsHistory, ...rest } = def;
  const needed: Role = role ?? (def.annotations.readOnlyHint ? "viewer" : "editor");
  // The extended schema parses to I plus the two fields, which the handler below takes off again.
  const input = (recordsHistory ? def.input.extend(changeFields()) : def.input) as I;
  // A tool without history takes no change fields: one frozen `change` for all its calls.
  const plainChange = Object.freeze({ tool: def.name });
  return defineTool<HostedContext, I, O>({
    ...rest,
    role: needed,
    input,
    handler(raw: z.output<I>, ctx: HostedContext) {
      requireRole(ctx, needed, `${def.name}`);
      // A read-only tool writes nothing, so it records no change: its context goes as it is. A copy costs
      // every read (a spread followed by a named property takes V8's slow path: ~1–2 µs of a read through
      // /api/v1/mcp in a profile of bench/faces-read.ts).
      if (def.annotations.readOnlyHint && !recordsHistory) return handler(raw, ctx);
      if (!def.annotations.readOnlyHint) requireWriteScope(ctx, def.name);
      if (!recordsHistory) return handler(raw, { ...ctx, change: plainChange });
      const { change_note, source, ...own } = raw as z.output<I> & ChangeFields;
      const change = {
        tool: def.name,
        ...(change_note !== undefined ? { changeNote: change_note } : {}),
        ...(source !== undefined ? { source } : {}),
      };
      return handler(own as z.output<I>, { ...ctx, change });
    },
  });
}

/**
 * An update must change something: a call with only the id (and expected_updated_at) is a mistake the
 * model should hear about, not a silent new revision.
 */
export function requireChanges<P extends Record<string, unknown>>(tool: string, patch: P): P {
  const changed = Object.entries(patch).filter(([k, v]) => k !== "expected_updated_at" && v !== undefined);
  if (changed.length > 0) return patch;
  throw DomainError.invalid(
    `${tool} needs at least one field to change; pass the new values of the fields to update.`,
    [{ field: "(arguments)", message: "no field to change" }],
  );
}

/** The writer and the time of a write, from the request, with the provenance its revisions record. */
export function actor(ctx: HostedContext): Actor {
  return {
    userId: ctx.auth.userId,
    now: ctx.now(),
    change: { tokenId: ctx.auth.tokenId, requestId: ctx.requestId, ...ctx.change },
  };
}

export const READ = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const CREATE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Updates overwrite fields (destructive in MCP's sense) but repeating one changes nothing more. */
export const UPDATE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
export const DELETE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
