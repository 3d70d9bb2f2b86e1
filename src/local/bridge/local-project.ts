/**
 * The bridge's view of a project's reqlix requirements: every category file read through the same
 * streaming heading walk as the reqlix tools (fences, `##` rules, bodies without their revision line), so
 * what the bridge sends is exactly what `reqlix_get_requirement` would return.
 */
import type { FileHandle } from "node:fs/promises";
import { DomainError } from "../../core/errors.js";
import { listCategories, openCategory } from "../reqlix/categories.js";
import { type LocatedRequirement, readBody, walkCategory } from "../reqlix/category-file.js";
import { categoryPath, type RequirementsDir, resolveRequirementsDir } from "../reqlix/paths.js";
import { splitRevision } from "../reqlix/revision.js";

export interface LocalRequirement {
  /** The index as written in the file (the hosted external id). */
  index: string;
  title: string;
  /** The body without its `<!-- rev: N -->` line, as the reqlix tools return it. */
  text: string;
  /** reqlix's own text revision (1 when the file has no revision line). */
  localRevision: number;
  category: string;
  chapter: string;
  /** The chapter's key, `{category prefix}.{chapter prefix}` (the user story's external id). */
  chapterKey: string;
}

export interface LocalChapter {
  name: string;
  key: string;
  requirements: LocalRequirement[];
}

export interface LocalCategory {
  name: string;
  /** The category prefix its first requirement carries (the epic's external id). */
  prefix: string;
  chapters: LocalChapter[];
}

export interface LocalProject {
  dir: RequirementsDir;
  /** Categories with at least one requirement (an empty category or chapter has nothing to sync). */
  categories: LocalCategory[];
  requirements: Map<string, LocalRequirement>;
}

/** The key a requirement index is compared by: reqlix compares index letters case-insensitively. */
export function indexKey(index: string): string {
  return index.toUpperCase();
}

async function readCategory(dir: string, name: string): Promise<LocalCategory | undefined> {
  const fh = await openCategory(categoryPath(dir, name));
  if (!fh) return undefined;
  try {
    return await categoryOf(fh, name);
  } finally {
    await fh.close();
  }
}

async function categoryOf(fh: FileHandle, name: string): Promise<LocalCategory | undefined> {
  const found: (LocatedRequirement & { categoryPrefix: string; chapterPrefix: string })[] = [];
  let open: LocatedRequirement | undefined;
  const summary = await walkCategory(fh, (e) => {
    if (open) {
      open.bodyEnd = e.line.start;
      open = undefined;
    }
    if (e.kind !== "requirement") return;
    if (e.chapter === undefined) {
      throw DomainError.invalid(
        `${name}.md: requirement ${e.req.index} stands before any chapter heading, so it has no chapter (user story) to go to. Put a "# Chapter" heading above it.`,
      );
    }
    const located = {
      index: e.req.index,
      title: e.req.title,
      chapter: e.chapter,
      start: e.line.start,
      headingEnd: e.line.end,
      bodyEnd: -1,
      categoryPrefix: e.req.categoryPrefix.toUpperCase(),
      chapterPrefix: e.req.chapterPrefix.toUpperCase(),
    };
    found.push(located);
    open = located; // its body ends at the next heading
  });
  const last = found[found.length - 1];
  if (last && last.bodyEnd < 0) last.bodyEnd = summary.size;
  const first = found[0];
  if (!first) return undefined;
  const category: LocalCategory = { name, prefix: first.categoryPrefix, chapters: [] };
  let chapter: LocalChapter | undefined;
  for (const r of found) {
    if (!chapter || chapter.name !== r.chapter) {
      // A chapter is keyed by the prefix its first requirement carries, as the reqlix tools read it.
      chapter = { name: r.chapter, key: `${category.prefix}.${r.chapterPrefix}`, requirements: [] };
      category.chapters.push(chapter);
    }
    const { text, revision } = splitRevision(await readBody(fh, r));
    chapter.requirements.push({
      index: r.index,
      title: r.title,
      text,
      localRevision: revision,
      category: name,
      chapter: r.chapter,
      chapterKey: chapter.key,
    });
  }
  return category;
}

/** Reads every category of the project. Duplicate indices or chapter keys are refused: they cannot map. */
export async function readLocalProject(
  projectRoot: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<LocalProject> {
  const dir = await resolveRequirementsDir(projectRoot, env);
  const categories: LocalCategory[] = [];
  const requirements = new Map<string, LocalRequirement>();
  const prefixes = new Map<string, string>();
  const chapterKeys = new Map<string, string>();
  for (const name of await listCategories(dir.dir)) {
    const category = await readCategory(dir.dir, name);
    if (!category) continue;
    const other = prefixes.get(category.prefix);
    if (other !== undefined) {
      throw DomainError.invalid(
        `Categories "${other}" and "${name}" both use the prefix ${category.prefix}, so their requirements cannot be told apart in the hosted workspace. Give one of them its own prefix.`,
      );
    }
    prefixes.set(category.prefix, name);
    categories.push(category);
    for (const chapter of category.chapters) {
      const where = `chapter "${chapter.name}" of ${name}.md`;
      const seen = chapterKeys.get(chapter.key);
      if (seen !== undefined) {
        throw DomainError.invalid(
          `${where} and ${seen} both start with requirements keyed ${chapter.key}.*, so they would be one user story. Keep each chapter's requirements under its own chapter prefix.`,
        );
      }
      chapterKeys.set(chapter.key, where);
      for (const r of chapter.requirements) {
        const key = indexKey(r.index);
        const dup = requirements.get(key);
        if (dup) {
          throw DomainError.invalid(
            `Requirement index ${r.index} appears twice (chapter "${dup.chapter}" of ${dup.category}.md and chapter "${r.chapter}" of ${r.category}.md). Each index must be unique; renumber one of them.`,
          );
        }
        requirements.set(key, r);
      }
    }
  }
  return { dir, categories, requirements };
}
