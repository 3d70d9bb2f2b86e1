/**
 * Issue 15: "a 100 MB ReqIF import grows server memory by less than 200 MB" — measured from a real server
 * process (the `npm start` bundle, dist/server/node.js, on its own libSQL file): its resident set
 * (/proc/<pid>/status VmRSS) sampled every 25 ms while `POST /api/v1/import?format=reqif&dry_run=false`
 * applies a generated ReqIF file of `mb` MB, against the idle server's after start-up and one request.
 * Used by bench/reqif.ts (case d).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  MB_PER_EPIC,
  REQUIREMENTS_PER_STORY,
  residentOf,
  STORIES_PER_EPIC,
  samplePeak,
  writeReqif,
} from "../test/helpers/reqif-memory.js";

export { writeReqif };

export interface ServerImportMemory {
  fileBytes: number;
  requirements: number;
  created: number;
  idleRss: number;
  peakRss: number;
  /** Peak resident set over the idle one. */
  growth: number;
  /** The same for anonymous memory only (mapped database pages excluded). */
  anonGrowth: number;
  ms: number;
  /** Growth over idle, once a second: `12s +62` (MB). */
  timeline: string[];
}

/** Generates the file, starts the server, imports, reports; everything it made is removed. */
export async function measureServerImport(mb: number): Promise<ServerImportMemory> {
  const dir = mkdtempSync(join(tmpdir(), "reqlix-bench-reqif-server-"));
  const root = join(import.meta.dirname, "..");
  try {
    const epics = Math.max(1, Math.ceil(mb / MB_PER_EPIC));
    const file = join(dir, "big.reqif");
    await writeReqif(file, epics);
    const fileBytes = statSync(file).size;
    const build = spawnSync(process.execPath, ["scripts/build-server.mjs"], { cwd: root, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`build-server failed: ${build.stderr}`);
    const token = `rqx_${"b".repeat(40)}`;
    const server = spawn(process.execPath, ["dist/server/node.js"], {
      cwd: root,
      env: {
        ...process.env,
        HOST: "127.0.0.1",
        PORT: "0",
        REQLIX_LOG_LEVEL: "warn",
        REQLIX_DB_URL: `file:${join(dir, "server.db")}`,
        REQLIX_BOOTSTRAP_TOKEN: token,
        // The body is read as the parser consumes it: under load, 100 MB take longer than the default 30 s
        // allowed to receive a request (which then cuts the connection).
        REQLIX_REQUEST_TIMEOUT_MS: "900000",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    server.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
    });
    server.stderr?.on("data", (b: Buffer) => {
      out += b.toString();
    });
    try {
      const deadline = Date.now() + 60_000;
      let url: string | undefined;
      while (!url) {
        url = /listening on (http:\/\/[^\s]+)/.exec(out)?.[1];
        if (server.exitCode !== null || Date.now() > deadline)
          throw new Error(`server did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const pid = server.pid as number;
      const health = await fetch(`${url}/healthz`);
      await health.text();
      await new Promise((r) => setTimeout(r, 1000));
      const idle = residentOf(pid);
      const sampler = samplePeak(pid);
      const timeline: string[] = [];
      const t00 = performance.now();
      const tick = setInterval(() => {
        const r = residentOf(pid);
        timeline.push(
          `${((performance.now() - t00) / 1000).toFixed(0)}s +${((r.rss - idle.rss) / 1048576).toFixed(0)}`,
        );
      }, 1000);
      const body = readFileSync(file);
      const t0 = performance.now();
      const res = await fetch(`${url}/api/v1/import?format=reqif&dry_run=false`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/xml",
          "content-disposition": 'attachment; filename="big.reqif"',
        },
        body,
      });
      const answer = await res.text();
      if (res.status !== 200 || answer === "")
        throw new Error(`import: ${res.status} ${answer.slice(0, 500)}\nserver output:\n${out.slice(-2000)}`);
      const report = JSON.parse(answer) as { counts?: { create: number } };
      const ms = performance.now() - t0;
      const peak = sampler.stop();
      clearInterval(tick);
      if (res.status !== 200)
        throw new Error(`import: ${res.status} ${JSON.stringify(report).slice(0, 500)}`);
      return {
        fileBytes,
        requirements: epics * STORIES_PER_EPIC * REQUIREMENTS_PER_STORY,
        created: report.counts?.create ?? 0,
        idleRss: idle.rss,
        peakRss: peak.rss,
        growth: peak.rss - idle.rss,
        anonGrowth: peak.anon - idle.anon,
        ms,
        timeline,
      };
    } finally {
      server.kill("SIGTERM");
      await new Promise((r) => server.once("close", r));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main || process.argv[1]?.endsWith("reqif-server-memory.ts")) {
  const mbArg = process.argv.indexOf("--mb");
  const mb = mbArg === -1 ? 100 : Number(process.argv[mbArg + 1]);
  const r = await measureServerImport(mb);
  const MB = 1024 * 1024;
  const line = `${(r.fileBytes / MB).toFixed(1)} MB, ${r.requirements} requirements, ${r.created} created in ${Math.round(r.ms)} ms: idle ${(r.idleRss / MB).toFixed(0)} MB, peak ${(r.peakRss / MB).toFixed(0)} MB, growth ${(r.growth / MB).toFixed(0)} MB (anonymous ${(r.anonGrowth / MB).toFixed(0)} MB)`;
  console.log(line);
  if (mb === 100) {
    const load = Math.round((loadavg()[0] ?? 0) * 100) / 100;
    const growthMb = Math.round(r.growth / MB);
    const md = `# ReqIF import of a 100 MB file: server memory

Run ${new Date().toISOString()} on Node ${process.version} (1-minute load average ${load}): the \`npm start\` bundle in its own process, POST /api/v1/import?format=reqif&dry_run=false of a generated file, resident set sampled every 25 ms from outside over the idle server's.

${line}

Target: growth < 200 MB — ${growthMb < 200 ? "met" : "NOT met"} (${growthMb} MB).

Growth over idle, once a second (MB): ${r.timeline.join(" ")}
`;
    mkdirSync(join(import.meta.dirname, "results"), { recursive: true });
    const { timeline: _t, ...figures } = r;
    writeFileSync(
      join(import.meta.dirname, "results", "reqif-server-memory.json"),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, load_average_1m: load, ...figures, growth_mb: growthMb, target_mb: 200, pass: growthMb < 200 }, null, 2)}\n`,
    );
    writeFileSync(join(import.meta.dirname, "results", "reqif-server-memory.md"), md);
  }
}
