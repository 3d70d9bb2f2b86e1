/**
 * The files of a working copy that is not a git repository: a walk that honours every `.gitignore` on the
 * way (through the `ignore` package, which implements git's rules) and never follows a symbolic link.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";

interface Level {
  /** Folder of the .gitignore, relative to the root ('' for the root), with a trailing '/'. */
  base: string;
  rules: Ignore;
}

async function rulesIn(dir: string): Promise<Ignore | undefined> {
  try {
    return ignore().add(await readFile(join(dir, ".gitignore"), "utf8"));
  } catch {
    return undefined;
  }
}

function ignored(levels: Level[], rel: string, isDir: boolean): boolean {
  for (const level of levels) {
    const sub = rel.slice(level.base.length) + (isDir ? "/" : "");
    if (level.rules.ignores(sub)) return true;
  }
  return false;
}

/** Files under `root` relative to it, `/`-separated, sorted per folder. */
export async function walkFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string, levels: Level[]): Promise<void> => {
    const dir = rel === "" ? root : join(root, rel);
    const own = await rulesIn(dir);
    const here = own ? [...levels, { base: rel === "" ? "" : `${rel}/`, rules: own }] : levels;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name === ".git") continue;
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!ignored(here, path, true)) await visit(path, here);
      } else if (e.isFile() && !ignored(here, path, false)) {
        out.push(path);
      }
    }
  };
  await visit("", []);
  return out;
}
