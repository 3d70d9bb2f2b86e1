/**
 * Item 6: start to first answer. Spawns `node dist/reqlix-mcp.js`, writes `initialize`, the `initialized`
 * notification and a `tools/call` of reqlix_get_categories at once, and times the first response (the
 * initialize result) and the tool's answer. Baselines in the same run, interleaved with it (the machine is
 * shared, so only same-run ratios mean something): `node -e 0` (a bare Node start), and the "SDK floor" —
 * a minimal SDK `Server` over `StdioServerTransport` with one trivial tool, bundled the same way.
 * Run: npm run build && npx tsx bench/reqlix-startup.ts [node binary]
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
// @ts-expect-error: a plain .mjs build script without type declarations
import { slimStartup } from "../scripts/build-local.mjs";
import { median } from "./lib.js";

const BUNDLE = resolve(import.meta.dirname, "../dist/reqlix-mcp.js");
const NODE = process.argv[2] ?? process.execPath;
const RUNS = Number(process.env.RUNS ?? 20);

const FLOOR_SOURCE = `
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const server = new Server({ name: "floor", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: '{"success":true}' }] }));
await server.connect(new StdioServerTransport());
`;

async function buildFloor(dir: string): Promise<string> {
  const out = join(dir, "sdk-floor.mjs");
  await build({
    stdin: { contents: FLOOR_SOURCE, resolveDir: resolve(import.meta.dirname, ".."), loader: "js" },
    outfile: out,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: true,
    logLevel: "error",
    plugins: [slimStartup],
    banner: {
      js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);",
    },
  });
  return out;
}

function once(
  project: string,
  script = BUNDLE,
  args = ["--toolsets", "reqlix"],
): Promise<{ init: number; answer: number }> {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(NODE, [script, ...args], { stdio: ["pipe", "pipe", "ignore"] });
    let buf = "";
    let init = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        const msg = JSON.parse(buf.slice(0, nl)) as {
          id?: number;
          result?: { content?: { text: string }[] };
        };
        buf = buf.slice(nl + 1);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (msg.id === 1) init = ms;
        if (msg.id === 2) {
          if (!msg.result?.content?.[0]?.text.includes('"success":true'))
            reject(new Error(JSON.stringify(msg)));
          child.kill();
          resolvePromise({ init, answer: ms });
        }
        nl = buf.indexOf("\n");
      }
    });
    child.on("error", reject);
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "reqlix_get_categories",
        arguments: { project_root: project, operation_description: "bench" },
      },
    });
  });
}

function bare(): number {
  const t = process.hrtime.bigint();
  spawnSync(NODE, ["-e", "0"]);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const project = mkdtempSync(join(tmpdir(), "reqlix-bench-start-"));
try {
  mkdirSync(join(project, "floor"));
  const floor = await buildFloor(join(project, "floor"));
  await once(project); // warm the page cache
  await once(project, floor, []);
  const inits: number[] = [];
  const answers: number[] = [];
  const floors: number[] = [];
  const bares: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await once(project);
    inits.push(r.init);
    answers.push(r.answer);
    floors.push((await once(project, floor, [])).answer);
    bares.push(bare());
  }
  const nodeVersion = spawnSync(NODE, ["--version"], { encoding: "utf8" }).stdout.trim();
  const load = (await import("node:os")).loadavg()[0] ?? 0;
  const result = {
    bench: "reqlix-startup",
    node: nodeVersion,
    runs: RUNS,
    load_average_1min: load,
    median_ms: {
      bare_node: median(bares),
      sdk_floor_first_answer: median(floors),
      reqlix_initialize: median(inits),
      reqlix_first_tool_answer: median(answers),
    },
    target_ms: 150,
    ratio_to_bare_node: median(answers) / median(bares),
    ratio_to_sdk_floor: median(answers) / median(floors),
    meets_target: median(answers) <= 150,
  };
  console.table(result.median_ms);
  console.log(
    `start → first tool answer: ${result.median_ms.reqlix_first_tool_answer.toFixed(1)} ms (target ≤ 150); ` +
      `${result.ratio_to_bare_node.toFixed(2)}× a bare node start, ${result.ratio_to_sdk_floor.toFixed(2)}× a minimal SDK server; load ${load.toFixed(1)}`,
  );
  const out = resolve(
    import.meta.dirname,
    `results/reqlix-startup-node${nodeVersion.split(".")[0]?.slice(1)}.json`,
  );
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(project, { recursive: true, force: true });
}
