// `npm run build:web`: bundles the web app's one script (src/web/client/app.ts) with esbuild into
// public/assets/app.js, next to the one stylesheet. Node serves public/ itself (src/web/node-assets.ts);
// Workers serve it as static assets (wrangler.toml [assets]), outside the Worker bundle. Fails when the
// script (gzipped) grows past its budget: issue 13 allows 30 KiB in all.
// Built by `npm ci` (the prepare script) and by `npm start` only when a client source is newer
// (scripts/start.mjs), like the server bundle; the explicit build commands always rebuild.
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const BUDGET_KIB = 30;
const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const WEB_SCRIPT = join(root, "public", "assets", "app.js");

/** What the script is made of, for the staleness check (scripts/build-server.mjs `staleReason`). */
export function webInputs() {
  const files = [join(root, "package-lock.json"), join(root, "scripts", "build-web.mjs")];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(root, "src", "web", "client"));
  return files;
}

/** Builds the script; returns its gzipped size in KiB, or throws when it is over the budget. */
export async function buildWeb() {
  const { build } = await import("esbuild");
  mkdirSync(join(root, "public", "assets"), { recursive: true });
  await build({
    entryPoints: [join(root, "src", "web", "client", "app.ts")],
    outfile: WEB_SCRIPT,
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2020",
    legalComments: "none",
    logLevel: "warning",
  });
  const kib = gzipSync(readFileSync(WEB_SCRIPT)).length / 1024;
  if (kib > BUDGET_KIB) {
    throw new Error(
      `The web script is ${kib.toFixed(2)} KiB gzip, over its budget of ${BUDGET_KIB} KiB gzip.`,
    );
  }
  return kib;
}

const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (main) {
  try {
    const kib = await buildWeb();
    // On stderr: `npm pack --json` runs this as part of `prepare` and its stdout must stay the JSON it prints.
    console.error(`web script: public/assets/app.js ${kib.toFixed(2)} KiB gzip (budget ${BUDGET_KIB} KiB)`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
