/**
 * Cross-process lock for one file that several companion processes may edit (DESIGN: concurrent writers
 * on one file are serialized, so no acknowledged write is lost): a reqlix category, an ixchel entity.
 *
 * The lock is a file created with O_CREAT|O_EXCL next to the edited file (`general.md.lock`) holding the
 * owner's pid, host and start time. A lock is stale when its owner is a dead process on this host, or
 * when it is older than `staleMs` (an owner on another host, or a reused pid). Breaking a stale lock is
 * itself serialized through `<lock>.break` (also O_EXCL), and the lock is re-read under it, so two
 * waiters never both break it or remove a fresh lock taken in between. Within one process, callers queue
 * on a promise chain first, so the file lock is only contended between processes.
 */
import { constants } from "node:fs";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { DomainError } from "../core/errors.js";

export interface LockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this is stale whatever its pid says (ms). */
  staleMs?: number;
  signal?: AbortSignal;
}

interface Owner {
  pid: number;
  host: string;
  since: string;
  token: string;
}

const HOST = hostname();
const queues = new Map<string, Promise<unknown>>();

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  try {
    const fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      await fh.writeFile(content, "utf8");
    } finally {
      await fh.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

async function readOwner(
  path: string,
): Promise<{ owner: Owner | undefined; mtimeMs: number; ino: number } | undefined> {
  try {
    const info = await stat(path);
    let owner: Owner | undefined;
    try {
      owner = JSON.parse(await readFile(path, "utf8")) as Owner;
      if (typeof owner?.pid !== "number") owner = undefined;
    } catch {
      owner = undefined; // being written, or left half-written by a killed process
    }
    return { owner, mtimeMs: info.mtimeMs, ino: info.ino };
  } catch {
    return undefined; // gone
  }
}

function isStale(info: { owner: Owner | undefined; mtimeMs: number }, staleMs: number): boolean {
  const age = Date.now() - info.mtimeMs;
  if (age > staleMs) return true;
  if (!info.owner) return age > 2_000; // unreadable for two seconds: its writer died mid-write
  return info.owner.host === HOST && !alive(info.owner.pid);
}

async function breakIfStale(path: string, staleMs: number): Promise<void> {
  const breaker = `${path}.break`;
  if (!(await createExclusive(breaker, String(process.pid)))) {
    // Someone else is breaking it; a breaker that died holding this is cleared after ten seconds.
    const b = await readOwner(breaker);
    if (b && Date.now() - b.mtimeMs > 10_000) await unlink(breaker).catch(() => {});
    return;
  }
  try {
    const info = await readOwner(path);
    if (info && isStale(info, staleMs)) await unlink(path).catch(() => {});
  } finally {
    await unlink(breaker).catch(() => {});
  }
}

async function acquire(path: string, options: LockOptions): Promise<Owner> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const staleMs = options.staleMs ?? 10 * 60_000;
  const owner: Owner = {
    pid: process.pid,
    host: HOST,
    since: new Date().toISOString(),
    token: Math.random().toString(36).slice(2),
  };
  const content = JSON.stringify(owner);
  const deadline = Date.now() + timeoutMs;
  let wait = 2;
  for (;;) {
    options.signal?.throwIfAborted();
    if (await createExclusive(path, content)) return owner;
    const info = await readOwner(path);
    if (info && isStale(info, staleMs)) {
      await breakIfStale(path, staleMs);
      continue;
    }
    if (Date.now() > deadline) {
      const who = info?.owner
        ? `process ${info.owner.pid} on ${info.owner.host} since ${info.owner.since}`
        : "another process";
      throw new DomainError(
        "unavailable",
        `The category is locked by ${who} (lock file ${path}) and stayed locked for ${Math.round(timeoutMs / 1000)} s. Retry shortly; if no reqlix process is running, delete that lock file.`,
      );
    }
    await sleep(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 50);
  }
}

async function release(path: string, owner: Owner): Promise<void> {
  // Remove the lock only if it is still ours (it may have been broken as stale and retaken).
  try {
    const current = JSON.parse(await readFile(path, "utf8")) as Owner;
    if (current.token === owner.token && current.pid === owner.pid) await unlink(path);
  } catch {
    // already gone
  }
}

/** Runs `fn` holding the lock file `lockPath` (same-process callers queue first). */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
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
    const owner = await acquire(lockPath, options);
    try {
      return await fn();
    } finally {
      await release(lockPath, owner);
    }
  } finally {
    done();
    if (queues.get(lockPath) === tail) queues.delete(lockPath);
  }
}
