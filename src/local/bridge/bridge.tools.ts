/**
 * `reqlix_push` and `reqlix_pull`: the bridge as tools of the `reqlix` toolset. Same work as the CLI
 * (`cli.ts`); the server URL, token and workspace come from the arguments, else from REQLIX_URL,
 * REQLIX_TOKEN and REQLIX_WORKSPACE in the companion's environment (the better place for a token: then
 * it never passes through the conversation). No answer or error contains the token.
 */
import * as z from "zod";
import { DomainError } from "../../core/errors.js";
import { defineTool } from "../../core/registry.js";
import type { LocalContext } from "../context.js";
import * as s from "../reqlix/schemas.js";
import { redact } from "./hosted-client.js";
import { pull } from "./pull.js";
import { push } from "./push.js";
import type { SyncOptions, SyncResult } from "./session.js";
import { resolveTarget } from "./target.js";

export const PUSH_DESCRIPTION = `Sends the requirements changed in this project's markdown files since the last sync to the team's hosted reqlix workspace (category → epic, chapter → user story, requirement → requirement with its index as external id), as one import.
Use it when the user asks to publish, share or push the repository's requirements to the hosted workspace. Changes made in the workspace are not brought down: that is reqlix_pull.
Returns what was created, updated or made Obsolete. status "conflict" means a requirement changed on both sides since the last sync: nothing was written anywhere; show the user both versions from "conflicts" and let them decide: make both sides match and call again, or call again with force: true to let the files' version win.`;

export const PULL_DESCRIPTION = `Writes the requirements changed in the team's hosted reqlix workspace since the last sync into this project's markdown files (updates, new requirements in mapped user stories, deletions), through the same locked, atomic writes as the other reqlix tools.
Use it when the user asks to bring the hosted workspace's requirement changes into the repository, or before working on requirements that the team also edits in the workspace. Local changes are not sent: that is reqlix_push.
Returns what was inserted, updated or deleted. status "conflict" means a requirement changed on both sides since the last sync: nothing was written anywhere; show the user both versions from "conflicts" and let them decide: make both sides match and call again, or call again with force: true to let the workspace's version win.`;

const optionalText = (field: string, env: string, max: number, what: string) =>
  z
    .string({ error: `must be a string: ${what}` })
    .min(1, { error: `must not be empty: ${what}; or leave ${field} out to use ${env}` })
    .max(max, { error: `too long: at most ${max} characters` })
    .optional()
    .describe(`${what[0]?.toUpperCase()}${what.slice(1)}. Default: the ${env} environment variable.`);

const input = z.object({
  ...s.base,
  url: optionalText(
    "url",
    "REQLIX_URL",
    2000,
    "the hosted reqlix server's base URL, e.g. https://reqlix.example.com",
  ),
  token: optionalText(
    "token",
    "REQLIX_TOKEN",
    500,
    "a personal access token of the workspace (better set REQLIX_TOKEN in the companion's configuration)",
  ),
  workspace: optionalText("workspace", "REQLIX_WORKSPACE", 63, "the workspace's slug, e.g. default"),
  force: z
    .boolean({ error: "must be true or false" })
    .default(false)
    .describe(
      "Resolve conflicts in this tool's direction (push: the files win; pull: the workspace wins), overwriting the other side's change. Only when the user chose that after seeing the conflicts.",
    ),
});

type Input = z.infer<typeof input>;

async function run(
  fn: (options: SyncOptions) => Promise<SyncResult>,
  args: Input,
  ctx: LocalContext,
): Promise<SyncResult> {
  const target = resolveTarget(args, ctx.env, { url: "url", token: "token", workspace: "workspace" });
  if ("problems" in target) throw DomainError.invalid(target.problems.join(" "));
  try {
    return await fn({
      projectRoot: args.project_root,
      env: ctx.env,
      target,
      force: args.force,
      signal: ctx.signal,
    });
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const message = redact(error.message, target.token);
    if (error instanceof DomainError) throw new DomainError(error.code, message, error.details);
    throw new DomainError("unavailable", message);
  }
}

export const pushTool = defineTool({
  name: "reqlix_push",
  title: "Push requirements to the hosted workspace",
  description: PUSH_DESCRIPTION,
  input,
  // Writes to the workspace only what changed; a repeated call with no change in between sends nothing.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: (args, ctx: LocalContext) => run(push, args, ctx),
});

export const pullTool = defineTool({
  name: "reqlix_pull",
  title: "Pull requirements from the hosted workspace",
  description: PULL_DESCRIPTION,
  input,
  // Overwrites and deletes requirements in the files when the workspace changed them.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  handler: (args, ctx: LocalContext) => run(pull, args, ctx),
});

export const bridgeTools = [pushTool, pullTool];
