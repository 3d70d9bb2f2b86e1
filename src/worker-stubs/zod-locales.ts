/**
 * Stands in for zod's `locales/index.js` in the Worker bundle (wrangler.toml `[alias]`): zod re-exports its
 * ~40 message locales as a namespace nobody here uses (~38 KiB gzip). English, zod's default, stays; it is
 * also what zod loads on its own. The same swap as `slimStartup` in scripts/build-local.mjs.
 */
export { default as en } from "zod/v4/locales/en.js";
