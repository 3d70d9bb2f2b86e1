/**
 * Trace scan benchmark (issue: traceability). Generates a git repository of 20,000 files / ~200 MB with
 * citations in TypeScript, Python, Go and markdown, then measures, in one run:
 *   1. cold scan (no cache) vs `git grep -E -n` with the same pattern over the same files   target ≤ 1.5×
 *      (git grep's default: one thread per core; the scan's default: one thread; also git grep on one thread
 *      and the scan with its reader thread, REQLIX_TRACE_READ_THREAD=1)
 *   2. rescan after 10 files change (cache keyed by path, size, mtime) vs the cold scan      target ≤ 0.1×
 *      What a CI user waits for: `reqlix-mcp trace` (the built dist/reqlix-mcp.js, a new process each time:
 *      Node's start, the bundle, the cache from disk, git, the report) cold and after 10 changed files, by
 *      wall clock and by CPU time (the process and its git children: on a loaded machine the wall clock
 *      measures the other sessions too). Also the scan alone in this process (no start-up; from disk and
 *      with the companion's cache in memory).
 *   3. trace_file p50 after the first scan                                                     target ≤ 5 ms
 *
 *   npm run build && npx tsx bench/trace-scan.ts [--files 20000] [--mb 200] [--runs 3]
 * Results: bench/results/trace-scan.{json,md}.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CitationMatcher } from "../src/local/trace/citations.js";
import { newScanState, scanProject } from "../src/local/trace/scan.js";
import { TraceService } from "../src/local/trace/trace-service.js";
import { median, numberArg, percentile, rng } from "./lib.js";

const FILES = numberArg("files", 20_000);
const MB = numberArg("mb", 200);
const RUNS = numberArg("runs", 3);
const random = rng(42);

// The CLI as users run it: the bundle `npm run build` makes, which must be newer than the scanner's sources.
const CLI = resolve(import.meta.dirname, "../dist/reqlix-mcp.js");
{
  const built = statSync(CLI, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = resolve(import.meta.dirname, "../src/local/trace");
  const newest = Math.max(...readdirSync(sources).map((f) => statSync(join(sources, f)).mtimeMs));
  if (built < newest)
    throw new Error(`${CLI} is missing or older than src/local/trace: run npm run build first`);
}

const root = mkdtempSync(join(tmpdir(), "reqlix-trace-bench-"));
const cacheDir = mkdtempSync(join(tmpdir(), "reqlix-trace-cache-"));
const env = { REQLIX_CACHE_DIR: cacheDir, PATH: process.env.PATH, HOME: process.env.HOME };

const WORDS =
  "const value return result function handler request response error config user item list map filter reduce await async promise string number boolean import export from class interface type".split(
    " ",
  );
const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)] as T;
function plainLine(): string {
  return `  ${Array.from({ length: 4 + Math.floor(random() * 8) }, () => pick(WORDS)).join(" ")};`;
}
const POOL = Array.from({ length: 4000 }, plainLine);

const CATS = ["G", "T", "S"];
function citation(): string {
  const r = random();
  if (r < 0.5)
    return `REQ-${String(1 + Math.floor(random() * 400)).padStart(3, "0")}${random() < 0.1 ? "@1" : ""}`;
  if (r < 0.6) return `US-${String(1 + Math.floor(random() * 60)).padStart(3, "0")}`;
  if (r < 0.65) return `AC-${String(1 + Math.floor(random() * 100)).padStart(3, "0")}`;
  return `${pick(CATS)}.${pick(["A", "B", "C"])}.${1 + Math.floor(random() * 30)}`;
}

function fileText(bytes: number, kind: "ts" | "py" | "go" | "md", test: boolean): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    let line: string;
    if (random() < 0.004) {
      const id = citation();
      if (test && kind === "ts") line = `it("${id} behaves", () => {`;
      else if (test && kind === "go") line = `\tt.Run("${id} behaves", func(t *testing.T) {`;
      else if (kind === "py") line = `    # implements ${id}`;
      else if (kind === "md") line = `See ${id} for the rule.`;
      else line = `  // ${id}: the rule this code follows`;
    } else line = POOL[Math.floor(random() * POOL.length)] as string;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

function generate(): { paths: string[] } {
  const per = Math.floor((MB * 1024 * 1024) / FILES);
  const paths: string[] = [];
  const req = join(root, "docs/development/requirements");
  mkdirSync(req, { recursive: true });
  writeFileSync(join(req, "AGENTS.md"), "# Instructions\n");
  for (const [cat, name] of [
    ["G", "general"],
    ["T", "testing"],
    ["S", "security"],
  ] as const) {
    const parts: string[] = [];
    for (const ch of ["A", "B", "C"]) {
      parts.push(`# Chapter ${ch}\n`);
      for (let n = 1; n <= 30; n++)
        parts.push(`## ${cat}.${ch}.${n}: rule ${n}\n\nThe rule ${n} of ${ch}.\n`);
    }
    writeFileSync(join(req, `${name}.md`), parts.join("\n"));
  }
  for (let i = 0; i < FILES; i++) {
    const dir = `pkg${Math.floor(i / 200)}`;
    const r = i % 10;
    const [kind, test, path] =
      r < 5
        ? (["ts", false, `src/${dir}/m${i}.ts`] as const)
        : r < 7
          ? (["ts", true, `src/${dir}/m${i}.test.ts`] as const)
          : r === 7
            ? (["py", false, `py/${dir}/mod_${i}.py`] as const)
            : r === 8
              ? (["go", true, `go/${dir}/m${i}_test.go`] as const)
              : (["md", false, `docs/${dir}/n${i}.md`] as const);
    mkdirSync(join(root, path, ".."), { recursive: true });
    const size = Math.max(200, Math.floor(per * (0.5 + random())));
    writeFileSync(join(root, path), fileText(size, kind, test));
    paths.push(path);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", root, ...args], { stdio: "pipe", maxBuffer: 1 << 28 });
  git("init", "-q");
  git("config", "user.email", "bench@example.com");
  git("config", "user.name", "bench");
  git("add", "-A");
  git("commit", "-qm", "Initial import (REQ-001, G.A.1)");
  return { paths };
}

const t0 = performance.now();
const { paths } = generate();
const generated = (performance.now() - t0) / 1000;
process.stderr.write(`generated ${FILES} files in ${generated.toFixed(1)} s at ${root}\n`);

const state0 = newScanState();
const first = await scanProject(root, { env, state: state0 });
const matcher = new CitationMatcher(first.config.hostedPrefixes, first.catalog.prefixes);
const ere = matcher.ereSource();
const grepArgs = [
  "-C",
  root,
  "grep",
  "-E",
  "-n",
  "--column",
  "-I",
  "-e",
  ere,
  "--",
  ".",
  ":!docs/development/requirements",
  ":!.reqlix",
];

// git grep runs as many threads as there are cores (grep.threads unset); also timed on one thread.
function gitGrep(threads?: number): { ms: number; lines: number } {
  const args = threads ? [...grepArgs.slice(0, 3), `--threads=${threads}`, ...grepArgs.slice(3)] : grepArgs;
  const s = performance.now();
  const out = spawnSync("git", args, { maxBuffer: 1 << 30, encoding: "utf8" });
  const ms = performance.now() - s;
  if (out.status !== 0) throw new Error(`git grep failed: ${out.stderr}`);
  return { ms, lines: out.stdout.split("\n").length - 1 };
}

/** CPU time (user + system, ms) of this process's waited-for children and theirs (Linux /proc). */
function childrenCpuMs(): number | undefined {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
    // Fields 16 and 17 of stat (cutime, cstime) in clock ticks of 1/100 s.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

/** CPU time (ms) of this process (every thread) and its waited-for children: the scan and its git runs. */
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000 + (childrenCpuMs() ?? 0);
}

/** `reqlix-mcp trace --format json` in a new process: wall and CPU milliseconds. */
function cli(): { ms: number; cpu: number | undefined } {
  const cpu0 = childrenCpuMs();
  const s = performance.now();
  const out = spawnSync(process.execPath, [CLI, "trace", "--root", root, "--format", "json"], {
    env,
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  const ms = performance.now() - s;
  const cpu1 = childrenCpuMs();
  if (out.status !== 0) throw new Error(`reqlix-mcp trace exited ${out.status}: ${out.stderr}`);
  return { ms, cpu: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0 };
}

async function cold(readThread = false): Promise<{ ms: number; cpu: number; citations: number }> {
  rmSync(cacheDir, { recursive: true, force: true });
  const cpu = cpuNow();
  const s = performance.now();
  const r = await scanProject(root, {
    env: readThread ? { ...env, REQLIX_TRACE_READ_THREAD: "1" } : env,
    persist: true,
  });
  const ms = performance.now() - s;
  const cpuMs = cpuNow() - cpu;
  let citations = 0;
  for (const l of r.byFile.values()) citations += l.length;
  return { ms, cpu: cpuMs, citations };
}

// Warm the page cache, then interleave them.
const loadBefore = loadavg().map((l) => Number(l.toFixed(1)));
gitGrep();
await cold();
const grepMs: number[] = [];
const coldMs: number[] = [];
const coldCpu: number[] = [];
const grep1Ms: number[] = [];
const cold2Ms: number[] = [];
let grepLines = 0;
let citations = 0;
for (let i = 0; i < RUNS; i++) {
  const g = gitGrep();
  grepMs.push(g.ms);
  grepLines = g.lines;
  const c = await cold();
  coldMs.push(c.ms);
  coldCpu.push(c.cpu);
  citations = c.citations;
  grep1Ms.push(gitGrep(1).ms);
  const c2 = await cold(true);
  cold2Ms.push(c2.ms);
  if (c2.citations !== c.citations) throw new Error(`two threads found ${c2.citations}, one ${c.citations}`);
}

// Rescan after 10 changed files: a new process would load the cache from disk (the CLI); the companion
// keeps it in memory. Both measured.
// Each rescan reads the 10 changed files, and again the previous rescan's ones: those were modified
// milliseconds before that scan read them, so their mtime cannot vouch for them (see racy.ts).
const reads: number[] = [];
const incDisk: number[] = [];
const incMemory: number[] = [];
const incDiskCpu: number[] = [];
const incMemoryCpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  for (let k = 0; k < 10; k++)
    appendFileSync(join(root, paths[i * 20 + k] as string), `// touched ${i} REQ-00${k}\n`);
  const cpu = cpuNow();
  const s = performance.now();
  const r = await scanProject(root, { env, persist: true });
  incDisk.push(performance.now() - s);
  incDiskCpu.push(cpuNow() - cpu);
  reads.push(r.read);
  if (r.read < 10 || r.read > 20) throw new Error(`expected 10 files read (+ ≤ 10 racy ones), got ${r.read}`);
}
const memState = newScanState();
await scanProject(root, { env, state: memState });
for (let i = 0; i < RUNS; i++) {
  for (let k = 0; k < 10; k++)
    appendFileSync(join(root, paths[i * 20 + 10 + k] as string), `// again ${i} REQ-01${k}\n`);
  const cpu = cpuNow();
  const s = performance.now();
  const m = await scanProject(root, { env, state: memState });
  incMemory.push(performance.now() - s);
  incMemoryCpu.push(cpuNow() - cpu);
  reads.push(m.read);
  if (m.read < 10 || m.read > 20) throw new Error(`expected 10 files read (+ ≤ 10 racy ones), got ${m.read}`);
}

// The CLI, each run a new process: cold (no cache folder), then after 10 changed files (cache from disk).
const cliColdMs: number[] = [];
const cliColdCpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  rmSync(cacheDir, { recursive: true, force: true });
  const c = cli();
  cliColdMs.push(c.ms);
  if (c.cpu !== undefined) cliColdCpu.push(c.cpu);
}
cli(); // the cache of the current files (the last cold run's files were racy: just touched)
const cliIncMs: number[] = [];
const cliIncCpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  for (let k = 0; k < 10; k++)
    appendFileSync(join(root, paths[i * 20 + 400 + k] as string), `// cli ${i} REQ-02${k}\n`);
  const c = cli();
  cliIncMs.push(c.ms);
  if (c.cpu !== undefined) cliIncCpu.push(c.cpu);
}

// trace_file after the first scan.
const service = new TraceService(env, undefined);
await service.traceFile(root, paths[0] as string);
const fileMs: number[] = [];
for (let i = 0; i < 300; i++) {
  const p = paths[Math.floor(random() * paths.length)] as string;
  const s = performance.now();
  await service.traceFile(root, p);
  fileMs.push(performance.now() - s);
}
fileMs.sort((a, b) => a - b);

const grep = median(grepMs);
const coldMedian = median(coldMs);
const result = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadavg_before: loadBefore,
  loadavg: loadavg().map((l) => Number(l.toFixed(1))),
  files: FILES,
  bytes_mb: MB,
  pattern: ere,
  git_grep_ms: grepMs.map(Math.round),
  git_grep_lines: grepLines,
  cold_scan_ms: coldMs.map(Math.round),
  citations,
  cold_vs_grep: Number((coldMedian / grep).toFixed(2)),
  git_grep_one_thread_ms: grep1Ms.map(Math.round),
  cold_vs_grep_one_thread: Number((coldMedian / median(grep1Ms)).toFixed(2)),
  cold_scan_read_thread_ms: cold2Ms.map(Math.round),
  cold_read_thread_vs_grep: Number((median(cold2Ms) / grep).toFixed(2)),
  cli_cold_ms: cliColdMs.map(Math.round),
  cli_cold_cpu_ms: cliColdCpu,
  cli_rescan_ms: cliIncMs.map(Math.round),
  cli_rescan_cpu_ms: cliIncCpu,
  cli_rescan_vs_cold: Number((median(cliIncMs) / median(cliColdMs)).toFixed(3)),
  cli_rescan_vs_cold_cpu:
    cliIncCpu.length > 0 ? Number((median(cliIncCpu) / median(cliColdCpu)).toFixed(3)) : null,
  incremental_disk_ms: incDisk.map(Math.round),
  incremental_memory_ms: incMemory.map(Math.round),
  incremental_files_read: reads,
  incremental_disk_vs_cold: Number((median(incDisk) / coldMedian).toFixed(3)),
  incremental_memory_vs_cold: Number((median(incMemory) / coldMedian).toFixed(3)),
  cold_scan_cpu_ms: coldCpu.map(Math.round),
  incremental_disk_cpu_ms: incDiskCpu.map(Math.round),
  incremental_memory_cpu_ms: incMemoryCpu.map(Math.round),
  incremental_disk_vs_cold_cpu: Number((median(incDiskCpu) / median(coldCpu)).toFixed(3)),
  incremental_memory_vs_cold_cpu: Number((median(incMemoryCpu) / median(coldCpu)).toFixed(3)),
  trace_file_p50_ms: Number(percentile(fileMs, 50).toFixed(2)),
  trace_file_p95_ms: Number(percentile(fileMs, 95).toFixed(2)),
};
const rows = [
  [
    "cold scan (no cache) vs `git grep -E -n --column -I`",
    `${Math.round(coldMedian)} ms`,
    `${Math.round(grep)} ms`,
    String(result.cold_vs_grep),
    "≤ 1.5",
  ],
  [
    "the same cold scan vs `git grep --threads=1` (same flags)",
    `${Math.round(coldMedian)} ms`,
    `${Math.round(median(grep1Ms))} ms`,
    String(result.cold_vs_grep_one_thread),
    "",
  ],
  [
    "cold scan with a reader thread (`REQLIX_TRACE_READ_THREAD=1`) vs `git grep -E`",
    `${Math.round(median(cold2Ms))} ms`,
    `${Math.round(grep)} ms`,
    String(result.cold_read_thread_vs_grep),
    "",
  ],
  [
    "`reqlix-mcp trace` (new process) after 10 files change, cache from disk, vs the same cold: wall clock",
    `${Math.round(median(cliIncMs))} ms`,
    `cold ${Math.round(median(cliColdMs))} ms`,
    String(result.cli_rescan_vs_cold),
    "≤ 0.1",
  ],
  [
    "the same, CPU time (the process and its git children)",
    cliIncCpu.length > 0 ? `${median(cliIncCpu)} ms` : "n/a",
    cliColdCpu.length > 0 ? `cold ${median(cliColdCpu)} ms` : "",
    String(result.cli_rescan_vs_cold_cpu ?? ""),
    "≤ 0.1",
  ],
  [
    "rescan after 10 files change, cache from disk, scan only (in this process: no start-up)",
    `${Math.round(median(incDisk))} ms`,
    `cold ${Math.round(coldMedian)} ms`,
    String(result.incremental_disk_vs_cold),
    "≤ 0.1",
  ],
  [
    "the same, CPU time (this process and its git children)",
    `${Math.round(median(incDiskCpu))} ms`,
    `cold ${Math.round(median(coldCpu))} ms`,
    String(result.incremental_disk_vs_cold_cpu),
    "≤ 0.1",
  ],
  [
    "rescan after 10 files change, cache in memory (companion), scan only",
    `${Math.round(median(incMemory))} ms`,
    `cold ${Math.round(coldMedian)} ms`,
    String(result.incremental_memory_vs_cold),
    "≤ 0.1",
  ],
  [
    "the same, CPU time",
    `${Math.round(median(incMemoryCpu))} ms`,
    `cold ${Math.round(median(coldCpu))} ms`,
    String(result.incremental_memory_vs_cold_cpu),
    "≤ 0.1",
  ],
  [
    "`trace_file` p50 (p95) after the first scan",
    `${result.trace_file_p50_ms} ms (${result.trace_file_p95_ms} ms)`,
    "",
    "",
    "≤ 5 ms",
  ],
];
const md = [
  `# trace scan benchmark (${result.date})`,
  "",
  `${FILES} files, ${MB} MB, ${citations} citations (git grep: ${grepLines} matching lines); Node ${process.version}, ${result.cpus} cores, load ${loadBefore.join(" ")} at the start, ${result.loadavg.join(" ")} at the end; medians of ${RUNS} interleaved runs. The CLI rows run \`node dist/reqlix-mcp.js trace --format json\` as a new process each time (what CI waits for); the others time the scan in this process. git grep runs one thread per core (its default); the scan one thread (its default), and also with a reader thread; git grep also on one thread.`,
  "",
  "| what | trace | baseline | ratio | target |",
  "|---|---|---|---|---|",
  ...rows.map((r) => `| ${r.join(" | ")} |`),
  "",
].join("\n");
const out = resolve(import.meta.dirname, "results");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "trace-scan.json"), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(join(out, "trace-scan.md"), md);
process.stdout.write(md);
if (!process.env.KEEP) rmSync(root, { recursive: true, force: true });
rmSync(cacheDir, { recursive: true, force: true });
