/**
 * Finds, loads and caches `.knowledge/config.yaml` for the companion (REQ-3, REQ-9).
 *
 * Discovery walks up from the working directory on every call (a few `stat`s), so a config created after
 * start, or one created closer to the working directory, is seen at once; there is no global fallback.
 * The parsed catalog is cached until the file changes: each call compares the file's modification time,
 * size and inode (editors that replace the file by rename change the inode), and an `fs.watch` on the
 * `.knowledge` folder marks the cache stale (for writes a stat cannot tell apart) and reloads it in the
 * background, so a change is loaded within 100 ms even before the next call. Reads are synchronous: the
 * file is small and a cached call then costs a few microseconds.
 */
import { type FSWatcher, readFileSync, type Stats, statSync, watch } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { DocsetCatalog } from "../../core/docsets.js";
import {
  type ConfigProblem,
  catalogFromConfig,
  type DocsetsConfig,
  formatConfigProblems,
  MINIMAL_CONFIG_EXAMPLE,
  parseDocsetsConfig,
} from "../../core/docsets-config.js";
import { DomainError } from "../../core/errors.js";

export const CONFIG_DIR = ".knowledge";
export const CONFIG_FILE = "config.yaml";
/** A docsets file is a few hundred bytes; refuse to parse something that is clearly not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Events of one save arrive within a few milliseconds; reload once after they settle. */
const RELOAD_DEBOUNCE_MS = 10;

export type ConfigState =
  | { kind: "missing"; searchedFrom: string }
  | { kind: "error"; path: string; error: DomainError }
  | { kind: "ok"; path: string; catalog: DocsetCatalog };

interface Cached {
  path: string;
  signature: string;
  /** The text the state was parsed from (undefined when the file could not be read). */
  text: string | undefined;
  state: ConfigState;
}

function signature(st: Stats): string {
  return `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}`;
}

/** REQ-3: `.knowledge/config.yaml` in `start` or the nearest parent, or undefined. */
export function findConfig(start: string): { path: string; stats: Stats } | undefined {
  let dir = start;
  for (;;) {
    const path = join(dir, CONFIG_DIR, CONFIG_FILE);
    let stats: Stats | undefined;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch {
      stats = undefined; // a folder we may not enter (EACCES) holds no config we could read: keep walking up
    }
    if (stats) return { path, stats };
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** `docs_root: ~/docs` means the user's home, as in a shell (otherwise it would resolve under .knowledge/). */
function expandHome(config: DocsetsConfig): DocsetsConfig {
  const root = config.docs_root;
  if (root === undefined || !(root === "~" || root.startsWith("~/") || root.startsWith("~\\"))) return config;
  return { ...config, docs_root: join(homedir(), root.slice(1)) };
}

export function noConfigError(searchedFrom: string): DomainError {
  return new DomainError(
    "unavailable",
    `No ${CONFIG_DIR}/${CONFIG_FILE} found in ${searchedFrom} or any parent folder (there is no global configuration). ` +
      `Create ${CONFIG_DIR}/${CONFIG_FILE} at the project root, for example:\n${MINIMAL_CONFIG_EXAMPLE}\n` +
      `and put each docset's pages in ${CONFIG_DIR}/docs/<name>-<version>/ (e.g. ${CONFIG_DIR}/docs/react-18.2/). ` +
      "The next call picks the file up; no restart is needed.",
    { searched_from: searchedFrom },
  );
}

function invalidConfigError(
  path: string,
  kind: "syntax" | "invalid",
  problems: ConfigProblem[],
): DomainError {
  const head =
    kind === "syntax"
      ? `${path} is not valid YAML. Fix the syntax at:`
      : `${path} is not a usable docsets configuration. Fix:`;
  return new DomainError("unavailable", `${head}\n${formatConfigProblems(problems)}`, {
    config_path: path,
    problems,
  });
}

export class KnowledgeConfigStore {
  private cached: Cached | undefined;
  private stale = false;
  private watcher: FSWatcher | undefined;
  private watchedDir: string | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cwd: string,
    private readonly log: (message: string, fields?: Record<string, unknown>) => void = () => {},
  ) {}

  /** The configuration as of now: reloaded when the file changed since the last call (REQ-9). */
  current(): ConfigState {
    const found = findConfig(this.cwd);
    if (!found) {
      this.unwatch();
      this.cached = undefined;
      return { kind: "missing", searchedFrom: this.cwd };
    }
    const sig = signature(found.stats);
    const cached = this.cached;
    if (cached && !this.stale && cached.path === found.path && cached.signature === sig) return cached.state;
    this.stale = false;
    const loaded = this.load(found.path, found.stats, cached?.path === found.path ? cached : undefined);
    this.cached = { path: found.path, signature: sig, ...loaded };
    this.watchFolder(dirname(found.path));
    return loaded.state;
  }

  /** The catalog, or the error that tells the model (and through it the user) how to fix the configuration. */
  catalog(): DocsetCatalog {
    const state = this.current();
    if (state.kind === "ok") return state.catalog;
    if (state.kind === "missing") throw noConfigError(state.searchedFrom);
    throw state.error;
  }

  close(): void {
    this.unwatch();
  }

  private load(
    path: string,
    stats: Stats,
    previous: Cached | undefined,
  ): { text: string | undefined; state: ConfigState } {
    const state = (s: ConfigState) => ({ text: undefined, state: s });
    if (stats.isDirectory()) {
      return state({
        kind: "error",
        path,
        error: new DomainError(
          "unavailable",
          `Cannot read ${path}: it is a folder, not a file. Remove it and create ${CONFIG_FILE} as a YAML file, for example:\n${MINIMAL_CONFIG_EXAMPLE}`,
          { config_path: path },
        ),
      });
    }
    if (stats.size > MAX_CONFIG_BYTES) {
      return state({
        kind: "error",
        path,
        error: new DomainError(
          "unavailable",
          `${path} is ${stats.size} bytes; a docsets configuration is at most ${MAX_CONFIG_BYTES} bytes. Check that it is the right file.`,
          { config_path: path },
        ),
      });
    }
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      // REQ-7: a file access error, with the cause and a way out.
      const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
      return state({
        kind: "error",
        path,
        error: new DomainError(
          "unavailable",
          `Cannot read ${path} (${code}): check that the file exists and that your user may read it (e.g. chmod u+r).`,
          { config_path: path, cause: code },
        ),
      });
    }
    // A watch event for a write that was already loaded (or a save of identical text): nothing to parse.
    if (previous?.text === text) return { text, state: previous.state };
    const parsed = parseDocsetsConfig(text);
    if (!parsed.ok) {
      this.log("knowledge config rejected", { path, problems: parsed.problems.length });
      return {
        text,
        state: { kind: "error", path, error: invalidConfigError(path, parsed.kind, parsed.problems) },
      };
    }
    const catalog = catalogFromConfig(expandHome(parsed.config), dirname(path));
    this.log("knowledge config loaded", { path, docsets: catalog.docsets.length });
    return { text, state: { kind: "ok", path, catalog } };
  }

  private watchFolder(dir: string): void {
    if (this.watchedDir === dir && this.watcher) return;
    this.unwatch();
    try {
      // Watch the folder, not the file: an editor that saves by rename replaces the file's inode.
      const watcher = watch(dir, { persistent: false }, (_event, filename) => {
        // Only the file itself: an editor's temp file beside it changes nothing until it is renamed over.
        if (filename === null || String(filename) === CONFIG_FILE) {
          this.stale = true;
          this.scheduleReload();
        }
      });
      watcher.on("error", () => this.unwatch());
      this.watcher = watcher;
      this.watchedDir = dir;
    } catch {
      // Not every file system can be watched; the per-call stat still sees changes.
      this.watcher = undefined;
      this.watchedDir = undefined;
    }
  }

  /**
   * REQ-9: reload in the background shortly after a change (a save is often several events: truncate,
   * write, rename), so the change is loaded within 100 ms even if no call comes, and the next call is a
   * cache hit instead of paying for the YAML parse.
   */
  private scheduleReload(): void {
    if (this.reloadTimer) return;
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      try {
        this.current();
      } catch (error) {
        this.log("knowledge config reload failed", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }, RELOAD_DEBOUNCE_MS);
    this.reloadTimer.unref();
  }

  private unwatch(): void {
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = undefined;
    this.watcher?.close();
    this.watcher = undefined;
    this.watchedDir = undefined;
  }
}
