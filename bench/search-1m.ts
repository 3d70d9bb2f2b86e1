/**
 * search_requirements at 1,000,000 requirements (issue 16, item 1): p99 ≤ 20 ms for every query class, in
 * the 1M workspace and in a small workspace sharing its database (plus, in the 1M workspace, the two-word
 * queries with fewer than 5,000 matches alone: the ones bm25() ranks in full), next to the raw FTS5 query
 * (full bm25 over the workspace's matches) in the same run; and relevance: top-10 overlap with that full bm25 ranking on a
 * judged set of queries matching fewer than 5,000 rows (target ≥ 0.9). The verdict judges CPU p99 (what a
 * query costs this process) and reports wall p99 beside it: on a shared machine wall time is mostly load.
 *
 * The database is built once (minutes) into a file and reused: --db (default in the temp folder).
 *
 *   npx tsx bench/search-1m.ts [--rows 1000000] [--small 2000] [--runs 300] [--warm-rounds 150]
 *     [--db /tmp/reqlix-search-1m.db]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants, PerformanceObserver, performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { ftsQuery } from "../src/db/search.repo.js";
import { RANKED_CANDIDATES, textMatch } from "../src/db/search-ranking.js";
import { parseToolInput } from "../src/protocol/compile.js";
import { benchContext, hostedTool } from "./hosted-tool.js";
import { collectGarbage, machineFacts, numberArg, percentile, rng } from "./lib.js";
import { openSearchData, type SearchWorkspace, VOCAB } from "./search-data.js";

const ROWS = numberArg("rows", 1_000_000);
const SMALL = numberArg("small", 2000);
// Enough queries per class that a p99 is a percentile, not the one worst query: with bench/lib.ts's
// percentile (the value at floor(0.99 n) of the sorted times, 0-based), 60 queries made "p99" their maximum,
// so one descheduling of the process decided a class. At 300 it is the third-worst query, as a p99 of 300
// is; the worst query is reported beside it (max columns), so nothing is hidden.
const RUNS = numberArg("runs", 300);
const RAW_RUNS = numberArg("raw-runs", 3);
const dbArg = process.argv.indexOf("--db");
const DB = dbArg === -1 ? join(tmpdir(), `reqlix-search-${ROWS}.db`) : (process.argv[dbArg + 1] as string);
const TARGET_P99_MS = 20;
const TARGET_OVERLAP = 0.9;

const data = await openSearchData(DB, ROWS, SMALL);
const { database } = data;
const tool = hostedTool("search_requirements");

const ctxOf = (ws: SearchWorkspace) =>
  benchContext(database, {
    userId: data.user.id,
    username: data.user.username,
    workspaceId: ws.id,
    workspaceSlug: ws.slug,
  });

interface Hit {
  reference_id: string;
}
const cpuTimes: number[] = [];
async function viaTool(
  ws: SearchWorkspace,
  query: string,
  limit = 20,
): Promise<{ ms: number; ids: string[] }> {
  const input = parseToolInput(tool as NonNullable<typeof tool>, { query, limit });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = (await tool?.def.handler(input, ctxOf(ws))) as { items: Hit[] };
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  cpuTimes.push((cpu.user + cpu.system) / 1000);
  return { ms, ids: out.items.map((i) => i.reference_id) };
}

/** The raw FTS5 query: full bm25 over every match in the workspace, the page's ids joined in. */
async function raw(ws: SearchWorkspace, query: string, limit = 20): Promise<{ ms: number; ids: string[] }> {
  const { match } = ftsQuery(query);
  const lo = ws.id * 4_294_967_296;
  const t0 = performance.now();
  const rows = await database.read((db) =>
    db.all<{ reference_id: string }>(sql`
      SELECT f.reference_id FROM search_fts f
      WHERE search_fts MATCH ${textMatch(match)} AND f.rowid BETWEEN ${lo} AND ${lo + 4_294_967_295}
        AND f.rowid % 8 = 3
      ORDER BY bm25(search_fts, 10.0, 5.0, 1.0, 0.0), f.rowid LIMIT ${limit}`),
  );
  return { ms: performance.now() - t0, ids: rows.map((r) => r.reference_id) };
}

async function matches(ws: SearchWorkspace, query: string): Promise<number> {
  const { match } = ftsQuery(query);
  const lo = ws.id * 4_294_967_296;
  const rows = await database.read((db) =>
    db.all<{ n: number }>(sql`SELECT count(*) AS n FROM search_fts f
      WHERE search_fts MATCH ${`{ws}: "ws${ws.id}" AND ${textMatch(match)}`} AND f.rowid BETWEEN ${lo} AND ${lo + 4_294_967_295}`),
  );
  return Number(rows[0]?.n ?? 0);
}

// Query classes, as people search a backlog (the same as bench/search.ts).
const qr = rng(7);
// What the classes draw from: the measured queries' generator, or the warm-up's (below), which leaves it be.
let draw = qr;
const pick = <T>(list: T[]) => list[Math.floor(draw() * list.length)] as T;
const rare = VOCAB.slice(1500, 3000);
const middling = VOCAB.slice(40, 200);
const common = VOCAB.slice(0, 8);
const classes: { name: string; make: (ws: SearchWorkspace) => string }[] = [
  { name: "reference id", make: (ws) => `REQ-${1 + Math.floor(draw() * ws.rows)}` },
  { name: "rare word", make: () => pick(rare) },
  { name: "middling word", make: () => pick(middling) },
  { name: "two words", make: () => `${pick(middling)} ${pick(VOCAB.slice(8, 60))}` },
  { name: "common word", make: () => pick(common) },
];
// The two-word class mixes queries above and below RANKED_CANDIDATES matches (about half each at 1M). Those
// below are ranked in full by bm25() (the relevance rule holds for them), the costliest path: this class is
// that half alone in the large workspace, drawn the same way from a generator of its own (so the classes
// above keep their queries).
const fr = rng(13);
const fpick = <T>(list: T[]) => list[Math.floor(fr() * list.length)] as T;
const fewTwoWords: string[] = [];
while (fewTwoWords.length < RUNS) {
  const q = `${fpick(middling)} ${fpick(VOCAB.slice(8, 60))}`;
  const n = await matches(data.big, q);
  if (n > 0 && n < RANKED_CANDIDATES) fewTwoWords.push(q);
}
const fewClass = {
  name: `two words, < ${RANKED_CANDIDATES.toLocaleString("en")} matches`,
  queries: fewTwoWords,
};
/** How many of `n` sorted times lie above their p99 (bench/lib.ts's percentile). */
const aboveP99 = (n: number) => n - 1 - Math.min(n - 1, Math.floor(0.99 * n));
const stats = (times: number[]) => {
  const s = [...times].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] as number };
};

// The first multi-word query of a large workspace builds its word sample (search-split.ts; kept 10 minutes).
const cold = await viaTool(data.big, "terma invoice");
const coldCpu = cpuTimes[cpuTimes.length - 1] as number;
// Warm-up: page cache and statement cache, both workspaces.
for (let i = 0; i < 20; i++) {
  for (const ws of [data.big, data.small]) await viaTool(ws, pick(classes).make(ws));
}
// Then steady state for the compiler: every class in both workspaces, WARM_ROUNDS times, from a generator of
// its own (the measured queries stay the same). V8 keeps optimizing the search's code for hundreds of
// queries (drizzle's query builder and our rankings deoptimize on new shapes and compile again): after 180
// queries of the two-word class alone, its next 60 still saw 32 TurboFan compiles (184 ms on the compiler
// thread, which process.cpuUsage charges to whichever query is running: 4–28 ms for one function), the
// next rounds of 60 67, 73, 54, 28 and 28 ms, then 1–9 ms (--trace-opt, 2026-11-26). A server answers
// thousands of searches; the p99 it owes is the settled one (the first query is reported apart). Measured
// queries still pay any compile or collection that falls among them.
const WARM_ROUNDS = numberArg("warm-rounds", 150);
draw = rng(21);
for (let i = 0; i < WARM_ROUNDS; i++) {
  for (const ws of [data.big, data.small]) for (const c of classes) await viaTool(ws, c.make(ws));
}
draw = qr;
// One full collection before the measured queries: opening and checking the 1 GB database and building the
// word sample leave ~50 MB of garbage in the old generation, and its one collection (a 10-13 ms pause plus
// concurrent marking on both cores) otherwise lands on whichever query is running then. In steady state the
// queries promote little: a run of 1,600 mixed queries had no major collection of its own. Every collection
// during the measured queries still counts, and their number is reported.
collectGarbage();
let majorCollections = 0;
const gcWatch = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
      majorCollections++;
  }
});
gcWatch.observe({ entryTypes: ["gc"] });

const rows: Record<string, string | number>[] = [];
let worstP99 = 0;
let worstCpuP99 = 0;
let worstMax = 0;
let worstCpuMax = 0;
for (const ws of [data.big, data.small]) {
  for (const c of ws === data.big ? [...classes, fewClass] : classes) {
    const queries = "queries" in c ? c.queries : Array.from({ length: RUNS }, () => c.make(ws));
    const cpuFrom = cpuTimes.length;
    const times: number[] = [];
    for (const q of queries) times.push((await viaTool(ws, q)).ms);
    // The slowest query of the class, to tell a costly query from a stall (which any query could hit).
    const slowest = queries[times.indexOf(Math.max(...times))] as string;
    const rawTimes: number[] = [];
    for (const q of queries.slice(0, RAW_RUNS)) rawTimes.push((await raw(ws, q)).ms);
    const f = stats(times);
    const cpu = stats(cpuTimes.slice(cpuFrom));
    const r = stats(rawTimes);
    worstP99 = Math.max(worstP99, f.p99);
    worstCpuP99 = Math.max(worstCpuP99, cpu.p99);
    worstMax = Math.max(worstMax, f.max);
    worstCpuMax = Math.max(worstCpuMax, cpu.max);
    const sample = queries[0] as string;
    rows.push({
      workspace: `${ws.slug} (${ws.rows.toLocaleString("en")})`,
      class: c.name,
      example: sample,
      matches: c.name === "reference id" ? 1 : await matches(ws, sample),
      p50_ms: +f.p50.toFixed(2),
      p99_ms: +f.p99.toFixed(2),
      cpu_p99_ms: +cpu.p99.toFixed(2),
      max_ms: +f.max.toFixed(2),
      cpu_max_ms: +cpu.max.toFixed(2),
      slowest,
      raw_fts5_p50_ms: +r.p50.toFixed(2),
      raw_over_tool_p50: +(r.p50 / f.p50).toFixed(1),
    });
  }
}

// GC entries arrive after the collection: let the last ones in before counting.
await new Promise((r) => setTimeout(r, 10));
gcWatch.disconnect();
const measuredMajorCollections = majorCollections;

// Relevance: queries of the 1M workspace matching fewer than 5,000 rows, top 10 against full bm25.
const judged: Record<string, string | number>[] = [];
const jr = rng(11);
const jpick = <T>(list: T[]) => list[Math.floor(jr() * list.length)] as T;
const candidates = [
  ...Array.from({ length: 8 }, () => jpick(rare)),
  ...Array.from({ length: 8 }, () => `${jpick(VOCAB.slice(200, 1500))} ${jpick(VOCAB.slice(0, 40))}`),
  ...Array.from({ length: 8 }, () => `${jpick(middling)} ${jpick(VOCAB.slice(8, 60))}`),
  ...Array.from({ length: 4 }, () => `${jpick(middling)} ${jpick(middling)}`),
];
for (const q of candidates) {
  const n = await matches(data.big, q);
  if (n === 0 || n >= 5000) continue;
  const ours = (await viaTool(data.big, q, 10)).ids;
  const full = (await raw(data.big, q, 10)).ids;
  const shared = ours.filter((id) => full.includes(id)).length;
  judged.push({ query: q, matches: n, overlap: +(shared / Math.max(1, full.length)).toFixed(2) });
}
const overlaps = judged.map((j) => Number(j.overlap));
const minOverlap = overlaps.length ? Math.min(...overlaps) : Number.NaN;
const meanOverlap = overlaps.reduce((a, b) => a + b, 0) / Math.max(1, overlaps.length);

const summary = {
  rows: ROWS,
  small_workspace_rows: SMALL,
  ranked_candidates: RANKED_CANDIDATES,
  runs_per_class: RUNS,
  warm_rounds: WARM_ROUNDS,
  worst_class_cpu_p99_ms: +worstCpuP99.toFixed(2),
  worst_class_wall_p99_ms: +worstP99.toFixed(2),
  worst_query_cpu_ms: +worstCpuMax.toFixed(2),
  worst_query_wall_ms: +worstMax.toFixed(2),
  target: `p99 ≤ ${TARGET_P99_MS} ms every class, both workspaces; top-10 overlap ≥ ${TARGET_OVERLAP} below 5,000 matches`,
  cpu_p99_pass: worstCpuP99 <= TARGET_P99_MS,
  wall_p99_pass: worstP99 <= TARGET_P99_MS,
  first_query_cpu_ms: +coldCpu.toFixed(2),
  first_query_wall_ms: +cold.ms.toFixed(2),
  major_collections_during_measured_queries: measuredMajorCollections,
  judged_queries: judged.length,
  overlap_min: +minOverlap.toFixed(2),
  overlap_mean: +meanOverlap.toFixed(2),
  overlap_pass: minOverlap >= TARGET_OVERLAP,
  ...machineFacts(),
};
console.table(rows);
console.table(judged);
console.table([summary]);

mkdirSync("bench/results", { recursive: true });
writeFileSync(
  "bench/results/search-1m.json",
  `${JSON.stringify({ summary, classes: rows, judged }, null, 2)}\n`,
);
const md = [
  `# search_requirements at ${ROWS.toLocaleString("en")} requirements`,
  "",
  `Run ${summary.date} on Node ${summary.node}, ${summary.cpus} cores, 1-minute load average ${summary.load_average_1m}. ${RUNS} queries per class through the search_requirements tool (argument parsing + handler), in the ${ROWS.toLocaleString("en")}-requirement workspace and in a ${SMALL.toLocaleString("en")}-requirement workspace of the same database; the raw FTS5 query (full bm25 over the workspace's matches) for ${RAW_RUNS} of them in the same run. CPU is what a query cost this process; wall time adds waiting for a core.`,
  "",
  "| workspace | class | example | matches | p50 ms | p99 ms | CPU p99 ms | max ms | CPU max ms | slowest | raw FTS5 p50 ms | raw / tool |",
  "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
  ...rows.map(
    (r) =>
      `| ${r.workspace} | ${r.class} | \`${r.example}\` | ${r.matches} | ${r.p50_ms} | ${r.p99_ms} | ${r.cpu_p99_ms} | ${r.max_ms} | ${r.cpu_max_ms} | \`${r.slowest}\` | ${r.raw_fts5_p50_ms} | ${r.raw_over_tool_p50}× |`,
  ),
  "",
  `Relevance (${judged.length} queries of the large workspace matching fewer than 5,000 rows): top-10 overlap with full bm25 min ${summary.overlap_min}, mean ${summary.overlap_mean} (target ≥ ${TARGET_OVERLAP}: ${summary.overlap_pass ? "met" : "NOT met"}).`,
  "",
  "| query | matches | overlap |",
  "|---|---:|---:|",
  ...judged.map((j) => `| \`${j.query}\` | ${j.matches} | ${j.overlap} |`),
  "",
  `**CPU p99, worst class: ${summary.worst_class_cpu_p99_ms} ms** (target ≤ ${TARGET_P99_MS} ms: ${summary.cpu_p99_pass ? "met" : "NOT met"} on this run). CPU time is what a query costs this process, the measure that moves least with other processes' load.`,
  "",
  `**Wall p99, worst class: ${summary.worst_class_wall_p99_ms} ms** at 1-minute load ${summary.load_average_1m} on ${summary.cpus} cores (target ≤ ${TARGET_P99_MS} ms: ${summary.wall_p99_pass ? "met" : "NOT met"} on this run). Wall time adds waiting for a core.`,
  "",
  `The worst single query of any class: ${summary.worst_query_cpu_ms} ms CPU, ${summary.worst_query_wall_ms} ms wall (a class's p99 of ${RUNS} queries has ${aboveP99(RUNS)} slower than it).`,
  "",
  `Before them, ${WARM_ROUNDS} warm-up rounds of every class in both workspaces (other queries of the same kinds), so the compiler has settled. The heap is collected once after the warm-up (the setup's garbage); major collections during the measured queries: ${measuredMajorCollections}.`,
  "",
  `The first multi-word query of a large workspace builds the workspace's word sample (kept 10 minutes): ${summary.first_query_cpu_ms} ms CPU, ${summary.first_query_wall_ms} ms wall, outside the table. Queries matching more than ${RANKED_CANDIDATES.toLocaleString("en")} rows list their newest ${RANKED_CANDIDATES.toLocaleString("en")}, title hits first (see README).`,
  "",
].join("\n");
writeFileSync("bench/results/search-1m.md", md);
await database.close();
// CPU p99 and relevance are judged; wall p99 is reported with its verdict (it depends on the machine's load).
if (!summary.cpu_p99_pass || !summary.overlap_pass) process.exitCode = 1;
