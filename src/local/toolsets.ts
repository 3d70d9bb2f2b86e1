/**
 * The companion's toolsets. Each entry builds its registry for one process; order is the order tools are
 * listed in. A toolset module must not import db/, http/, hono, drizzle or libSQL (DESIGN: small, native-free bundle).
 */
import type { Registry } from "../core/registry.js";
import type { LocalContext, LocalEnvironment } from "./context.js";
import { ixchelRegistry } from "./ixchel/ixchel.tools.js";
import { knowledgeRegistry } from "./knowledge/knowledge.tools.js";
import { reqlixRegistry } from "./reqlix/reqlix.tools.js";
import { traceRegistry } from "./trace/trace.tools.js";

export type ToolsetFactory = (env: LocalEnvironment) => Registry<LocalContext>;

export const toolsets: Record<string, ToolsetFactory> = {
  reqlix: (env) => reqlixRegistry(env),
  knowledge: (env) => knowledgeRegistry(env),
  ixchel: (env) => ixchelRegistry(env),
  trace: (env) => traceRegistry(env),
};
