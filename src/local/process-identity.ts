/**
 * Which process runs a pid, precisely enough that a reused pid never passes for the old process: the
 * companion lock (file-lock.ts) uses it to tell a live holder that missed heartbeats from a dead one.
 */
import { readFileSync, readlinkSync } from "node:fs";

/**
 * Who runs `pid` on this machine: its pid namespace and start time in clock ticks since boot (field 22 of
 * /proc/<pid>/stat, after the parenthesized command name, which may contain spaces). `undefined` without
 * /proc or when nothing (alive) runs `pid`.
 */
export function identityOf(pid: number | "self"): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // A zombie (Z) or dying (X) process holds its pid but will never write again: it is dead.
    if (fields[0] === "Z" || fields[0] === "X") return undefined;
    const start = fields[19];
    return start ? `${readlinkSync("/proc/self/ns/pid")}:${start}` : undefined;
  } catch {
    return undefined;
  }
}

/** This process's identity, recorded in the lock files it holds. */
export const OWN_IDENTITY = identityOf("self");
