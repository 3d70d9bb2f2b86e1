/**
 * Stands in for `ajv` and `ajv-formats` in the Worker bundle (wrangler.toml `[alias]`). The SDK imports ajv
 * eagerly for its default JSON-schema validator, which workerd cannot run anyway (`new Function`); the Worker
 * passes `CfWorkerJsonSchemaValidator`, so this is only reached if that option goes missing.
 */
export default function ajvIsNotInTheWorker(): never {
  throw new Error(
    "ajv is not bundled into the Worker (wrangler.toml [alias]) and could not run in workerd: pass " +
      "`jsonSchemaValidator: new CfWorkerJsonSchemaValidator()` (src/worker.ts workerDeps) to the MCP server.",
  );
}
