/**
 * A 100 MB ReqIF import grows memory by less than 200 MB (issue 15): the file is parsed as it streams, no
 * DOM. Measured on a child process (reqif-memory-child.ts) with a V8 heap capped at 256 MB, which a DOM of
 * the file (or the file as one string) could not fit in, as resident-set growth over the idle child,
 * sampled from outside as bench/reqif-server-memory.ts samples the server (test/helpers/reqif-memory.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  REQUIREMENTS_PER_STORY,
  residentOf,
  STORIES_PER_EPIC,
  samplePeak,
  writeReqif,
} from "../../helpers/reqif-memory.js";

const dir = mkdtempSync(join(tmpdir(), "reqlix-reqif-memory-"));
afterAll(() => {
  if (!process.env.KEEP_REQIF) rmSync(dir, { recursive: true, force: true });
});

const MB = 1024 * 1024;

describe("ReqIF import memory", () => {
  test("a 100 MB file grows the reading process by less than 200 MB", async () => {
    const file = join(dir, "big.reqif");
    await writeReqif(file, 46);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(100 * MB);
    const child = spawn(
      process.execPath,
      [
        "--max-old-space-size=256",
        "--expose-gc",
        "--import",
        "tsx",
        resolve(import.meta.dirname, "reqif-memory-child.ts"),
        file,
      ],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on("data", (b: Buffer) => {
      err += b.toString();
    });
    const exited = new Promise<number | null>((done) => child.once("close", (code) => done(code)));
    while (!out.startsWith("ready\n")) {
      if (child.exitCode !== null) throw new Error(`child failed: ${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const pid = child.pid as number;
    const idle = residentOf(pid);
    const sampler = samplePeak(pid);
    child.stdin.write("go\n");
    const code = await exited;
    const peak = sampler.stop();
    expect(code, err).toBe(0);
    const result = JSON.parse(out.slice("ready\n".length)) as { requirements: number; relationships: number };
    expect(result.requirements).toBe(46 * STORIES_PER_EPIC * REQUIREMENTS_PER_STORY);
    expect(result.relationships).toBe(Math.ceil((result.requirements - 1) / 10));
    const growth = peak.rss - idle.rss;
    console.log(
      `ReqIF import of ${(size / MB).toFixed(0)} MB: resident memory grew by ${(growth / MB).toFixed(0)} MB`,
    );
    expect(growth).toBeLessThan(200 * MB);
  }, 600_000);
});
