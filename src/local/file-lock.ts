/**
 * Cross-process lock for one file that several companion processes may edit (DESIGN: concurrent writers
 * on one file are serialized, so no acknowledged write is lost): a reqlix category, an ixchel entity.
 *
 * The lock is a directory next to the edited file (`general.md.lock/`) holding one holder file
 * (`holder-<token>.json`: pid, host, start time, and on Linux the process's identity). The holder refreshes
 * that file's mtime every `staleMs / 4` while it works; a holder file not refreshed for `staleMs` (10 s)
 * belongs to a holder that died, whatever pid or host it names (pids are reused after a container restart),
 * and is taken over — unless the holder is provably alive: same host, same pid namespace, and its pid still
 * runs the process that started at the recorded boot tick (`/proc/<pid>/stat`). A holder stopped or starved
 * of CPU past `staleMs` (load 15 on 2 cores, SIGSTOP, a debugger) misses heartbeats but is alive and resumes
 * mid-write; taking its lock by age let both write and lost an acknowledged edit. Pid plus start tick cannot
 * be mistaken for a reused pid, so a dead holder is still taken over by age. Elsewhere (another host or
 * container, no /proc) only the heartbeat counts, and a holder checks it still holds the lock right before
 * it commits (`HeldLock.assertHeld`), so a taken-over holder reports an error instead of acknowledging.
 *
 * Why these steps make takeover atomic (no two processes ever both hold the lock):
 * - Acquire: build the directory privately (`.general.md.lock-<token>.staging/` with the holder file in it)
 *   and rename it onto the lock path. rename(2) of a directory succeeds only when the target is absent or
 *   an *empty* directory, so of several racing renames exactly one lands and the others get ENOTEMPTY.
 * - Take over: unlink the stale holder file *by its name* (which carries the holder's token), then rmdir
 *   the lock. Unlinking a name that is already gone fails, and rmdir of a directory that someone has
 *   meanwhile renamed a fresh lock onto fails with ENOTEMPTY, so a slow taker can never remove a fresh lock.
 * - Release: the same two steps for one's own holder file.
 * An own-made lock (mkdir-only, like proper-lockfile's) would not do: rmdir-then-mkdir lets a second taker
 * remove the first taker's still-empty fresh directory.
 *
 * Lock *files* left by older companions (O_EXCL files with the owner's pid) are honoured the same way: taken
 * over once their mtime is `staleMs` old. Within one process, callers queue on a promise chain first, so the
 * lock is only contended between processes.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import {
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { DomainError } from "../core/errors.js";
import { identityOf, OWN_IDENTITY } from "./process-identity.js";

export interface LockOptions {
  /** Give up waiting for a live holder after this long (ms). Default 30 s. */
  timeoutMs?: number;
  /** A lock whose holder has not refreshed it for this long is taken over (ms). Default 10 s. */
  staleMs?: number;
  signal?: AbortSignal;
}

export const DEFAULT_STALE_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 30_000;
const HOLDER_PREFIX = "holder-";

interface Holder {
  pid: number;
  host: string;
  since: string;
  /** `<pid namespace>:<start tick>` on Linux (see `identityOf`); absent elsewhere and in older companions. */
  identity?: string;
}

/** The lock a `withFileLock` callback holds. */
export interface HeldLock {
  /** Throws (nothing may be written) when another process took the lock over; call right before committing. */
  assertHeld(): void;
}

/** What the lock path holds right now. */
type Seen =
  | { kind: "none" }
  | { kind: "empty" } // a taker or releaser is between its unlink and rmdir, or died there
  | { kind: "holder"; name: string; ageMs: number; holder: Holder | undefined }
  | { kind: "legacy"; ino: number; ageMs: number; holder: Holder | undefined };

const HOST = hostname();

/** True only when the holder provably still runs here (see the file comment); otherwise the heartbeat decides. */
function holderAlive(holder: Holder | undefined): boolean {
  if (!holder?.identity || !OWN_IDENTITY || holder.host !== HOST) return false;
  // The identity names our own pid namespace: a holder in another one (a container that shares the host
  // name) never matches, since its pid means another process here.
  return identityOf(holder.pid) === holder.identity;
}
const queues = new Map<string, Promise<unknown>>();

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    const h = JSON.parse(await readFile(path, "utf8")) as Holder;
    return typeof h?.pid === "number" ? h : undefined;
  } catch {
    return undefined;
  }
}

async function look(lockPath: string): Promise<Seen> {
  let names: string[];
  try {
    names = await readdir(lockPath);
  } catch (error) {
    if (code(error) === "ENOENT") return { kind: "none" };
    if (code(error) !== "ENOTDIR") throw error;
    try {
      const info = await stat(lockPath);
      return {
        kind: "legacy",
        ino: info.ino,
        ageMs: Date.now() - info.mtimeMs,
        holder: await readHolder(lockPath),
      };
    } catch (e) {
      if (code(e) === "ENOENT") return { kind: "none" };
      throw e;
    }
  }
  const name = names.find((n) => n.startsWith(HOLDER_PREFIX));
  if (!name) return { kind: "empty" };
  try {
    const info = await stat(join(lockPath, name));
    return {
      kind: "holder",
      name,
      ageMs: Date.now() - info.mtimeMs,
      holder: await readHolder(join(lockPath, name)),
    };
  } catch (error) {
    if (code(error) === "ENOENT") return { kind: "empty" };
    throw error;
  }
}

/** Removes a lock directory if (and only if) it is empty: fails harmlessly when a fresh lock landed on it. */
async function removeEmpty(lockPath: string): Promise<void> {
  await rmdir(lockPath).catch((error) => {
    if (!["ENOENT", "ENOTEMPTY", "EEXIST", "ENOTDIR"].includes(code(error) ?? "")) throw error;
  });
}

function stagingPrefix(lockPath: string): string {
  return `.${basename(lockPath)}-`;
}

/** Staging folders of writers killed between mkdir and rename: older than `staleMs`, so surely dead. */
async function removeDeadStaging(lockPath: string, staleMs: number): Promise<void> {
  const folder = dirname(lockPath);
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(stagingPrefix(lockPath)) || !name.endsWith(".staging")) continue;
    const info = await stat(join(folder, name)).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > staleMs) {
      await rm(join(folder, name), { recursive: true, force: true });
    }
  }
}

/** Takes a stale lock away; racing takers are harmless (see the file comment). */
async function takeOver(lockPath: string, seen: Seen, staleMs: number): Promise<void> {
  if (seen.kind === "holder") {
    await unlink(join(lockPath, seen.name)).catch((error) => {
      if (code(error) !== "ENOENT") throw error;
    });
    await removeEmpty(lockPath);
    await removeDeadStaging(lockPath, staleMs);
  } else if (seen.kind === "legacy") {
    // Old companions wrote a plain file; only they can recreate one, so re-check it is the same file.
    const now = await stat(lockPath).catch(() => undefined);
    if (now?.isFile() && now.ino === seen.ino) await unlink(lockPath).catch(() => {});
  }
}

interface Held {
  holderPath: string;
  timer: NodeJS.Timeout;
}

/** One attempt to install our lock; `undefined` when the path was taken. */
async function tryInstall(lockPath: string, token: string, staleMs: number): Promise<Held | undefined> {
  const staging = join(dirname(lockPath), `${stagingPrefix(lockPath)}${token}.staging`);
  const name = `${HOLDER_PREFIX}${token}.json`;
  const holder: Holder = {
    pid: process.pid,
    host: HOST,
    since: new Date().toISOString(),
    ...(OWN_IDENTITY ? { identity: OWN_IDENTITY } : {}),
  };
  await mkdir(staging);
  try {
    await writeFile(join(staging, name), JSON.stringify(holder), "utf8");
    await rename(staging, lockPath);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (["ENOTEMPTY", "EEXIST", "ENOTDIR", "EISDIR"].includes(code(error) ?? "")) return undefined;
    throw error;
  }
  const holderPath = join(lockPath, name);
  // The heartbeat: a holder that stops refreshing (it died) is taken over after staleMs.
  const timer = setInterval(
    () => {
      const now = new Date();
      utimes(holderPath, now, now).catch((error) => {
        // Gone: taken over after we stalled past staleMs. Anything else is retried on the next beat.
        if (code(error) === "ENOENT") clearInterval(timer);
      });
    },
    Math.max(50, Math.floor(staleMs / 4)),
  );
  timer.unref();
  return { holderPath, timer };
}

function describeHolder(seen: Seen): string {
  const h = seen.kind === "holder" || seen.kind === "legacy" ? seen.holder : undefined;
  return h ? `process ${h.pid} on ${h.host} (since ${h.since})` : "another process";
}

async function acquire(lockPath: string, options: LockOptions): Promise<Held> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const token = `${process.pid}-${randomBytes(6).toString("hex")}`;
  const deadline = Date.now() + timeoutMs;
  let wait = 2;
  for (;;) {
    options.signal?.throwIfAborted();
    const seen = await look(lockPath);
    if (seen.kind === "none" || seen.kind === "empty") {
      const held = await tryInstall(lockPath, token, staleMs);
      if (held) {
        // A writer killed between its mkdir and its rename leaves a staging folder and no lock: nothing is
        // ever taken over for it, so each holder sweeps those old enough to be dead (best effort).
        await removeDeadStaging(lockPath, staleMs).catch(() => {});
        return held;
      }
      continue;
    }
    if (seen.ageMs > staleMs && !holderAlive(seen.holder)) {
      await takeOver(lockPath, seen, staleMs);
      continue;
    }
    if (Date.now() > deadline) {
      throw new DomainError(
        "unavailable",
        `Busy: ${lockPath} is held by ${describeHolder(seen)}, which is still working (it refreshed the lock ${Math.round(seen.ageMs / 100) / 10} s ago${seen.ageMs > staleMs ? ", and its process still runs: it may be stopped or starved of CPU" : ""}); waited ${Math.round(timeoutMs / 1000)} s. Nothing was written: retry shortly. A holder that dies is taken over automatically once its lock is ${Math.round(staleMs / 1000)} s old.`,
      );
    }
    await sleep(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
}

async function release(lockPath: string, held: Held): Promise<void> {
  clearInterval(held.timer);
  try {
    await unlink(held.holderPath);
  } catch {
    return; // taken over while we held it (we stalled past staleMs): the lock is someone else's now
  }
  await removeEmpty(lockPath);
}

/** Runs `fn` holding the lock `lockPath` (same-process callers queue first). */
export async function withFileLock<T>(
  lockPath: string,
  fn: (lock: HeldLock) => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const previous = queues.get(lockPath) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((r) => {
    done = r;
  });
  const tail = previous.then(() => mine);
  queues.set(lockPath, tail);
  try {
    await previous;
    const held = await acquire(lockPath, options);
    try {
      return await fn({
        assertHeld() {
          // Our holder file is gone only when a taker removed it (we missed heartbeats for staleMs).
          if (!existsSync(held.holderPath)) {
            throw new DomainError(
              "unavailable",
              `Lost the lock ${lockPath}: this process stalled for longer than ${Math.round((options.staleMs ?? DEFAULT_STALE_MS) / 1000)} s and another process took the lock over. Nothing was written: retry.`,
            );
          }
        },
      });
    } finally {
      await release(lockPath, held);
    }
  } finally {
    done();
    if (queues.get(lockPath) === tail) queues.delete(lockPath);
  }
}
