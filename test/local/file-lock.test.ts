import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, readlink, unlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withFileLock } from "../../src/local/file-lock.js";
import { tempDir } from "../helpers/companion.js";

const LOCK_USER = resolve(import.meta.dirname, "fixtures/lock-user.ts");

let dir: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  dir = await tempDir("reqlix-lock-");
});
afterEach(async () => {
  await dir.cleanup();
});

interface Run {
  pid: number;
  out: () => string;
  acquired: Promise<void>;
  exit: Promise<number>;
}

/** Starts test/local/fixtures/lock-user.ts as a real process. */
function lockUser(args: {
  lock: string;
  markers: string;
  id: string;
  holdMs: number;
  startAt?: number;
  staleMs?: number;
  timeoutMs?: number;
}): Run {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      LOCK_USER,
      args.lock,
      args.markers,
      args.id,
      String(args.holdMs),
      String(args.startAt ?? 0),
      args.staleMs === undefined ? "" : String(args.staleMs),
      args.timeoutMs === undefined ? "" : String(args.timeoutMs),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  let onAcquired!: () => void;
  const acquired = new Promise<void>((r) => {
    onAcquired = r;
  });
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString("utf8");
    if (out.includes("acquired")) onAcquired();
  });
  child.stderr.on("data", (c: Buffer) => {
    err += c.toString("utf8");
  });
  const exit = new Promise<number>((r) => child.on("exit", (code) => r(code ?? -1)));
  return { pid: child.pid as number, out: () => out + err, acquired, exit };
}

/** A lock file as older companions wrote it (O_EXCL file with the owner's pid), just written. */
async function legacyLock(path: string, pid: number, host: string): Promise<void> {
  await writeFile(path, JSON.stringify({ pid, host, since: new Date().toISOString(), token: "t" }));
}

/** A lock directory as this companion writes it, whose holder stopped refreshing it `ageMs` ago. */
async function holderLock(path: string, pid: number, host: string, ageMs = 0): Promise<void> {
  await mkdir(path);
  const file = join(path, "holder-dead-1.json");
  await writeFile(file, JSON.stringify({ pid, host, since: new Date().toISOString() }));
  const then = new Date(Date.now() - ageMs);
  await utimes(file, then, then);
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
    expect(await readdir(dir.path)).toEqual([]);
  });

  it("reuses at once an empty lock directory left by a taker that died between its two steps", async () => {
    const lock = join(dir.path, "general.md.lock");
    await mkdir(lock);
    const started = Date.now();
    expect(await withFileLock(lock, async () => "ran")).toBe("ran");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("takes over, within ~10 s by default, a lock nobody refreshes whatever pid and host it names", async () => {
    // Hardening #9: pid reuse after a container restart made these wait 30 s and fail for 10 minutes.
    const cases: [string, () => Promise<void>][] = [
      ["own pid", () => legacyLock(join(dir.path, "a.lock"), process.pid, hostname())],
      ["pid 1", () => legacyLock(join(dir.path, "b.lock"), 1, hostname())],
      ["live pid, other host", () => legacyLock(join(dir.path, "c.lock"), process.ppid, "elsewhere")],
      ["holder dir, own pid", () => holderLock(join(dir.path, "d.lock"), process.pid, hostname())],
    ];
    const names = ["a.lock", "b.lock", "c.lock", "d.lock"];
    await Promise.all(cases.map(([, make]) => make()));
    const started = Date.now();
    const took = await Promise.all(
      names.map(async (name) => {
        await withFileLock(join(dir.path, name), async () => {});
        return Date.now() - started;
      }),
    );
    for (const ms of took) expect(ms).toBeLessThan(10_000 + 3_000);
    expect(await readdir(dir.path)).toEqual([]);
  }, 20_000);

  it("takes over by age a holder whose pid now runs another process (pid reused: other start tick)", async () => {
    const lock = join(dir.path, "general.md.lock");
    await mkdir(lock);
    const file = join(lock, "holder-reused-1.json");
    const ns = await readlink("/proc/self/ns/pid");
    // The parent process runs, but not since boot tick 1: this identity is a dead holder's.
    await writeFile(
      file,
      JSON.stringify({ pid: process.ppid, host: hostname(), since: "then", identity: `${ns}:1` }),
    );
    const then = new Date(Date.now() - 1_000);
    await utimes(file, then, then);
    expect(await withFileLock(lock, async () => "ran", { staleMs: 500, timeoutMs: 3_000 })).toBe("ran");
  });

  it("tells a holder whose lock was taken over (a taker that could not see it is alive) not to commit", async () => {
    const lock = join(dir.path, "general.md.lock");
    const outcome = withFileLock(lock, async (held) => {
      held.assertHeld(); // still ours
      // What a taker on another host does once our heartbeat is staleMs old: remove our holder file.
      const [mine] = await readdir(lock);
      await unlink(join(lock, mine as string));
      held.assertHeld();
      return "committed";
    });
    await expect(outcome).rejects.toThrow(
      /^Lost the lock .*general\.md\.lock: .*Nothing was written: retry\./,
    );
  });

  it("takes over a holder directory whose holder stopped refreshing it staleMs ago", async () => {
    const lock = join(dir.path, "general.md.lock");
    await holderLock(lock, process.pid, hostname(), 60_000);
    const started = Date.now();
    expect(await withFileLock(lock, async () => "ran", { staleMs: 30_000 })).toBe("ran");
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe("withFileLock between real processes", () => {
  it("never takes over a holder that keeps its lock fresh, even past staleMs: the waiter gets BUSY, nothing is lost", async () => {
    const lock = join(dir.path, "general.md.lock");
    const holder = lockUser({ lock, markers: dir.path, id: "holder", holdMs: 3_000, staleMs: 500 });
    await holder.acquired;
    const started = Date.now();
    const waiter = withFileLock(lock, async () => "never", { staleMs: 500, timeoutMs: 1_500 });
    await expect(waiter).rejects.toThrow(
      /^Busy: .*general\.md\.lock is held by process \d+ on .*still working/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
    expect(await holder.exit).toBe(0);
    expect(holder.out()).toContain("done");
    expect(await readFile(join(dir.path, "log"), "utf8")).toBe("holder\n");
    expect(await withFileLock(lock, async () => "after", { staleMs: 500 })).toBe("after");
  }, 20_000);

  it("never takes over a live holder on this host that is stopped (SIGSTOP) past staleMs: no overlap, nothing lost", async () => {
    // A holder starved of CPU (or stopped) cannot refresh its heartbeat; taking its lock by age alone let
    // two processes write the same file at once and one acknowledged write was lost.
    const lock = join(dir.path, "general.md.lock");
    const holder = lockUser({ lock, markers: dir.path, id: "stopped", holdMs: 1_000, staleMs: 300 });
    await holder.acquired;
    // Stop it inside its critical section: after it made `inside`, before it removes it.
    while (!existsSync(join(dir.path, "inside"))) await new Promise((r) => setTimeout(r, 5));
    const pid = holder.pid;
    process.kill(pid, "SIGSTOP");
    try {
      const waiter = withFileLock(
        lock,
        async () => {
          // The holder is inside its critical section (it made `inside` and is stopped before removing it).
          const overlap = await readFile(join(dir.path, "inside"), "utf8").then(
            () => true,
            () => false,
          );
          return overlap ? "OVERLAP" : "alone";
        },
        { staleMs: 300, timeoutMs: 1_500 },
      );
      await expect(waiter).rejects.toThrow(/^Busy: .*held by process \d+/);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(await holder.exit).toBe(0);
    expect(holder.out()).toContain("done");
    expect(await readFile(join(dir.path, "log"), "utf8")).toBe("stopped\n");
    expect(await withFileLock(lock, async () => "after", { staleMs: 300 })).toBe("after");
  }, 20_000);

  it("with the default 10 s staleness, a holder working for 13 s keeps its lock and a 11 s waiter gets BUSY", async () => {
    const lock = join(dir.path, "general.md.lock");
    const holder = lockUser({ lock, markers: dir.path, id: "long", holdMs: 13_000 });
    await holder.acquired;
    await expect(withFileLock(lock, async () => "never", { timeoutMs: 11_000 })).rejects.toThrow(/^Busy: /);
    expect(await holder.exit).toBe(0);
    expect(await readFile(join(dir.path, "log"), "utf8")).toBe("long\n");
  }, 30_000);

  for (const kind of ["holder directory", "legacy lock file"] as const) {
    it(`lets exactly one of eight processes that find the same stale ${kind} take it at a time`, async () => {
      const lock = join(dir.path, "general.md.lock");
      if (kind === "holder directory") await holderLock(lock, 1, "elsewhere", 5_000);
      else {
        await legacyLock(lock, 1, "elsewhere");
        const then = new Date(Date.now() - 5_000);
        await utimes(lock, then, then);
      }
      const startAt = Date.now() + 4_000; // every process is started and waiting by then
      const runs = Array.from({ length: 8 }, (_, i) =>
        lockUser({ lock, markers: dir.path, id: `p${i}`, holdMs: 60, startAt, staleMs: 1_000 }),
      );
      const codes = await Promise.all(runs.map((r) => r.exit));
      const outs = runs.map((r) => r.out());
      expect(outs.join("")).not.toContain("OVERLAP");
      expect(codes).toEqual(Array(8).fill(0));
      const log = (await readFile(join(dir.path, "log"), "utf8")).trim().split("\n").sort();
      expect(log).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}`).sort());
      expect((await readdir(dir.path)).sort()).toEqual(["log"]);
    }, 30_000);
  }
});

describe("staging folders of writers killed before their rename", () => {
  it("are swept by the next holder once older than the stale age; a fresh one (a live writer's) stays", async () => {
    const dir = await tempDir("lock-staging-");
    try {
      const lock = join(dir.path, "general.md.lock");
      const dead = join(dir.path, ".general.md.lock-999-dead.staging");
      const live = join(dir.path, ".general.md.lock-998-live.staging");
      await mkdir(dead);
      await writeFile(join(dead, "holder-999-dead.json"), "{}");
      await mkdir(live);
      const old = new Date(Date.now() - 60_000);
      await utimes(dead, old, old);
      await withFileLock(lock, async () => {}, { staleMs: 10_000 });
      expect((await readdir(dir.path)).sort()).toEqual([".general.md.lock-998-live.staging"]);
    } finally {
      await dir.cleanup();
    }
  });
});
