/**
 * Where the bridge syncs to: URL, token and workspace from flags or tool arguments, else `REQLIX_URL`,
 * `REQLIX_TOKEN`, `REQLIX_WORKSPACE`. Messages name what is missing or malformed, never the token's value.
 */
import { SLUG_PATTERN } from "../../core/accounts.js";
import type { BridgeTarget } from "./hosted-client.js";

export interface TargetInput {
  url?: string | undefined;
  token?: string | undefined;
  workspace?: string | undefined;
}

const WORKSPACE = SLUG_PATTERN;

/** The target, or the list of problems (each says how to fix it). */
export function resolveTarget(
  given: TargetInput,
  env: Readonly<Record<string, string | undefined>>,
  names: { url: string; token: string; workspace: string } = {
    url: "--url",
    token: "--token",
    workspace: "--workspace",
  },
): BridgeTarget | { problems: string[] } {
  const url = (given.url ?? env.REQLIX_URL ?? "").trim();
  const token = (given.token ?? env.REQLIX_TOKEN ?? "").trim();
  const workspace = (given.workspace ?? env.REQLIX_WORKSPACE ?? "").trim();
  const problems: string[] = [];
  if (!url)
    problems.push(`no server URL: pass ${names.url} or set REQLIX_URL (e.g. https://reqlix.example.com).`);
  else if (!/^https?:\/\/[^\s/@]+(\/\S*)?$/.test(url))
    problems.push(
      `${names.url} must be an http(s) URL without credentials in it, e.g. https://reqlix.example.com (the token goes in ${names.token}).`,
    );
  if (!token)
    problems.push(`no token: pass ${names.token} or set REQLIX_TOKEN (a personal access token, rqx_…).`);
  else if (/\s/.test(token)) problems.push(`${names.token} must not contain spaces or line breaks.`);
  if (!workspace)
    problems.push(
      `no workspace: pass ${names.workspace} or set REQLIX_WORKSPACE (the workspace's slug, e.g. default).`,
    );
  else if (!WORKSPACE.test(workspace))
    problems.push(
      `${names.workspace} "${workspace}" is not a workspace slug: lower-case letters, digits and dashes, e.g. default.`,
    );
  return problems.length > 0 ? { problems } : { url: url.replace(/\/+$/, ""), token, workspace };
}
