/**
 * Item 8: reqlix over big category files, through the built companion over stdio (real process, SDK Client).
 *
 * 1. reqlix_get_requirement of the last requirement of a 100 MB category, next to `grep -F` finding its
 *    heading in the same file (target ratio ≤ 2), and the server's peak RSS (VmHWM, target ≤ 100 MB).
 * 2. reqlix_insert_requirement into a 10 MB category (atomic rewrite: temp file, fsync, rename), into its
 *    first chapter (everything after it moves) and into its last one, next to a plain copy of that file
 *    with `cp` (target ≤ 3×); a copy with fsync is shown too.
 *
 * Runs are interleaved (tool, baseline, tool, …) and medians reported: the machine is shared.
 * Run: npm run build && npx tsx bench/reqlix-file-ops.ts
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { startCompanion, tempDir, textOf } from "../test/helpers/companion.js";
import { median } from "./lib.js";

const RUNS = Number(process.env.RUNS ?? 7);

function ms(from: bigint): number {
  return Number(process.hrtime.bigint() - from) / 1e6;
}

/** Writes a category of about `bytes`: chapters of 4000 requirements, a fenced block in every tenth body. */
function writeCategory(path: string, bytes: number): { last: string; count: number } {
  const fd = openSync(path, "w");
  const body = `${"The system shall keep every requirement readable by people and by tools. ".repeat(6)}\n`;
  const fenced = "```md\n# Not a chapter\n## X.Y.1: not a requirement\n```\n";
  let written = 0;
  let chapter = 0;
  let n = 0;
  let last = "";
  let count = 0;
  const parts: string[] = [];
  const flush = () => {
    const chunk = parts.join("");
    writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
    parts.length = 0;
  };
  while (written < bytes) {
    if (n % 4000 === 0) {
      chapter++;
      n = 0;
      parts.push(`${written > 0 || parts.length > 0 ? "\n" : ""}# Chapter ${chapter}\n`);
    }
    n++;
    count++;
    last = `G.C${chapter}.${n}`;
    parts.push(`\n## ${last}: Requirement ${chapter}-${n}\n\n${body}${n % 10 === 0 ? fenced : ""}`);
    if (parts.length >= 2000) flush();
  }
  flush();
  closeSync(fd);
  return { last, count };
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

const project = await tempDir("reqlix-bench-files-");
const dir = join(project.path, "docs/development/requirements");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "AGENTS.md"), "# Instructions\n");
const companion = await startCompanion({ args: ["--toolsets", "reqlix"] });
const pid = companion.transport.pid as number;
const call = async (name: string, args: Record<string, unknown>) => {
  const r = await companion.client.callTool({
    name,
    arguments: { project_root: project.path, operation_description: "bench", ...args },
  });
  const body = JSON.parse(textOf(r)) as { success: boolean; data?: Record<string, unknown>; error?: string };
  if (!body.success) throw new Error(body.error);
  return body.data as Record<string, unknown>;
};

try {
  // 1. The last requirement of a 100 MB category.
  const big = join(dir, "big.md");
  const { last, count } = writeCategory(big, 100 * 1024 * 1024);
  const bigSize = statSync(big).size;
  const heading = `## ${last}: `;
  const rssBefore = peakRssMb(pid);
  const getTimes: number[] = [];
  const grepTimes: number[] = [];
  await call("reqlix_get_requirement", { index: last }); // warm the page cache
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const got = await call("reqlix_get_requirement", { index: last });
    getTimes.push(ms(t0));
    if (got.index !== last) throw new Error(`got ${String(got.index)}`);
    const t1 = process.hrtime.bigint();
    const g = spawnSync("grep", ["-n", "-F", "--", heading, big], { encoding: "utf8" });
    grepTimes.push(ms(t1));
    if (!g.stdout.includes(heading)) throw new Error("grep did not find the heading");
  }
  const rss = peakRssMb(pid);

  // 2. Insert into a 10 MB category (appended to its last chapter: the whole file is rewritten either way).
  const mid = join(dir, "mid.md");
  const midLast = writeCategory(mid, 10 * 1024 * 1024).last;
  const midLastChapter = `Chapter ${midLast.split(".")[1]?.slice(1)}`;
  const midSize = statSync(mid).size;
  const insertTimes: number[] = [];
  const appendTimes: number[] = [];
  const cpTimes: number[] = [];
  const syncCopyTimes: number[] = [];
  const copyPath = join(project.path, "copy.md");
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await call("reqlix_insert_requirement", {
      category: "mid",
      chapter: "Chapter 1",
      title: `bench ${i}`,
      text: "Inserted by the benchmark.",
    });
    insertTimes.push(ms(t0));
    const t3 = process.hrtime.bigint();
    await call("reqlix_insert_requirement", {
      category: "mid",
      chapter: midLastChapter,
      title: `bench ${i}`,
      text: "Appended by the benchmark.",
    });
    appendTimes.push(ms(t3));
    const t1 = process.hrtime.bigint();
    spawnSync("cp", [mid, copyPath]);
    cpTimes.push(ms(t1));
    rmSync(copyPath);
    const t2 = process.hrtime.bigint();
    const data = readFileSync(mid);
    const fd = openSync(copyPath, "w");
    writeSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    syncCopyTimes.push(ms(t2));
    rmSync(copyPath);
  }

  const result = {
    bench: "reqlix-file-ops",
    node: process.version,
    load_average_1min: loadavg()[0],
    runs: RUNS,
    get_last_requirement_of_100mb: {
      file_bytes: bigSize,
      requirements: count,
      index: last,
      median_ms: median(getTimes),
      grep_median_ms: median(grepTimes),
      ratio_to_grep: median(getTimes) / median(grepTimes),
      target_ratio: 2,
      server_peak_rss_mb: rss,
      server_peak_rss_before_mb: rssBefore,
      target_rss_mb: 100,
    },
    insert_into_10mb: {
      file_bytes: midSize,
      median_ms: median(insertTimes),
      cp_median_ms: median(cpTimes),
      ratio_to_cp: median(insertTimes) / median(cpTimes),
      into_last_chapter_median_ms: median(appendTimes),
      into_last_chapter_ratio_to_cp: median(appendTimes) / median(cpTimes),
      copy_with_fsync_median_ms: median(syncCopyTimes),
      ratio_to_copy_with_fsync: median(insertTimes) / median(syncCopyTimes),
      target_ratio: 3,
    },
  };
  const g = result.get_last_requirement_of_100mb;
  const w = result.insert_into_10mb;
  console.table({
    "get_requirement (100 MB, last)": {
      ms: g.median_ms.toFixed(1),
      baseline: `grep -F ${g.grep_median_ms.toFixed(1)} ms`,
      ratio: g.ratio_to_grep.toFixed(2),
      target: "≤ 2",
    },
    "server peak RSS": {
      ms: "",
      baseline: `${g.server_peak_rss_mb.toFixed(1)} MB`,
      ratio: "",
      target: "≤ 100 MB",
    },
    "insert (10 MB, first chapter)": {
      ms: w.median_ms.toFixed(1),
      baseline: `cp ${w.cp_median_ms.toFixed(1)} ms`,
      ratio: w.ratio_to_cp.toFixed(2),
      target: "≤ 3",
    },
    "insert (10 MB, last chapter)": {
      ms: w.into_last_chapter_median_ms.toFixed(1),
      baseline: `cp ${w.cp_median_ms.toFixed(1)} ms`,
      ratio: w.into_last_chapter_ratio_to_cp.toFixed(2),
      target: "≤ 3",
    },
    "insert vs copy+fsync": {
      ms: w.median_ms.toFixed(1),
      baseline: `${w.copy_with_fsync_median_ms.toFixed(1)} ms`,
      ratio: w.ratio_to_copy_with_fsync.toFixed(2),
      target: "",
    },
  });
  const out = resolve(import.meta.dirname, "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "reqlix-file-ops.json"), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(
    join(out, "reqlix-file-ops.md"),
    [
      `# reqlix file operations (${new Date().toISOString()}, ${process.version}, load ${result.load_average_1min?.toFixed(1)})`,
      "",
      "| what | reqlix | baseline | ratio | target |",
      "|---|---|---|---|---|",
      `| get_requirement, last of ${(g.file_bytes / 2 ** 20).toFixed(0)} MB (${g.requirements} requirements) | ${g.median_ms.toFixed(1)} ms | grep -F ${g.grep_median_ms.toFixed(1)} ms | ${g.ratio_to_grep.toFixed(2)} | ≤ 2 |`,
      `| server peak RSS after those reads | ${g.server_peak_rss_mb.toFixed(1)} MB | | | ≤ 100 MB |`,
      `| insert into the first chapter of ${(w.file_bytes / 2 ** 20).toFixed(0)} MB | ${w.median_ms.toFixed(1)} ms | cp ${w.cp_median_ms.toFixed(1)} ms | ${w.ratio_to_cp.toFixed(2)} | ≤ 3 |`,
      `| insert into the last chapter of ${(w.file_bytes / 2 ** 20).toFixed(0)} MB | ${w.into_last_chapter_median_ms.toFixed(1)} ms | cp ${w.cp_median_ms.toFixed(1)} ms | ${w.into_last_chapter_ratio_to_cp.toFixed(2)} | ≤ 3 |`,
      `| insert into the first chapter of ${(w.file_bytes / 2 ** 20).toFixed(0)} MB | ${w.median_ms.toFixed(1)} ms | read + write + fsync ${w.copy_with_fsync_median_ms.toFixed(1)} ms | ${w.ratio_to_copy_with_fsync.toFixed(2)} | |`,
      "",
    ].join("\n"),
  );
} finally {
  await companion.close();
  await project.cleanup();
}
