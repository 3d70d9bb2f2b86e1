/**
 * What the listing methods answer (capabilities, tools, resource templates, prompts) and the refusal of a
 * tool or prompt that is not there, which names what is.
 */
import { RpcCode } from "../core/error-table.js";
import type { BaseContext, PromptDef, ResourceDef } from "../core/registry.js";
import type { ListedTool } from "./compile.js";
import type { MethodEnv, Result } from "./method-env.js";
import { type RpcError, rpcError } from "./rpc-errors.js";
import { selectionFor } from "./tool-selection.js";

export function capabilities<Ctx extends BaseContext>(env: MethodEnv<Ctx>): Result {
  const { compiled } = env;
  return {
    tools: {},
    ...(compiled.resources.length > 0 ? { resources: {} } : {}),
    ...(compiled.prompts.size > 0 ? { prompts: {} } : {}),
    ...(compiled.completions ? { completions: {} } : {}),
    ...(env.session ? { logging: {} } : {}),
  };
}

/** The tools this request may see: the one place tools/list builds its list, for every face and era. */
export function listTools<Ctx extends BaseContext>(env: MethodEnv<Ctx>): ListedTool[] {
  return selectionFor(env.compiled, env.toolScope).tools;
}

export function templateOf<Ctx extends BaseContext>(r: ResourceDef<Ctx>): Result {
  return {
    uriTemplate: r.uriTemplate,
    name: r.name,
    ...(r.title ? { title: r.title } : {}),
    description: r.description,
    mimeType: r.mimeType,
  };
}

export function listedPrompt<Ctx extends BaseContext>(p: PromptDef<Ctx>): Result {
  return {
    name: p.name,
    ...(p.title ? { title: p.title } : {}),
    description: p.description,
    arguments: p.arguments,
  };
}

export function unknownTool<Ctx extends BaseContext>(env: MethodEnv<Ctx>, name: string): RpcError {
  const available = listTools(env).map((t) => t.name);
  return rpcError(
    RpcCode.MethodNotFound,
    `Unknown tool "${name}". Available tools: ${available.join(", ")}.`,
    { name, available },
  );
}

export function unknownPrompt<Ctx extends BaseContext>(env: MethodEnv<Ctx>, name: string): RpcError {
  const available = [...env.compiled.prompts.keys()];
  return rpcError(
    RpcCode.MethodNotFound,
    `Unknown prompt "${name}". Available prompts: ${available.join(", ")}.`,
    { name, available },
  );
}
