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
// A guard against growth, not issue 16's goal (150 KiB gzip: not met, see below). Measured 2026-11-26:
// 284.7 KiB gzip, 962 KiB minified (284.6 before the audit's writeStatement and the title index +0.1,
// 284.1 before the faces' one-read POST body +0.5, 283.2 before search's title tier +0.9; 262.8 before ReqIF came into the Worker +18.4, paged lists +1.1, device
// cookies +0.8 and the search probe +0.1;
// 258.1 before the evening's search ranking +2.6, interchange import
// speed +1.3, the faces' zod-free common request +0.8 once it took the protocol versions from the SDK v2). What each part costs, measured as the drop in gzip when it alone is left
// out (the parts share gzip's dictionary, so the figures do not add up exactly; measured at 243.2 with the
// SDK entry edit below applied):
// - MCP 2026-07-28 through the SDK v2 (@modelcontextprotocol/server + core): 35.1, against serving the 2025
//   revisions alone with the SDK v1's request schemas (~45 with the SDK as published). The protocol core
//   checks 2025 params with v2's schemas (@modelcontextprotocol/core), so no SDK v1 code is left (-2.1).
//   Multi-round-trip requests and header-mirrored arguments (request-state signing, answer and Mcp-Param-*
//   checks) +3.5.
// - the web app (pages, sign-in, consent): 38.1, of which upstream OpenID Connect (oauth4webapi, 20 KiB
//   minified) 7.8 and argon2id (@noble/hashes) 6.2; GitHub sign-in +1.4.
// - interchange (JSON, CSV, markdown): 14.9; ReqIF (saxes and the converters) +18.4, in the Worker since
//   2026-11-26 (it was Node-only).
// - the rest, ~155: zod (104 KiB minified; classic schemas carry JSON-schema conversion, 6.3 gzip, which
//   tools/list uses; a generated module of the listed schemas instead costs 9.4: not taken), the hosted
//   registry and repositories, drizzle + libSQL's HTTP client (~100 KiB minified), hono, the OAuth server.
// So 150 needs more than dropping features: without the SDK v2, the web app and interchange together it
// measured 155.1.
// Measured and not taken, because each edits the SDK's internals and breaks on its releases: its entry
// without the two createMcpHandler branches reqlix never takes (McpServer, the 2025 fallback with its
// transport; -10.1), its specTypeSchemas registration loop (-2.0), its 2025-11-25 wire schemas (-2.5).
// History: 392 before minifying and dropping ajv and zod's locales, 148.8 without the web app, 189.0
// with it and interchange, then 2026-07-28 +47, OAuth 2.1 +8.5, sign-in +18.7, toolsets +2.1: 255.4.
// `npm run build:worker -- --top 15` lists the largest inputs. Budget: measured, rounded up, + 2.
const DEFAULT_BUDGET_KIB = 287;
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
