import { spawnSync } from "node:child_process";
import { readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withFileLock } from "../../src/local/file-lock.js";
import { tempDir } from "../helpers/companion.js";

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir("reqlix-lock-");
});
afterEach(async () => {
  await dir.cleanup();
});

function deadPid(): number {
  // A process that has exited: its pid is free (and not reused within this test).
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

describe("withFileLock", () => {
  it("serializes callers and removes the lock afterwards", async () => {
    const lock = join(dir.path, "general.md.lock");
    const order: string[] = [];
    const slow = (name: string) =>
      withFileLock(lock, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 20));
        order.push(`${name}-`);
      });
    await Promise.all([slow("a"), slow("b"), slow("c")]);
    expect(order).toEqual(["a+", "a-", "b+", "b-", "c+", "c-"]);
    expect(await readdir(dir.path)).toEqual([]);
  });

  it("releases the lock when the work throws", async () => {
    const lock = join(dir.path, "x.lock");
    await expect(withFileLock(lock, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await withFileLock(lock, async () => "again")).toBe("again");
  });

  it("breaks a lock left by a dead process", async () => {
    const lock = join(dir.path, "general.md.lock");
    await writeFile(lock, JSON.stringify({ pid: deadPid(), host: hostname(), since: "then", token: "t" }));
    const started = Date.now();
    expect(await withFileLock(lock, async () => "ran")).toBe("ran");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("breaks a lock older than staleMs even when its owner looks alive", async () => {
    const lock = join(dir.path, "general.md.lock");
    await writeFile(
      lock,
      JSON.stringify({ pid: process.ppid, host: "elsewhere", since: "then", token: "t" }),
    );
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, async () => "ran", { staleMs: 30_000 })).toBe("ran");
  });

  it("breaks a half-written lock (no owner) after two seconds", async () => {
    const lock = join(dir.path, "general.md.lock");
    await writeFile(lock, "");
    const old = new Date(Date.now() - 5_000);
    await utimes(lock, old, old);
    expect(await withFileLock(lock, async () => "ran")).toBe("ran");
  });

  it("waits for a live owner and then gives up with a message naming the lock file", async () => {
    const lock = join(dir.path, "general.md.lock");
    await writeFile(lock, JSON.stringify({ pid: process.ppid, host: hostname(), since: "now", token: "t" }));
    await expect(withFileLock(lock, async () => "never", { timeoutMs: 200 })).rejects.toThrow(
      new RegExp(`locked by process ${process.ppid}.*general\\.md\\.lock.*delete that lock file`),
    );
    expect(JSON.parse(await readFile(lock, "utf8")).pid).toBe(process.ppid);
  });
});
