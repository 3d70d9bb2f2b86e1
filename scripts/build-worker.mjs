// `npm run build:worker`: bundles the Worker exactly as `wrangler deploy` would (`--dry-run`: no upload, no
// login, no network) into dist/worker/, then prints the bundle size. Fails when the Worker does not bundle,
// e.g. when a node-only module (native libsql, node:fs) reaches src/worker.ts's imports, and when the gzipped
// bundle exceeds its budget (REQLIX_WORKER_BUDGET_KIB, default below): a bigger Worker starts slower.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const outdir = join(root, "dist", "worker");
const metafile = join(outdir, "meta.json");
// A guard against growth, not issue 16's goal (150 KiB, not met with the web app). Measured 148.8 KiB on
// 2026-11-25 without the web app (162 before the cfworker validator, hono's default routers, js-base64,
// drizzle's Postgres enum check and relational queries and the rest of package.json left; 392 before
// minifying and dropping ajv and zod's locales); the web app adds 21.1 KiB (169.9 measured after merging its
// pages, graph page (dagre runs in the browser script, not here), baselines, docsets and audit pages);
// interchange (issue 15) adds 31 KiB (200.9 measured after its merge); the my-tokens tools and page 2.4
// (203.4). Our own CSV reader and JSON error locator instead of csv-parse's browser build (~51 KiB minified)
// and jsonc-parser (~12): 203.9 → 187.3; search scoring and snippets (issue 16) +1.7: 189.0.
// MCP 2026-07-28 through the SDK v2 (@modelcontextprotocol/server + core, 188 KiB minified with its runtime
// shims stubbed) adds 47.3 KiB (238.8 measured on branch mcp-modern after merging protocol-core, 191.5 without
// the 2026-07-28 route). The SDK v1 left in the Worker is 11.2 KiB minified (the request schemas the protocol
// core checks params with). zod is ~103 KiB minified, most of it pulled by the SDKs.
// After merging all three: 224.0. The OAuth 2.1 authorization server (issue 12 item 3) +8.5 KiB: 232.5.
// Who signs in (issue 12 item 4) adds 18.7 KiB (measured on its branch): argon2id from @noble/hashes with
// BLAKE2b ~5 KiB, oauth4webapi (upstream OpenID Connect) ~7, the sign-in, invitation, workspace and password
// pages and repositories ~6: 253.3 measured after merging it; toolsets +2.1: 255.4 (2026-11-25).
// `npm run build:worker -- --top 15` lists the largest inputs. Budget: measured, rounded up, + 2.
const DEFAULT_BUDGET_KIB = 258;
const budgetSetting = process.env.REQLIX_WORKER_BUDGET_KIB;
const budgetKib =
  budgetSetting === undefined || budgetSetting.trim() === "" ? DEFAULT_BUDGET_KIB : Number(budgetSetting);
if (!Number.isFinite(budgetKib) || budgetKib <= 0) {
  console.error(`REQLIX_WORKER_BUDGET_KIB must be a positive number of KiB, got "${budgetSetting}".`);
  process.exit(2);
}
rmSync(outdir, { recursive: true, force: true });

const result = spawnSync(
  process.execPath,
  [
    join(root, "node_modules/wrangler/bin/wrangler.js"),
    "deploy",
    "--dry-run",
    "--outdir",
    outdir,
    "--metafile",
    metafile,
  ],
  {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      NO_UPDATE_NOTIFIER: "1",
    },
  },
);
if (result.status !== 0) {
  process.stderr.write(result.stdout + result.stderr);
  console.error(`wrangler deploy --dry-run failed (exit ${result.status ?? result.signal}).`);
  process.exit(1);
}

const files = readdirSync(outdir).filter((f) => /\.(m?js|wasm)$/.test(f));
if (files.length === 0) {
  console.error(`wrangler wrote no bundle into ${outdir}.`);
  process.exit(1);
}
// wrangler leaves `node:` imports external; without nodejs_compat (wrangler.toml) workerd cannot load them.
for (const file of files.filter((f) => /\.m?js$/.test(f))) {
  const code = readFileSync(join(outdir, file), "utf8");
  const found = new Set(
    [...code.matchAll(/(?:from|import|require)\s*\(?\s*["'](node:[\w/]+)["']/g)].map((m) => m[1]),
  );
  if (found.size > 0) {
    console.error(
      `The Worker bundle imports ${[...found].join(", ")}: something node-only reached src/worker.ts's imports ` +
        "(e.g. db/client.ts instead of db/database.ts). Import runtime-neutral modules only.",
    );
    process.exit(1);
  }
}

// The [alias] stubs in wrangler.toml match import specifiers exactly ("../locales/index.js" is zod's); a
// dependency that imports the same specifier for something else would silently get the stub instead. So
// each stub may be imported only by the modules it was made for.
const stubImporters = {
  "src/worker-stubs/ajv.ts": /node_modules\/@modelcontextprotocol\/sdk\//,
  "src/worker-stubs/zod-locales.ts": /node_modules\/zod\//,
  "src/worker-stubs/base64.ts": /node_modules\/@libsql\/(core|hrana-client)\//,
  "src/worker-stubs/pg-enum.ts": /^node_modules\/drizzle-orm\/sql\/sql\.js$/,
  "src/worker-stubs/drizzle-relations.ts":
    /^node_modules\/drizzle-orm\/(sqlite-core\/dialect|sqlite-core\/db|libsql\/driver-core)\.js$/,
  "src/worker-stubs/reqif-entry.ts": /^src\/core\/interchange\/registry\.ts$/,
  "src/worker-stubs/mcp-server-shims.ts":
    /^(node_modules\/@modelcontextprotocol\/server\/dist\/|dist\/worker-sdk\/server\.mjs$)/,
};
const meta = JSON.parse(readFileSync(metafile, "utf8"));
const strangers = Object.entries(meta.inputs).flatMap(([input, { imports }]) =>
  imports
    .filter((i) => i.path.startsWith("src/worker-stubs/"))
    .filter((i) => !stubImporters[i.path]?.test(input))
    .map((i) => `${input} → ${i.path}`),
);
if (strangers.length > 0) {
  console.error(
    `${strangers.join(", ")}: a module imports a stub that wrangler.toml [alias] put in place of something ` +
      "else. Fix: narrow the alias or drop it (or list the importer in scripts/build-worker.mjs stubImporters " +
      "if the stub is right for it), then rerun npm run build:worker.",
  );
  process.exit(1);
}

let raw = 0;
let gzip = 0;
for (const file of files) {
  const bytes = readFileSync(join(outdir, file));
  raw += statSync(join(outdir, file)).size;
  gzip += gzipSync(bytes, { level: 9 }).length;
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const topArg = process.argv.indexOf("--top");
if (topArg !== -1) {
  const inputs = Object.values(meta.outputs).flatMap((output) =>
    Object.entries(output.inputs).map(([input, { bytesInOutput }]) => [input, bytesInOutput]),
  );
  const top = inputs.sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[topArg + 1]) || 15);
  console.log("Largest inputs (minified bytes in the bundle):");
  for (const [input, bytes] of top) console.log(`${kib(bytes).padStart(10)}  ${input}`);
}
// Workers limits: 3 MiB gzipped on the Free plan, 10 MiB on Paid.
console.log(
  `Worker bundle (dist/worker: ${files.join(", ")}): ${kib(raw)}, gzip ${kib(gzip)} (budget ${budgetKib} KiB gzip; Free plan limit 3072 KiB).`,
);
if (gzip > 3 * 1024 * 1024) {
  console.error("The gzipped bundle exceeds the Workers Free plan limit of 3 MiB.");
  process.exit(1);
}
if (gzip > budgetKib * 1024) {
  const byPackage = new Map();
  for (const output of Object.values(meta.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name =
        input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? input.split("/").slice(0, 2).join("/");
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  const largest = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 10);
  console.error(
    `The Worker bundle is ${kib(gzip)} gzipped, over its budget of ${budgetKib} KiB. Largest parts (minified): ` +
      `${largest.map(([name, bytes]) => `${name} ${kib(bytes)}`).join(", ")}. Fix: keep node-only or unused ` +
      'code out of src/worker.ts\'s imports (import zod as `import * as z from "zod"`, which lets the bundler ' +
      "drop what is unused); raise the budget in scripts/build-worker.mjs only as a decision, or try one with " +
      "REQLIX_WORKER_BUDGET_KIB.",
  );
  process.exit(1);
}
