/**
 * The bridge's memory of the last sync, `.reqlix/sync.json` in the project root: per hosted target (URL
 * and workspace), which hosted entity each category, chapter and requirement index is, and for each
 * requirement the content both sides agreed on (its hash) and the hosted revision at that moment. A
 * change since the last sync is a difference from that hash; a conflict is a change on both sides.
 *
 * Written atomically (temp file, fsync, rename) while the caller holds the sync lock. It holds no token.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DomainError } from "../../core/errors.js";

export const STATE_VERSION = 1;
export const STATE_FILE = ".reqlix/sync.json";

export interface SyncedRequirement {
  reference_id: string;
  /** Hash of title and text both sides held at the last sync (see `contentHash`). */
  hash: string;
  hosted_revision: number;
}

export interface TargetState {
  url: string;
  workspace: string;
  synced_at: string | null;
  /** Category prefix → epic reference id. */
  epics: Record<string, string>;
  /** Chapter key (`G.GI`) → user story reference id. */
  stories: Record<string, string>;
  /** Requirement index (upper case) → what was agreed. */
  requirements: Record<string, SyncedRequirement>;
}

export interface SyncStateFile {
  version: typeof STATE_VERSION;
  targets: Record<string, TargetState>;
}

/** One target per server and workspace: the same files may be bridged to several workspaces. */
export function targetKey(url: string, workspace: string): string {
  return `${url.replace(/\/+$/, "")} ${workspace}`;
}

export function emptyTarget(url: string, workspace: string): TargetState {
  return { url, workspace, synced_at: null, epics: {}, stories: {}, requirements: {} };
}

function corrupt(path: string, why: string): DomainError {
  return DomainError.invalid(
    `${path} is not a valid reqlix sync state (${why}). It is written only by reqlix-mcp push/pull; if it was edited by hand, restore it from version control or delete it (the next sync then pairs requirements by index and reports every difference as a conflict).`,
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkTarget(path: string, key: string, t: unknown): TargetState {
  if (!isRecord(t)) throw corrupt(path, `target "${key}" is not an object`);
  const strings = (v: unknown, what: string): Record<string, string> => {
    if (!isRecord(v) || !Object.values(v).every((x) => typeof x === "string"))
      throw corrupt(path, `${what} of "${key}" must map keys to reference ids`);
    return v as Record<string, string>;
  };
  if (typeof t.url !== "string" || typeof t.workspace !== "string")
    throw corrupt(path, `target "${key}" lacks url or workspace`);
  const reqs = t.requirements;
  if (!isRecord(reqs)) throw corrupt(path, `requirements of "${key}" is not an object`);
  for (const [index, r] of Object.entries(reqs)) {
    if (
      !isRecord(r) ||
      typeof r.reference_id !== "string" ||
      typeof r.hash !== "string" ||
      !Number.isSafeInteger(r.hosted_revision)
    )
      throw corrupt(path, `requirement ${index} of "${key}" is malformed`);
  }
  return {
    url: t.url,
    workspace: t.workspace,
    synced_at: typeof t.synced_at === "string" ? t.synced_at : null,
    epics: strings(t.epics, "epics"),
    stories: strings(t.stories, "stories"),
    requirements: reqs as Record<string, SyncedRequirement>,
  };
}

export async function readSyncState(projectRoot: string): Promise<SyncStateFile> {
  const path = join(projectRoot, STATE_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: STATE_VERSION, targets: {} };
    throw new DomainError(
      "unavailable",
      `Cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, (error as Error).message);
  }
  if (!isRecord(json) || json.version !== STATE_VERSION || !isRecord(json.targets))
    throw corrupt(path, `expected {"version": ${STATE_VERSION}, "targets": {…}}`);
  const targets: Record<string, TargetState> = {};
  for (const [key, t] of Object.entries(json.targets)) targets[key] = checkTarget(path, key, t);
  return { version: STATE_VERSION, targets };
}

/** Sorted keys, so the file changes only where the state did (it may sit in a diff). */
function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export async function writeSyncState(projectRoot: string, state: SyncStateFile): Promise<void> {
  const path = join(projectRoot, STATE_FILE);
  const targets: Record<string, TargetState> = {};
  for (const [key, t] of Object.entries(state.targets)) {
    targets[key] = {
      ...t,
      epics: sorted(t.epics),
      stories: sorted(t.stories),
      requirements: sorted(t.requirements),
    };
  }
  const text = `${JSON.stringify({ version: STATE_VERSION, targets: sorted(targets) }, null, 2)}\n`;
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const fh = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      await fh.writeFile(text, "utf8");
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw new DomainError(
      "unavailable",
      `Cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}). Check that the project directory is writable.`,
    );
  }
  const dir = await open(dirname(path), "r").catch(() => undefined);
  if (dir)
    await dir
      .sync()
      .catch(() => {})
      .finally(() => dir.close());
}
