// `npm run build:web`: bundles the web app's one script (src/web/client/app.ts) with esbuild into
// public/assets/app.js, next to the one stylesheet. Node serves public/ itself (src/web/node-assets.ts);
// Workers serve it as static assets (wrangler.toml [assets]), outside the Worker bundle. Fails when the
// script (gzipped) grows past its budget: issue 13 allows 30 KiB in all.
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const BUDGET_KIB = 30;
const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const outfile = join(root, "public", "assets", "app.js");
mkdirSync(join(root, "public", "assets"), { recursive: true });
await build({
  entryPoints: [join(root, "src", "web", "client", "app.ts")],
  outfile,
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  legalComments: "none",
  logLevel: "warning",
});
const kib = gzipSync(readFileSync(outfile)).length / 1024;
console.log(`web script: public/assets/app.js ${kib.toFixed(2)} KiB gzip (budget ${BUDGET_KIB} KiB)`);
if (kib > BUDGET_KIB) {
  console.error(`The web script is over its budget of ${BUDGET_KIB} KiB gzip.`);
  process.exit(1);
}
