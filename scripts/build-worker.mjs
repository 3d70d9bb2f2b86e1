// `npm run build:worker`: bundles the Worker exactly as `wrangler deploy` would (`--dry-run`: no upload, no
// login, no network) into dist/worker/, then prints the bundle size. Fails when the Worker does not bundle,
// e.g. when a node-only module (native libsql, node:fs) reaches src/worker.ts's imports.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const outdir = join(root, "dist", "worker");
rmSync(outdir, { recursive: true, force: true });

const result = spawnSync(
  process.execPath,
  [join(root, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", outdir],
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

let raw = 0;
let gzip = 0;
for (const file of files) {
  const bytes = readFileSync(join(outdir, file));
  raw += statSync(join(outdir, file)).size;
  gzip += gzipSync(bytes, { level: 9 }).length;
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
// Workers limits: 3 MiB gzipped on the Free plan, 10 MiB on Paid.
console.log(
  `Worker bundle (dist/worker: ${files.join(", ")}): ${kib(raw)}, gzip ${kib(gzip)} (Free plan limit 3072 KiB gzip).`,
);
if (gzip > 3 * 1024 * 1024) {
  console.error("The gzipped bundle exceeds the Workers Free plan limit of 3 MiB.");
  process.exit(1);
}
