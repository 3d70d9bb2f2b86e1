// Bundles the Node server (src/node.ts) with its dependencies into dist/server/node.js, which `npm start`
// runs (scripts/start.mjs): under tsx, start-up was mostly Node resolving and compiling hundreds of
// modules (42% of it re-reading drizzle's package exports map); one bundled file is parsed once (issue 16).
// Built by `npm ci`/`npm install` (the prepare script) and again by `npm start` whenever a source is newer.
//
// Only `libsql` stays outside: it loads a native addon for the platform at run time, from node_modules.
// The bundle lives two folders below the repository, like src/db/migrate.ts, so the migrations it reads
// (`../../drizzle` from the module) are the repository's drizzle/ folder in both.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const SERVER_BUNDLE = join(root, "dist", "server", "node.js");

/** What the bundle is made of, for the staleness check: sources, the lock file and these build scripts. */
function inputs() {
  const files = [
    join(root, "package.json"),
    join(root, "package-lock.json"),
    join(root, "scripts", "build-server.mjs"),
    join(root, "scripts", "build-local.mjs"),
  ];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(root, "src"));
  return files;
}

/** The reason to rebuild, or undefined when the bundle is newer than everything it is made of. */
export function staleReason(bundle = SERVER_BUNDLE, files = inputs()) {
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return `${bundle} does not exist`;
  }
  for (const file of files) {
    let changed;
    try {
      changed = statSync(file).mtimeMs;
    } catch {
      continue; // e.g. no package-lock.json in a copy without one
    }
    if (changed > built) return `${file} is newer than the bundle`;
  }
  return undefined;
}

export async function buildServer() {
  const { build } = await import("esbuild");
  const { slimStartup } = await import("./build-local.mjs");
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  mkdirSync(join(root, "dist", "server"), { recursive: true });
  const result = await build({
    entryPoints: [join(root, "src", "node.ts")],
    outfile: SERVER_BUNDLE,
    write: false,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: true,
    // A separate map (node --enable-source-maps reads it): inline, it would double what start-up reads.
    sourcemap: "linked",
    legalComments: "none",
    external: ["libsql"],
    logLevel: "warning",
    // zod's unused locales and the SDK's ajv (it validates only elicitation answers, which the server
    // never asks for) are left out, as in the companion.
    plugins: [slimStartup],
    define: { __REQLIX_VERSION__: JSON.stringify(pkg.version) },
    // Some dependencies still call require() for Node built-ins; give the ESM bundle one.
    banner: {
      js: "import { createRequire as __reqlixCreateRequire } from 'node:module'; const require = __reqlixCreateRequire(import.meta.url);",
    },
  });
  // Each file written beside and renamed into place (the map first): servers starting at the same time
  // never run half a file.
  const files = [...result.outputFiles].sort(
    (a, b) => Number(b.path.endsWith(".map")) - Number(a.path.endsWith(".map")),
  );
  for (const file of files) {
    const tmp = `${file.path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, file.contents);
      renameSync(tmp, file.path);
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  return SERVER_BUNDLE;
}

const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (main) {
  const out = await buildServer();
  // On stderr: `npm pack --json` runs this as `prepare` and its stdout must stay the JSON it prints.
  console.error(`${out.slice(root.length + 1)}  ${(statSync(out).size / 1024).toFixed(0)} KiB`);
}
