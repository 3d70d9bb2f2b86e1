/**
 * The project's reqlix requirements as the trace tools see them: index → title, text, revision, read from
 * the category files without creating anything (the reqlix tools create the folder; tracing never does).
 * Each file is re-read only when its inode, size or modification time changed; the parsed files can be
 * exported and seeded again (the CLI keeps them in its disk cache, so a run reads no requirement file that
 * did not change).
 */
import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { listCategories, openCategory } from "../reqlix/categories.js";
import { readBody, walkCategory } from "../reqlix/category-file.js";
import { AGENTS_FILE, DEFAULT_REL_PATH, LEGACY_REL_PATH, toPosix } from "../reqlix/paths.js";
import { splitRevision } from "../reqlix/revision.js";
import { isRacy } from "./racy.js";

export interface LocalRequirement {
  index: string;
  title: string;
  text: string;
  revision: number;
  category: string;
  chapter: string;
}

export interface LocalCatalog {
  /** Requirements directory relative to the root (`/`-separated), or null when the project has none. */
  relPath: string | null;
  /** Category prefix (upper case) of every category with requirements. */
  prefixes: string[];
  byIndex: Map<string, LocalRequirement>;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The requirements directory by reqlix's search order (G.GI.3), only if it exists inside the root. */
export async function findRequirementsDir(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  const fromEnv = env.REQLIX_REQ_REL_PATH?.trim();
  const candidates = [...(fromEnv ? [normalize(fromEnv)] : []), DEFAULT_REL_PATH, LEGACY_REL_PATH];
  for (const rel of candidates) {
    if (isAbsolute(rel) || rel.startsWith("..")) continue;
    try {
      // Synchronous: a few stats every scan makes (a promise-based one goes through the thread pool).
      if (!lstatSync(join(root, rel, AGENTS_FILE)).isFile()) continue;
      const real = realpathSync.native(join(root, rel));
      if (inside(root, real)) return real;
    } catch {}
  }
  return undefined;
}

/** The canonical index form the scanner produces: upper-case prefixes, number without leading zeros. */
export function canonicalIndex(index: string): string {
  const [c = "", ch = "", n = ""] = index.split(".");
  return `${c.toUpperCase()}.${ch.toUpperCase()}.${Number(n)}`;
}

interface FileEntry {
  key: string;
  prefix: string | undefined;
  requirements: LocalRequirement[];
}

/** The parsed requirement files by absolute path, as `export()` gives them and `seed()` takes them. */
export type CatalogFiles = [string, FileEntry][];

export class CatalogReader {
  private readonly files = new Map<string, FileEntry>();

  /** The files parsed so far (those whose key can be trusted). */
  export(): CatalogFiles {
    return [...this.files];
  }

  /** Takes files parsed by an earlier run; an entry is used only while its file's key stays. */
  seed(files: CatalogFiles): void {
    for (const item of files) {
      if (!Array.isArray(item) || typeof item[0] !== "string") continue;
      const [path, entry] = item;
      if (!this.files.has(path) && typeof entry?.key === "string" && Array.isArray(entry.requirements))
        this.files.set(path, entry);
    }
  }

  async read(root: string, env: Readonly<Record<string, string | undefined>>): Promise<LocalCatalog> {
    const dir = await findRequirementsDir(root, env);
    const byIndex = new Map<string, LocalRequirement>();
    if (!dir) return { relPath: null, prefixes: [], byIndex };
    const prefixes = new Set<string>();
    for (const category of await listCategories(dir)) {
      const path = join(dir, `${category}.md`);
      const entry = await this.readFile(path, category);
      if (!entry) continue;
      if (entry.prefix) prefixes.add(entry.prefix.toUpperCase());
      for (const r of entry.requirements) if (!byIndex.has(r.index)) byIndex.set(r.index, r);
    }
    return { relPath: toPosix(relative(root, dir)), prefixes: [...prefixes], byIndex };
  }

  private async readFile(path: string, category: string): Promise<FileEntry | undefined> {
    let info: Stats;
    try {
      info = statSync(path);
    } catch {
      return undefined;
    }
    const key = `${info.ino}:${info.size}:${info.mtimeMs}`;
    const hit = this.files.get(path);
    if (hit?.key === key) return hit;
    const readAt = Date.now();
    const fh = await openCategory(path);
    if (!fh) return undefined;
    try {
      const located: {
        index: string;
        title: string;
        chapter: string;
        start: number;
        headingEnd: number;
        bodyEnd: number;
      }[] = [];
      let prefix: string | undefined;
      const summary = await walkCategory(fh, (e) => {
        const open = located[located.length - 1];
        if (open && open.bodyEnd < 0) open.bodyEnd = e.line.start;
        if (e.kind !== "requirement") return;
        prefix ??= e.req.categoryPrefix;
        located.push({
          index: canonicalIndex(e.req.index),
          title: e.req.title,
          chapter: e.chapter ?? "",
          start: e.line.start,
          headingEnd: e.line.end,
          bodyEnd: -1,
        });
      });
      const last = located[located.length - 1];
      if (last && last.bodyEnd < 0) last.bodyEnd = summary.size;
      const requirements: LocalRequirement[] = [];
      for (const l of located) {
        const { text, revision } = splitRevision(await readBody(fh, l));
        requirements.push({ index: l.index, title: l.title, text, revision, category, chapter: l.chapter });
      }
      const entry = { key, prefix, requirements };
      // A racy key could hide a write made after this read: such a file is parsed again next time.
      if (isRacy(info.mtimeMs, readAt)) this.files.delete(path);
      else this.files.set(path, entry);
      return entry;
    } finally {
      await fh.close();
    }
  }
}
