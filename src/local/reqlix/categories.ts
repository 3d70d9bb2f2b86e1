/**
 * The category files of a requirements directory (G.F.1, G.GC.3) and category lookup by prefix (G.C.7).
 * AGENTS.md is never listed or opened here (G.C.3). Only regular files named `[a-z0-9_]+.md` are
 * categories: a symbolic link is never followed, so nothing outside the directory is read.
 */
import { constants } from "node:fs";
import { type FileHandle, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { DomainError } from "../../core/errors.js";
import { storedCategoryPrefix } from "./category-file.js";
import { samePrefix } from "./markdown.js";
import { categoryPath, isCategoryFileName } from "./paths.js";

/** Category names, sorted (G.GC.3, G.GI.7). */
export async function listCategories(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && isCategoryFileName(e.name))
    .map((e) => e.name.slice(0, -3))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Opens a category file for reading; never follows a symbolic link. `undefined` when it does not exist. */
export async function openCategory(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") {
      throw DomainError.forbidden(
        `${path} is a symbolic link; reqlix only reads and writes regular files inside the requirements directory. Replace the link with the file itself.`,
      );
    }
    if (code === "EISDIR")
      throw DomainError.invalid(`${path} is a directory, not a category file. Rename or remove it.`);
    throw error;
  }
}

export async function categoryNotFound(dir: string, category: string): Promise<DomainError> {
  const all = await listCategories(dir);
  const known = all.length > 0 ? `Existing categories: ${all.join(", ")}.` : "There are no categories yet.";
  return DomainError.notFound(
    `Category not found: "${category}" (no file ${category}.md in the requirements directory). ${known} Call reqlix_get_categories to list them; reqlix_insert_requirement creates a category.`,
    category,
  );
}

/** Opens an existing category or fails with "Category not found". */
export async function openExistingCategory(dir: string, category: string): Promise<FileHandle> {
  const fh = await openCategory(categoryPath(dir, category));
  if (!fh) throw await categoryNotFound(dir, category);
  return fh;
}

/** Stored prefix per file, keyed by identity and change time, so repeated lookups do not rescan. */
const prefixCache = new Map<string, { key: string; prefix: string | undefined }>();

export async function categoryPrefix(dir: string, category: string): Promise<string | undefined> {
  const path = join(dir, `${category}.md`);
  const fh = await openCategory(path);
  if (!fh) return undefined;
  try {
    const info = await fh.stat();
    const key = `${info.ino}:${info.size}:${info.mtimeMs}`;
    const hit = prefixCache.get(path);
    if (hit?.key === key) return hit.prefix;
    const prefix = await storedCategoryPrefix(fh);
    prefixCache.set(path, { key, prefix });
    return prefix;
  } finally {
    await fh.close();
  }
}

/** Category → stored prefix (categories without requirements have none). */
export async function categoryPrefixes(dir: string): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  for (const name of await listCategories(dir)) out.set(name, await categoryPrefix(dir, name));
  return out;
}

/**
 * G.C.7: the category whose prefix is `prefix`. A category's prefix is the one its requirement headings
 * carry (assigned by its first requirement and never recomputed, DESIGN), so a category without
 * requirements cannot match any index.
 */
export async function findCategoryByPrefix(dir: string, prefix: string, index: string): Promise<string> {
  const prefixes = await categoryPrefixes(dir);
  for (const [name, p] of prefixes) if (p !== undefined && samePrefix(p, prefix)) return name;
  const listed = [...prefixes].map(([name, p]) => `${name} (${p ?? "no requirements yet"})`).join(", ");
  throw DomainError.notFound(
    `Category not found: no category has the prefix "${prefix}" of index "${index}". ${
      listed ? `Categories and their prefixes: ${listed}.` : "There are no categories yet."
    } Check the index, or call reqlix_get_categories and reqlix_get_requirements to find the right one.`,
    index,
  );
}
