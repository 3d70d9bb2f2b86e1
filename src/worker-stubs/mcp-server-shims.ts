/**
 * Stands in for `@modelcontextprotocol/server/_shims` (SDK v2's runtime shims) in the Worker bundle
 * (wrangler.toml `[alias]`). The workerd shim bundles `@cfworker/json-schema` as the default validator
 * (22 KiB minified); the Worker passes its own validator (src/worker.ts `noSchemaValidation`), so the default
 * is never built. Its other export, `process`, serves only the stdio transport, which a Worker cannot use.
 */
export class DefaultJsonSchemaValidator {
  constructor() {
    throw new Error(
      "The SDK v2's default JSON-schema validator is not bundled into the Worker (wrangler.toml [alias]): " +
        "pass `jsonSchemaValidator` to the MCP server (src/worker.ts workerDeps).",
    );
  }
}

function notInWorkers(): never {
  throw new Error("stdio is not available in a Worker");
}

export const process = {
  get stdin(): never {
    return notInWorkers();
  },
  get stdout(): never {
    return notInWorkers();
  },
};
