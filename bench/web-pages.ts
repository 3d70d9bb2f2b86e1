/**
 * Web app page times (issue 13, Performance), server side, at 100,000 requirements on an embedded libSQL
 * file, through the whole app (`app.request`: session lookup, CSRF guard, registry tools, audit, HTML):
 *   (a) the requirement page: p50 ≤ 10 ms, and ≤ 3× the JSON-RPC call that reads the same data;
 *   (b) the tree page of an epic with 1,000 requirements: p50 ≤ 50 ms, and ≤ 3× its JSON-RPC read.
 * "The JSON-RPC call that reads the same data" is measured two ways in the same run: the one main call
 * (get_requirement; epic_hierarchy with limit 1,000), and every call the page makes, one after another
 * (the requirement page also reads traces, history, comments and verdicts; the tree page the epic list and
 * the types). Requests alternate page / JSON-RPC so load on the shared machine hits both alike.
 * Prints a table and writes bench/results/web-pages.{json,md}.
 *
 *   npx tsx bench/web-pages.ts [--rows 100000] [--samples 300]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { createApp } from "../src/app.js";
import { bootstrap } from "../src/db/bootstrap.js";
import { openDatabase } from "../src/db/client.js";
import { migrateDatabase } from "../src/db/migrate.js";
import { createJsonLogger } from "../src/http/logger.js";
import { numberArg, percentile } from "./lib.js";

const ROWS = numberArg("rows", 100_000);
const SAMPLES = numberArg("samples", 300);
const PER_EPIC = 1000;
const STORIES_PER_EPIC = 10;

const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-web-"));
const database = await openDatabase({ url: `file:${join(dir, "b.db")}` });
await migrateDatabase(database);
const boot = await bootstrap(database);
if (!boot.created) throw new Error("a fresh database was not bootstrapped");
const app = createApp({ database, logger: createJsonLogger({ write: () => {} }), version: "bench" });
const ws = 1;

console.log(`Seeding ${ROWS.toLocaleString("en")} requirements (${ROWS / PER_EPIC} epics of ${PER_EPIC})…`);
const seedStart = performance.now();
const epics = Math.ceil(ROWS / PER_EPIC);
const stories = epics * STORIES_PER_EPIC;
await database.write(async (tx) => {
  const type = await tx.all<{ id: number }>(
    sql`SELECT id FROM requirement_types WHERE workspace_id = ${ws} AND name = 'Functional'`,
  );
  const typeId = type[0]?.id;
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${epics})
    INSERT INTO epics (workspace_id, reference_id, title, description, creator_id)
    SELECT ${ws}, printf('EP-%03d', i), 'Epic ' || i, 'The **area** number ' || i, 1 FROM n`);
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${stories})
    INSERT INTO user_stories (workspace_id, reference_id, epic_id, title, creator_id)
    SELECT ${ws}, printf('US-%03d', i), (SELECT id FROM epics WHERE reference_id = printf('EP-%03d', 1 + (i - 1) / ${STORIES_PER_EPIC})), 'Story ' || i, 1 FROM n`);
  await tx.run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS})
    INSERT INTO requirements (workspace_id, reference_id, user_story_id, title, description, type_id, priority, creator_id)
    SELECT ${ws}, printf('REQ-%03d', i), (SELECT id FROM user_stories WHERE reference_id = printf('US-%03d', 1 + (i - 1) / ${PER_EPIC / STORIES_PER_EPIC})),
      'Requirement ' || i, 'The system **shall** handle case ' || i || ' within the agreed time:' || char(10) || char(10) || '- fast' || char(10) || '- right',
      ${typeId}, 1 + (i % 4), 1 FROM n`);
  await tx.run(sql`INSERT INTO revisions (workspace_id, entity_kind, entity_id, reference_id, revision, op, snapshot, user_id, tool, created_at)
    SELECT q.workspace_id, 'requirement', q.id, q.reference_id, 1, 'create',
      json_object('reference_id', q.reference_id, 'user_story_id', s.reference_id, 'title', q.title, 'description', q.description,
        'status', q.status, 'priority', q.priority, 'type_name', 'Functional', 'creator_username', 'admin',
        'assignee_username', NULL, 'revision', 1, 'created_at', q.created_at, 'updated_at', q.updated_at),
      q.creator_id, 'bench', q.created_at
    FROM requirements q JOIN user_stories s ON s.id = q.user_story_id`);
});
console.log(`Seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

const target = `REQ-${String(Math.floor(ROWS / 2)).padStart(3, "0")}`;
const targetEpic = `EP-${String(Math.floor(epics / 2)).padStart(3, "0")}`;
const bearer = { authorization: `Bearer ${boot.token}`, "content-type": "application/json" };
let id = 1;
const rpc = async (name: string, args: Record<string, unknown>) => {
  const res = await app.request("/api/v1/mcp", {
    method: "POST",
    headers: bearer,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: id++,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"isError":true'))
    throw new Error(`${name}: ${res.status} ${text.slice(0, 300)}`);
};
// A few changes on the target so its page has history, comments and a verdict to show.
await rpc("update_requirement", { requirement_id: target, description: "Changed once, **markdown** kept." });
await rpc("add_comment", { id: target, text: "Looks right" });

// Sign in as a browser would, and keep the session cookie.
const form = await app.request("/signin");
const presign = /rqx_presign=([^;]+)/.exec(form.headers.get("set-cookie") ?? "")?.[1] as string;
const signed = await app.request("/signin", {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", cookie: `rqx_presign=${presign}` },
  body: new URLSearchParams({ _csrf: presign, token: boot.token, next: "/" }).toString(),
});
const session = /rqx_session=([^;]+)/.exec(signed.headers.get("set-cookie") ?? "")?.[1];
if (!session) throw new Error(`sign-in failed: ${signed.status}`);
const cookie = { cookie: `rqx_session=${session}` };
const page = async (path: string) => {
  const res = await app.request(path, { headers: cookie });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return text.length;
};

interface Case {
  name: string;
  page: () => Promise<unknown>;
  main: () => Promise<unknown>;
  same: () => Promise<unknown>;
  targetMs: number;
}
const cases: Case[] = [
  {
    name: `(a) requirement page ${target}`,
    page: () => page(`/requirements/${target}`),
    main: () => rpc("get_requirement", { requirement_id: target }),
    same: async () => {
      await rpc("get_requirement", { requirement_id: target });
      await rpc("get_requirement_traces", { requirement_id: target });
      await rpc("get_history", { id: target, limit: 100 });
      await rpc("list_comments", { id: target });
      await rpc("list_verdicts", { id: target });
    },
    targetMs: 10,
  },
  {
    name: `(b) tree page of ${targetEpic} (${PER_EPIC} requirements)`,
    page: () => page(`/tree?epic=${targetEpic}`),
    main: () => rpc("epic_hierarchy", { epic_id: targetEpic, limit: 1000 }),
    same: async () => {
      await rpc("list_epics", { limit: 100 });
      await rpc("list_requirement_types", {});
      await rpc("epic_hierarchy", { epic_id: targetEpic, limit: 1000 });
    },
    targetMs: 50,
  },
];

const rows = [];
for (const c of cases) {
  for (let w = 0; w < 20; w++) {
    await c.page();
    await c.main();
    await c.same();
  }
  const times = { page: [] as number[], main: [] as number[], same: [] as number[] };
  for (let k = 0; k < SAMPLES; k++) {
    for (const kind of ["page", "main", "same"] as const) {
      const t0 = performance.now();
      await c[kind]();
      times[kind].push(performance.now() - t0);
    }
  }
  for (const list of Object.values(times)) list.sort((a, b) => a - b);
  const p50 = percentile(times.page, 50);
  const main = percentile(times.main, 50);
  const same = percentile(times.same, 50);
  rows.push({
    case: c.name,
    "page p50 ms": Number(p50.toFixed(2)),
    "page p95 ms": Number(percentile(times.page, 95).toFixed(2)),
    "JSON-RPC main call p50 ms": Number(main.toFixed(2)),
    "JSON-RPC same data p50 ms": Number(same.toFixed(2)),
    "÷ main call": Number((p50 / main).toFixed(2)),
    "÷ same data": Number((p50 / same).toFixed(2)),
    target: `p50 ≤ ${c.targetMs} ms, ≤ 3×`,
    met: p50 <= c.targetMs && p50 / same <= 3,
  });
}
console.table(rows);
const load = loadavg()[0]?.toFixed(2);
const stamp = new Date().toISOString();
mkdirSync("bench/results", { recursive: true });
writeFileSync(
  "bench/results/web-pages.json",
  `${JSON.stringify({ run: stamp, node: process.version, load, rows: ROWS, samples: SAMPLES, results: rows }, null, 2)}\n`,
);
const keys = Object.keys(rows[0] ?? {});
writeFileSync(
  "bench/results/web-pages.md",
  `# Web app page times

Run ${stamp} on Node ${process.version} (1-minute load average ${load}), embedded libSQL file with
${ROWS.toLocaleString("en")} requirements, ${SAMPLES} samples per measure, alternating page / JSON-RPC. Server time
through the whole app (\`app.request\`): session, guards, registry tools, audit, HTML. "Main call" is the one
JSON-RPC read of the page's subject; "same data" is every tool call the page makes, as JSON-RPC, one after another.

| ${keys.join(" | ")} |
|${keys.map(() => "---").join("|")}|
${rows
  .map(
    (r) =>
      `| ${Object.values(r)
        .map((v) => (v === true ? "yes" : v === false ? "no" : String(v)))
        .join(" | ")} |`,
  )
  .join("\n")}
`,
);
await database.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
