// Bundles the stdio companion into single files under dist/ that run with plain `node` (>= 20) from a
// folder holding nothing else: no native modules, no node_modules at run time.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, chmodSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

const entries = [
  { in: "src/local/bin-reqlix-mcp.ts", out: "reqlix-mcp", bin: true },
  { in: "src/local/bin-agentic-knowledge-mcp.ts", out: "agentic-knowledge-mcp", bin: true },
  // The programmatic entry (REQ-10): importable, starts nothing; its types are emitted below.
  { in: "src/local/api.ts", out: "api", bin: false },
];

// Start-up time is parse time (issue 4: start to first answer ≤ 150 ms), so two dependencies are slimmed:
// - zod re-exports all ~40 message locales as a namespace nobody here uses; only `en` (zod's default) stays.
// - the SDK's Server validates JSON schemas (elicitation results) with ajv, which it imports eagerly; the
//   companion gets the SDK's own @cfworker/json-schema provider instead: same interface, a fraction of the code,
//   and no `new Function`. The SDK v2's shims would bring ajv back as its default: they are replaced too.
export const slimStartup = {
  name: "slim-startup",
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("node_modules/zod/")
        ? { path: resolve(args.resolveDir, args.path), namespace: "zod-locales" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
    }));
    b.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes("@modelcontextprotocol/sdk")
        ? { path: resolve(args.resolveDir, args.path), namespace: "mcp-validator" }
        : undefined,
    );
    // The SDK v2 (MCP 2026-07-28 on stdio) picks ajv as its default validator through its runtime shims; the
    // companion always passes its own (it requests no client input), so only `process` is kept.
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: "mcp-server-shims",
      namespace: "mcp-server-shims",
    }));
    b.onLoad({ filter: /.*/, namespace: "mcp-server-shims" }, () => ({
      contents:
        'export { default as process } from "node:process";\n' +
        "export class DefaultJsonSchemaValidator { constructor() { throw new Error(" +
        '"the SDK v2 default validator is not bundled: pass jsonSchemaValidator (protocol/modern/server.ts)"); } }',
      loader: "js",
    }));
    b.onLoad({ filter: /.*/, namespace: "mcp-validator" }, (args) => ({
      contents:
        'export { CfWorkerJsonSchemaValidator as AjvJsonSchemaValidator } from "./cfworker-provider.js";',
      resolveDir: dirname(args.path),
    }));
  },
};

const define = { __REQLIX_VERSION__: JSON.stringify(pkg.version) };

// `reqlix-mcp` starts either the companion or `trace` (CI), which share little code: V8 parses every byte of
// a module before running any of it (~28 ms of CPU for the whole 640 KiB bundle, of a ~200 ms incremental
// `trace` run), so each is kept as text in the one file and compiled when chosen. The text is a comment at
// the end of the file (appendParts), which the part reads back from the file: V8 only skips a comment, where
// it scanned and kept a string literal of the same code (measured: `reqlix-mcp trace --help` 1.6–1.9 ms of
// CPU less, 100 interleaved runs). Each part has its own copy of the modules it shares with the other (never
// both run), so a part is only a whole command: an error class of a module split off would not be the class
// its caller checks. The parts are CommonJS bundles run by vm.Script (an ES module from a string would need a
// data: URL, which would then name every stack frame): the file stays one self-contained bundle.
const PARTS = { "./trace/cli.js": "runTraceProcess", "./main.js": "runCompanion" };
/** The parts' code by name, made by the last build with lazyParts, for appendParts. */
const partTexts = new Map();

/**
 * Appends each part's code to the built file as a comment (`/*\x01name` … `name\x01*\/`): "*\/" in the code
 * is written "*\x01/" (esbuild writes no raw control character: its output is ASCII, checked here), which
 * src/local/code-cache.ts partSource undoes.
 */
export function appendParts(file) {
  const comments = [];
  for (const [name, text] of partTexts) {
    const bad = [...text].find((c) => c.charCodeAt(0) > 0x7f || c === "\x00" || c === "\x01");
    if (bad !== undefined)
      throw new Error(`part ${name}: its code holds U+${bad.charCodeAt(0).toString(16)}`);
    const source = `(function (require, module, exports) {${text}\n})`; // compilePart's function
    comments.push(`/*\x01${name}\n${source.replaceAll("*/", "*\x01/")}\n${name}\x01*/`);
  }
  appendFileSync(file, `${comments.join("\n")}\n`);
}

export const lazyParts = {
  name: "lazy-parts",
  setup(b) {
    b.onResolve({ filter: /^\.\/(trace\/cli|main)\.js$/ }, (args) =>
      args.importer.endsWith("bin-reqlix-mcp.ts")
        ? {
            path: resolve(args.resolveDir, args.path.replace(/\.js$/, ".ts")),
            namespace: "lazy-part",
            pluginData: PARTS[args.path],
          }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy-part" }, async (args) => {
      const built = await build({
        entryPoints: [args.path],
        bundle: true,
        write: false,
        platform: "node",
        target: "node20",
        format: "cjs",
        minify: true,
        legalComments: "none",
        plugins: [slimStartup],
        define,
      });
      const name = args.pluginData;
      const text = built.outputFiles[0].text;
      // Names the part's V8 code cache (src/local/code-cache.ts): another build, another file.
      const key = `${name}-${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
      partTexts.set(name, text);
      return {
        contents: [
          'import { createRequire } from "node:module";',
          'import { fileURLToPath } from "node:url";',
          `import { compilePart, partSource } from ${JSON.stringify(resolve(import.meta.dirname, "../src/local/code-cache.ts"))};`,
          `const source = partSource(${JSON.stringify(name)}, fileURLToPath(import.meta.url));`,
          "const module = { exports: {} };",
          `compilePart(source, fileURLToPath(import.meta.url), ${JSON.stringify(key)})(`,
          "  createRequire(import.meta.url), module, module.exports);",
          `export const ${name} = module.exports.${name};`,
        ].join("\n"),
        loader: "js",
        resolveDir: dirname(args.path),
      };
    });
  },
};

// Importable (the start-up benchmark bundles its baseline with the same plugin); builds when run.
const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;

for (const entry of main ? entries : []) {
  await build({
    entryPoints: [entry.in],
    outfile: `dist/${entry.out}.js`,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: true,
    sourcemap: false,
    legalComments: "none",
    plugins: entry.out === "reqlix-mcp" ? [lazyParts, slimStartup] : [slimStartup],
    define,
    // Some dependencies still call require() for Node built-ins; give the ESM bundle one.
    banner: {
      js: `${entry.bin ? "#!/usr/bin/env node\n" : ""}import { createRequire as __reqlixCreateRequire } from 'node:module'; const require = __reqlixCreateRequire(import.meta.url);`,
    },
  });
  if (entry.out === "reqlix-mcp") appendParts(`dist/${entry.out}.js`);
  if (entry.bin) chmodSync(`dist/${entry.out}.js`, 0o755);
  const bytes = statSync(`dist/${entry.out}.js`).size; // with the parts appended
  console.log(`dist/${entry.out}.js  ${(bytes / 1024).toFixed(0)} KiB`);
}

// TypeScript declarations for the programmatic entry (REQ-10: type definitions for programmatic use).
if (main) {
  rmSync("dist/types", { recursive: true, force: true });
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.types.json"], {
    stdio: "inherit",
  });
  console.log("dist/types/local/api.d.ts");
}
