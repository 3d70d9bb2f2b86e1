// Bundles the stdio companion into single files under dist/ that run with plain `node` (>= 20) from a
// folder holding nothing else: no native modules, no node_modules at run time.
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

const entries = [
  { in: "src/local/bin-reqlix-mcp.ts", out: "reqlix-mcp" },
  { in: "src/local/bin-agentic-knowledge-mcp.ts", out: "agentic-knowledge-mcp", optional: true },
];

for (const entry of entries) {
  if (entry.optional && !existsSync(entry.in)) continue;
  const result = await build({
    entryPoints: [entry.in],
    outfile: `dist/${entry.out}.js`,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: true,
    sourcemap: false,
    legalComments: "none",
    metafile: true,
    define: { __REQLIX_VERSION__: JSON.stringify(pkg.version) },
    // Some dependencies still call require() for Node built-ins; give the ESM bundle one.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __reqlixCreateRequire } from 'node:module'; const require = __reqlixCreateRequire(import.meta.url);",
    },
  });
  chmodSync(`dist/${entry.out}.js`, 0o755);
  const bytes = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
  console.log(`dist/${entry.out}.js  ${(bytes / 1024).toFixed(0)} KiB`);
}
