/**
 * What push and pull share: one sync at a time per project (a lock beside the state file), the local
 * files and the workspace read once, the state of this target, and the result shape both report.
 */
import { mkdir, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { withFileLock } from "../file-lock.js";
import { checkProjectRoot } from "../reqlix/paths.js";
import { type BridgeTarget, exportWorkspace } from "./hosted-client.js";
import { type LocalProject, readLocalProject } from "./local-project.js";
import type { BridgeDocument } from "./mapping.js";
import { type Conflict, conflictOf, type Item, type Reconciliation } from "./reconcile.js";
import {
  emptyTarget,
  readSyncState,
  STATE_FILE,
  type SyncStateFile,
  type TargetState,
  targetKey,
  writeSyncState,
} from "./sync-state.js";

export interface SyncOptions {
  projectRoot: string;
  env: Readonly<Record<string, string | undefined>>;
  target: BridgeTarget;
  /** Resolve conflicts in this command's direction: push → the files win, pull → the workspace wins. */
  force?: boolean;
  signal?: AbortSignal;
}

export interface SyncResult {
  action: "push" | "pull";
  /** `conflict`: nothing was written on either side; see `conflicts`. */
  status: "done" | "conflict";
  url: string;
  workspace: string;
  /** Indices (or reference ids of requirements new in the workspace) per outcome. */
  pushed: { created: string[]; updated: string[]; obsoleted: string[]; external_ids_set: string[] };
  pulled: { inserted: { index: string; reference_id: string }[]; updated: string[]; deleted: string[] };
  /** Changes this direction does not carry: `push` lists the local ones a pull leaves, and vice versa. */
  waiting: { push: string[]; pull: string[] };
  conflicts: Conflict[];
  /** Conflicts `force` resolved in this command's direction (the other side's version was overwritten). */
  forced: string[];
  unchanged: number;
  state_file: string;
}

export interface Session {
  root: string;
  project: LocalProject;
  doc: BridgeDocument;
  file: SyncStateFile;
  key: string;
  state: TargetState;
}

export function emptyResult(action: "push" | "pull", target: BridgeTarget): SyncResult {
  return {
    action,
    status: "done",
    url: target.url,
    workspace: target.workspace,
    pushed: { created: [], updated: [], obsoleted: [], external_ids_set: [] },
    pulled: { inserted: [], updated: [], deleted: [] },
    waiting: { push: [], pull: [] },
    conflicts: [],
    forced: [],
    unchanged: 0,
    state_file: STATE_FILE,
  };
}

/** Runs `fn` holding the project's sync lock, with the files, the workspace and the state read. */
export async function withSession<T>(options: SyncOptions, fn: (session: Session) => Promise<T>): Promise<T> {
  const root = await checkProjectRoot(options.projectRoot);
  const stateDir = join(root, dirname(STATE_FILE));
  const made = await mkdir(stateDir, { recursive: true });
  try {
    return await withFileLock(
      join(root, `${STATE_FILE}.lock`),
      async () => {
        const file = await readSyncState(root);
        const key = targetKey(options.target.url, options.target.workspace);
        const state = file.targets[key] ?? emptyTarget(options.target.url, options.target.workspace);
        // The workspace first: a refused token or a wrong workspace stops before any file is touched.
        const doc = await exportWorkspace(options.target, options.signal);
        const project = await readLocalProject(root, options.env);
        return fn({ root, project, doc, file, key, state });
      },
      { signal: options.signal },
    );
  } finally {
    // A first sync that failed leaves no empty .reqlix/ behind (rmdir refuses a folder with anything in it).
    if (made !== undefined) await rmdir(stateDir).catch(() => {});
  }
}

/**
 * Conflicts stop the command (nothing written; the result lists them) unless `force` says which side wins:
 * then each becomes a change in this command's direction. Returns true when the command must stop.
 */
export function settleConflicts(
  items: Item[],
  result: SyncResult,
  force: boolean | undefined,
  winner: "local" | "hosted",
): boolean {
  const conflicts = items.filter((i) => i.change === "conflict");
  if (conflicts.length === 0) return false;
  if (!force) {
    result.status = "conflict";
    result.conflicts = conflicts.map(conflictOf);
    return true;
  }
  for (const item of conflicts) {
    item.change = winner;
    result.forced.push(itemName(item));
  }
  return false;
}

/** Remembers the containers a reconciliation mapped, beside the requirements' new state. */
export async function saveState(
  session: Session,
  rec: Reconciliation,
  requirements: TargetState["requirements"],
): Promise<void> {
  const epics: Record<string, string> = {};
  const stories: Record<string, string> = {};
  for (const [prefix, epic] of rec.epics) if (epic.reference_id) epics[prefix] = epic.reference_id;
  for (const [key, story] of rec.stories) if (story.reference_id) stories[key] = story.reference_id;
  const next: TargetState = {
    url: session.state.url,
    workspace: session.state.workspace,
    synced_at: new Date().toISOString(),
    epics,
    stories,
    requirements,
  };
  await writeSyncState(session.root, {
    version: session.file.version,
    targets: { ...session.file.targets, [session.key]: next },
  });
}

/** The name an item is reported by: its index, else the reference id of the workspace's requirement. */
export function itemName(item: {
  local?: { index: string } | undefined;
  key?: string | undefined;
  hosted?: { reference_id?: string } | undefined;
}): string {
  return item.local?.index ?? item.key ?? item.hosted?.reference_id ?? "?";
}
