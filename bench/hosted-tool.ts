/**
 * What the in-process benches of hosted tools share: a registry tool looked up as a face compiles it, and a
 * HostedContext for a caller (no request behind it: request id "bench", a fresh abort signal, no progress).
 */
import type { AuthInfo } from "../src/core/auth-info.js";
import type { Database } from "../src/db/database.js";
import type { HostedContext } from "../src/hosted/context.js";
import { hostedRegistry } from "../src/hosted/registry.js";
import { compileRegistries } from "../src/protocol/compile.js";

const compiled = compileRegistries([hostedRegistry]);

/** The compiled tool `name`; throws when the registry has none. */
export function hostedTool(name: string) {
  const tool = compiled.tools.get(name);
  if (!tool) throw new Error(`${name} is not registered`);
  return tool;
}

/** A context for `caller` (a viewer with token 0 unless said otherwise). */
export function benchContext(
  database: Database,
  caller: Pick<AuthInfo, "userId" | "username" | "workspaceId" | "workspaceSlug"> & Partial<AuthInfo>,
): HostedContext {
  return {
    auth: { role: "viewer", tokenId: 0, isOwner: false, ...caller },
    database,
    requestId: "bench",
    now: () => new Date(),
    signal: new AbortController().signal,
    progress: async () => {},
  };
}
