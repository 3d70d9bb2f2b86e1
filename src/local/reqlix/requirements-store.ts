/**
 * The reqlix operations over one requirements directory, independent of MCP: each resolves the
 * directory (G.C.1), works on category files through the streaming readers, and writes under the
 * category lock with an atomic rewrite. The tools in `tools.ts` are thin wrappers around these.
 */
import type { FileHandle } from "node:fs/promises";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { DomainError } from "../../core/errors.js";
import { type HeldLock, withFileLock } from "../file-lock.js";
import { removeLeftoverTemps, spliceFile } from "./atomic-write.js";
import {
  categoryNotFound,
  categoryPrefixes,
  findCategoryByPrefix,
  listCategories,
  openCategory,
  openExistingCategory,
} from "./categories.js";
import {
  type FileFacts,
  factsForInsert,
  factsForTarget,
  type ListedRequirement,
  listChapters,
  listRequirements,
  locateRequirements,
  readBody,
} from "./category-file.js";
import { planDelete, planInsert, planUpdate, requirementBlock } from "./edit-plans.js";
import { withCategories } from "./instructions.js";
import type { ScanSummary } from "./line-scanner.js";
import { bodyProblem, type IndexParts, normalizeBody, parseIndex } from "./markdown.js";
import { categoryPath, resolveRequirementsDir } from "./paths.js";
import { uniquePrefix } from "./prefix.js";
import { nextRevision, splitRevision, withRevision } from "./revision.js";

export type Env = Readonly<Record<string, string | undefined>>;

export interface Requirement {
  index: string;
  title: string;
  text: string;
  category: string;
  chapter: string;
}

/** G.P.1 caps the index at 10 characters: an insert never creates one it could not be read back with. */
export const MAX_INDEX_LENGTH = 10;
const AGENTS_MAX_BYTES = 1 << 20;
const PREFIX_LOCK = ".reqlix-prefixes.lock";

async function using<T>(fh: FileHandle, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
  try {
    return await fn(fh);
  } finally {
    await fh.close();
  }
}

/** G.GI.3–G.GI.8 */
export async function getInstructions(projectRoot: string, env: Env): Promise<{ content: string }> {
  const rd = await resolveRequirementsDir(projectRoot, env);
  let agents: string;
  try {
    const bytes = await readFile(rd.agentsPath);
    if (bytes.length > AGENTS_MAX_BYTES) {
      throw DomainError.invalid(
        `${rd.agentsPath} is larger than 1 MiB; shorten it (it is read in full on every call).`,
      );
    }
    agents = bytes.toString("utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      "unavailable",
      `Cannot read ${rd.agentsPath} (${(error as NodeJS.ErrnoException).code ?? String(error)}). Check the file's permissions.`,
    );
  }
  return { content: withCategories(agents, await listCategories(rd.dir)) };
}

/** G.GC.3 */
export async function getCategories(projectRoot: string, env: Env): Promise<{ categories: string[] }> {
  const rd = await resolveRequirementsDir(projectRoot, env);
  return { categories: await listCategories(rd.dir) };
}

/** G.GCH.3/4 */
export async function getChapters(
  projectRoot: string,
  env: Env,
  category: string,
  signal?: AbortSignal,
): Promise<{ category: string; chapters: string[] }> {
  const rd = await resolveRequirementsDir(projectRoot, env);
  const fh = await openExistingCategory(rd.dir, category);
  return { category, chapters: await using(fh, (f) => listChapters(f, signal)) };
}

function chapterNotFound(category: string, chapter: string, chapters: string[]): DomainError {
  const known =
    chapters.length > 0
      ? `Its chapters: ${chapters.map((c) => `"${c}"`).join(", ")}.`
      : "It has no chapters yet.";
  return DomainError.notFound(
    `Chapter not found: category "${category}" has no chapter "${chapter}" (chapter names match exactly, including case). ${known} Call reqlix_get_chapters to list them.`,
    chapter,
  );
}

/** G.GR.3/4 */
export async function getRequirements(
  projectRoot: string,
  env: Env,
  category: string,
  chapter: string,
  signal?: AbortSignal,
): Promise<{ category: string; chapter: string; requirements: ListedRequirement[] }> {
  const rd = await resolveRequirementsDir(projectRoot, env);
  const fh = await openExistingCategory(rd.dir, category);
  const result = await using(fh, (f) => listRequirements(f, chapter, signal));
  if ("missing" in result) throw chapterNotFound(category, chapter, result.chapters);
  return { category, chapter, requirements: result.requirements };
}

export function parseIndexArg(index: string): IndexParts {
  const parts = parseIndex(index.trim());
  if (!parts) {
    throw DomainError.invalid(
      `index "${index}" is not a requirement index: expected {CATEGORY}.{CHAPTER}.{NUMBER}, e.g. "G.G.1" or "T.U.2".`,
      [{ field: "index", message: "expected {CATEGORY}.{CHAPTER}.{NUMBER}" }],
    );
  }
  return parts;
}

function requirementNotFound(
  index: string,
  category: string,
  chapterOfPrefix: string | undefined,
  prefix: string,
): DomainError {
  const hint =
    chapterOfPrefix !== undefined
      ? `Chapter "${chapterOfPrefix}" of category "${category}" uses the chapter prefix ${prefix} but has no requirement ${index}. Call reqlix_get_requirements for that chapter to see its indices.`
      : `No chapter of category "${category}" has requirements with the chapter prefix ${prefix}. Call reqlix_get_chapters and reqlix_get_requirements to browse.`;
  return DomainError.notFound(`Requirement not found: ${index}. ${hint}`, index);
}

export interface GetManyResult {
  requirements: Requirement[];
  errors: { index: string; error: string }[];
}

/**
 * G.GRQ.3–5, for one index or many: indices are grouped by category so each category file is read once,
 * and each read stops as soon as its last wanted requirement is complete.
 */
export async function getRequirementsByIndex(
  projectRoot: string,
  env: Env,
  indices: string[],
  signal?: AbortSignal,
): Promise<GetManyResult> {
  const rd = await resolveRequirementsDir(projectRoot, env);
  const unique = [...new Set(indices.map((i) => i.trim()))];
  const found = new Map<string, Requirement>();
  const failed = new Map<string, string>();
  const byCategory = new Map<string, { index: string; parts: IndexParts }[]>();
  for (const index of unique) {
    try {
      const parts = parseIndexArg(index);
      const category = await findCategoryByPrefix(rd.dir, parts.categoryPrefix, index);
      const list = byCategory.get(category) ?? [];
      list.push({ index, parts });
      byCategory.set(category, list);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      failed.set(index, error.message);
    }
  }
  for (const [category, wanted] of byCategory) {
    const fh = await openCategory(categoryPath(rd.dir, category));
    if (!fh) {
      for (const w of wanted) failed.set(w.index, (await categoryNotFound(rd.dir, category)).message);
      continue;
    }
    await using(fh, async (f) => {
      const lookup = await locateRequirements(
        f,
        wanted.map((w) => w.parts),
        signal,
      );
      for (const [i, w] of wanted.entries()) {
        const located = lookup.located.get(i);
        if (!located) {
          failed.set(
            w.index,
            requirementNotFound(w.index, category, lookup.chapterOfPrefix.get(i), w.parts.chapterPrefix)
              .message,
          );
          continue;
        }
        found.set(w.index, {
          index: located.index,
          title: located.title,
          text: splitRevision(await readBody(f, located)).text,
          category,
          chapter: located.chapter,
        });
      }
    });
  }
  const requirements: Requirement[] = [];
  const errors: { index: string; error: string }[] = [];
  for (const index of unique) {
    const r = found.get(index);
    if (r) requirements.push(r);
    else errors.push({ index, error: failed.get(index) ?? `Requirement not found: ${index}.` });
  }
  return { requirements, errors };
}

/** Validates and normalizes a body for writing. */
function checkedBody(text: string): string {
  const body = normalizeBody(text);
  if (body.length === 0) {
    throw DomainError.invalid(
      "text is empty: pass the requirement's body text (one or more non-blank lines).",
      [{ field: "text", message: "empty" }],
    );
  }
  const problem = bodyProblem(body);
  if (problem) throw DomainError.invalid(problem, [{ field: "text", message: problem }]);
  return body;
}

function titleTaken(title: string, index: string, chapter: string, category: string): DomainError {
  return DomainError.conflict(
    `Title already exists in chapter: "${title}" is already the title of ${index} in chapter "${chapter}" of category "${category}". Choose a different title, or change ${index} with reqlix_update_requirement.`,
    { reference_id: index },
  );
}

const EMPTY_SUMMARY: ScanSummary = { size: 0, eol: "\n", bomLength: 0, openFence: undefined, stopped: false };

/** G.IR.3/4: under the category lock; a new category's prefix is chosen under the folder's prefix lock. */
export async function insertRequirement(
  projectRoot: string,
  env: Env,
  input: { category: string; chapter: string; title: string; text: string },
  signal?: AbortSignal,
): Promise<Requirement> {
  const rd = await resolveRequirementsDir(projectRoot, env);
  const path = categoryPath(rd.dir, input.category);
  const body = checkedBody(input.text);
  return withFileLock(
    `${path}.lock`,
    async (lock) => {
      await removeLeftoverTemps(path);
      const fh = await openCategory(path); // step 1: absent → created by the write below
      try {
        const facts: FileFacts = fh
          ? await factsForInsert(fh, input.chapter, signal, input.title)
          : {
              summary: EMPTY_SUMMARY,
              categoryPrefix: undefined,
              chapterPrefixes: new Set(),
              chapter: undefined,
            };
        // Step 3
        const taken = facts.chapter?.titles.get(input.title);
        if (taken !== undefined) throw titleTaken(input.title, taken, input.chapter, input.category);
        const write = async (categoryPrefix: string): Promise<Requirement> => {
          // Step 4: prefixes are read back from the file when present, computed only for the first requirement.
          const chapterPrefix =
            facts.chapter?.prefix ?? uniquePrefix(input.chapter, "chapter", facts.chapterPrefixes);
          const number = (facts.chapter?.maxNumber ?? 0) + 1;
          const index = `${categoryPrefix}.${chapterPrefix}.${number}`;
          if (index.length > MAX_INDEX_LENGTH) {
            throw DomainError.conflict(
              `The next index of chapter "${input.chapter}" would be ${index}, longer than the ${MAX_INDEX_LENGTH} characters an index may have (G.P.1), so it could not be read back. Put the requirement in another chapter.`,
            );
          }
          const block = requirementBlock(index, input.title, body, facts.summary.eol);
          await spliceFile(path, await planInsert(fh, facts, input.chapter, block), lock.assertHeld); // step 5
          return { index, title: input.title, text: body, category: input.category, chapter: input.chapter };
        };
        if (facts.categoryPrefix !== undefined) return await write(facts.categoryPrefix);
        return await withFileLock(join(rd.dir, PREFIX_LOCK), async () => {
          const others = await categoryPrefixes(rd.dir);
          others.delete(input.category);
          const used = [...others.values()].filter((p): p is string => p !== undefined);
          return write(uniquePrefix(input.category, "category", used));
        });
      } finally {
        await fh?.close();
      }
    },
    { signal },
  );
}

async function lockedTarget<T>(
  projectRoot: string,
  env: Env,
  index: string,
  signal: AbortSignal | undefined,
  fn: (ctx: {
    path: string;
    category: string;
    fh: FileHandle;
    facts: Awaited<ReturnType<typeof factsForTarget>>;
    target: NonNullable<Awaited<ReturnType<typeof factsForTarget>>["target"]>;
    lock: HeldLock;
  }) => Promise<T>,
): Promise<T> {
  const rd = await resolveRequirementsDir(projectRoot, env);
  const parts = parseIndexArg(index); // G.UR.3 step 1
  const category = await findCategoryByPrefix(rd.dir, parts.categoryPrefix, index);
  const path = categoryPath(rd.dir, category);
  return withFileLock(
    `${path}.lock`,
    async (lock) => {
      await removeLeftoverTemps(path);
      const fh = await openCategory(path);
      if (!fh) throw await categoryNotFound(rd.dir, category);
      return using(fh, async (f) => {
        const facts = await factsForTarget(f, parts, signal);
        // Step 2
        if (!facts.target)
          throw requirementNotFound(index, category, facts.chapterOfPrefix, parts.chapterPrefix);
        return fn({ path, category, fh: f, facts, target: facts.target, lock });
      });
    },
    { signal },
  );
}

/** G.UR.3/4 */
export async function updateRequirement(
  projectRoot: string,
  env: Env,
  input: { index: string; text: string; title?: string | undefined },
  signal?: AbortSignal,
): Promise<Requirement> {
  const body = checkedBody(input.text);
  return lockedTarget(
    projectRoot,
    env,
    input.index,
    signal,
    async ({ path, category, fh, facts, target, lock }) => {
      const title = input.title ?? target.title; // step 3
      if (input.title !== undefined) {
        // Step 4: unique within the chapter, the requirement itself excepted.
        const owner = facts.chapter?.titles.get(title);
        if (owner !== undefined && owner !== target.index)
          throw titleTaken(title, owner, target.chapter, category);
      }
      // The revision line counts text changes (creation = 1, written only from 2 on); a title change or
      // the same text again keeps it.
      const next = nextRevision(await readBody(fh, target), body);
      const stored = withRevision(next.text, next.revision);
      const block = requirementBlock(target.index, title, stored, facts.summary.eol);
      await spliceFile(path, await planUpdate(fh, facts.summary, target, block), lock.assertHeld); // step 5
      return { index: target.index, title, text: next.text, category, chapter: target.chapter };
    },
  );
}

/** Beyond the spec: removes a requirement, and its chapter's heading when nothing else is left in it. */
export async function deleteRequirement(
  projectRoot: string,
  env: Env,
  index: string,
  signal?: AbortSignal,
): Promise<{ deleted: Requirement; chapter_removed: boolean }> {
  return lockedTarget(
    projectRoot,
    env,
    index,
    signal,
    async ({ path, category, fh, facts, target, lock }) => {
      const text = splitRevision(await readBody(fh, target)).text;
      const plan = await planDelete(fh, facts.summary, target, facts.chapter);
      await spliceFile(path, plan.splices, lock.assertHeld);
      return {
        deleted: { index: target.index, title: target.title, text, category, chapter: target.chapter },
        chapter_removed: plan.chapterRemoved,
      };
    },
  );
}
