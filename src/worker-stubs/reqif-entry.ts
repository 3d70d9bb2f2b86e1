/**
 * Stands in for `src/core/interchange/reqif/reqif-entry.ts` in the Worker bundle (wrangler.toml `[alias]`):
 * no ReqIF format there, so the XML parser and the ReqIF converters stay out of the Worker's size budget.
 * The registry then answers `format=reqif` with "not available in this build"; the Node server serves it.
 */
export const reqifFormats: readonly never[] = [];
