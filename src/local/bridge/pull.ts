/**
 * `reqlix-mcp pull`: workspace changes since the last sync come down into the markdown files through the
 * reqlix store (category locks, atomic rewrites, the revision line): an edited requirement is updated, a
 * requirement new in a mapped user story is inserted into its chapter (it gets the next index there), one
 * deleted or made Obsolete in the workspace is deleted from its file. Everything is checked before the
 * first write; a conflict or a requirement the files cannot hold stops the pull with nothing written.
 */
import { DomainError } from "../../core/errors.js";
import { bodyProblem, normalizeBody, parseIndex } from "../reqlix/markdown.js";
import { deleteRequirement, insertRequirement, updateRequirement } from "../reqlix/requirements-store.js";
import { indexKey, readLocalProject } from "./local-project.js";
import { ABSENT, hostedHash, type RequirementDoc } from "./mapping.js";
import { type ChapterTarget, type Item, nextRequirementsState, reconcile } from "./reconcile.js";
import {
  emptyResult,
  itemName,
  type SyncOptions,
  type SyncResult,
  saveState,
  settleConflicts,
  withSession,
} from "./session.js";
import type { TargetState } from "./sync-state.js";

/** The limits of the reqlix tools (G.P.1), so a pulled requirement can be read and edited afterwards. */
const TITLE_MAX = 100;

type Write =
  | { kind: "update"; index: string; title: string; text: string }
  | { kind: "delete"; index: string; title: string; place: string }
  | { kind: "insert"; hosted: RequirementDoc; target: ChapterTarget; title: string; text: string };

function titleProblem(title: string): string | undefined {
  if (title.length === 0) return "its title is empty";
  if (title.length > TITLE_MAX)
    return `its title has ${title.length} characters (reqlix titles hold at most ${TITLE_MAX})`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a heading cannot hold
  if (/[\u0000-\u001f\u007f\u2028\u2029]/.test(title))
    return "its title holds a line break or control character";
  if (title.trim() !== title) return "its title starts or ends with spaces";
  return undefined;
}

function chapterProblem(name: string): string | undefined {
  const problem = titleProblem(name);
  return problem ? `cannot be a chapter name: ${problem.replace("its title", "its name")}` : undefined;
}

function textProblem(text: string): string | undefined {
  if (normalizeBody(text).length === 0) return "its description is empty (a reqlix requirement needs a body)";
  return bodyProblem(normalizeBody(text));
}

/** Where a title must be unique: one chapter of one category. */
function placeOf(category: string, chapter: string): string {
  return `${category}\u0000${chapter}`;
}

function planPull(items: Item[], targets: Map<string, ChapterTarget>, result: SyncResult): Write[] {
  const writes: Write[] = [];
  const problems: string[] = [];
  for (const item of items) {
    if (item.change === "local") {
      result.waiting.push.push(itemName(item));
      continue;
    }
    if (item.change !== "hosted") {
      result.unchanged++;
      continue;
    }
    const { local, hosted } = item;
    const live = hosted && item.hostedHash !== ABSENT ? hosted : undefined;
    const name = `${itemName(item)}${hosted?.reference_id && local ? ` (${hosted.reference_id})` : ""}`;
    if (live) {
      const problem = titleProblem(live.title) ?? textProblem(live.description ?? "");
      if (problem) {
        problems.push(`${name}: ${problem}. Fix it in the workspace and pull again.`);
        continue;
      }
    }
    if (local && live) {
      writes.push({ kind: "update", index: local.index, title: live.title, text: live.description ?? "" });
    } else if (local) {
      writes.push({
        kind: "delete",
        index: local.index,
        title: local.title,
        place: placeOf(local.category, local.chapter),
      });
    } else if (live) {
      const target = targets.get(live.user_story.toUpperCase());
      if (!target) continue; // only reachable through a mapped story (reconcile step 3)
      const problem = target.key === undefined ? chapterProblem(target.chapter) : undefined;
      if (problem) {
        problems.push(
          `${live.reference_id}: its user story ${live.user_story} ${problem}. Rename the story and pull again.`,
        );
        continue;
      }
      writes.push({ kind: "insert", hosted: live, target, title: live.title, text: live.description ?? "" });
    }
  }
  // Titles are unique in a chapter: what the chapter will hold after the pull must be.
  const titles = new Map<string, string>();
  const deleted = new Set(writes.flatMap((w) => (w.kind === "delete" ? [w.index] : [])));
  const retitled = new Map(writes.flatMap((w) => (w.kind === "update" ? [[w.index, w.title] as const] : [])));
  const chapters = new Map<string, string>(); // place → key of the chapters holding requirements
  for (const item of items) {
    const l = item.local;
    if (!l) continue;
    chapters.set(placeOf(l.category, l.chapter), l.chapterKey);
    if (!deleted.has(l.index))
      titles.set(`${placeOf(l.category, l.chapter)} ${retitled.get(l.index) ?? l.title}`, l.index);
  }
  for (const w of writes) {
    if (w.kind !== "insert") continue;
    const place = placeOf(w.target.category, w.target.chapter);
    const holder = chapters.get(place);
    if (w.target.key === undefined && holder !== undefined) {
      problems.push(
        `${w.hosted.reference_id}: its user story ${w.hosted.user_story} is new in the workspace, but ${w.target.category}.md already has a chapter "${w.target.chapter}" (${holder}). Rename the story and pull again.`,
      );
      continue;
    }
    const key = `${place} ${w.title}`;
    const owner = titles.get(key);
    if (owner !== undefined)
      problems.push(
        `${w.hosted.reference_id}: its title "${w.title}" is already the title of ${owner} in chapter "${w.target.chapter}". Rename one of them and sync again.`,
      );
    titles.set(key, w.hosted.reference_id ?? "?");
  }
  if (problems.length > 0)
    throw DomainError.invalid(
      `Nothing was pulled: ${problems.length} requirement(s) of the workspace cannot be written as reqlix markdown.\n- ${problems.join("\n- ")}`,
    );
  return writes;
}

/** The state's pairs less those of the reference ids an insert re-paired (a forced re-insertion). */
function withoutRefs(
  pairs: TargetState["requirements"],
  inserted: TargetState["requirements"],
): TargetState["requirements"] {
  const refs = new Set(Object.values(inserted).map((p) => p.reference_id));
  return Object.fromEntries(Object.entries(pairs).filter(([, p]) => !refs.has(p.reference_id)));
}

export async function pull(options: SyncOptions): Promise<SyncResult> {
  return withSession(options, async (session) => {
    const result = emptyResult("pull", options.target);
    const rec = reconcile(session.project, session.doc, session.state);
    if (settleConflicts(rec.items, result, options.force, "hosted")) return result;
    const writes = planPull(rec.items, rec.targetOfStory, result);
    const { projectRoot, env, signal } = options;
    // Pairs the inserts make (new index ↔ reference id): the workspace learns the index on the next push.
    const inserted: TargetState["requirements"] = {};
    const newStories: TargetState["stories"] = {};
    // Updates, then inserts, then deletes: a requirement new in the workspace gets a fresh index, never
    // the number of one deleted in the same pull (code may still cite that one). A delete whose title an
    // insert takes goes first, as titles are unique in a chapter.
    const insertedTitles = new Set(
      writes.flatMap((w) =>
        w.kind === "insert" ? [`${placeOf(w.target.category, w.target.chapter)} ${w.title}`] : [],
      ),
    );
    const early = (w: Write) => w.kind === "delete" && insertedTitles.has(`${w.place} ${w.title}`);
    const ordered = [
      ...writes.filter((w) => w.kind === "update"),
      ...writes.filter(early),
      ...writes.filter((w) => w.kind === "insert"),
      ...writes.filter((w) => w.kind === "delete" && !early(w)),
    ];
    for (const w of ordered) {
      if (w.kind === "delete") {
        await deleteRequirement(projectRoot, env, w.index, signal);
        result.pulled.deleted.push(w.index);
      } else if (w.kind === "update") {
        await updateRequirement(projectRoot, env, { index: w.index, title: w.title, text: w.text }, signal);
        result.pulled.updated.push(w.index);
      } else {
        const made = await insertRequirement(
          projectRoot,
          env,
          { category: w.target.category, chapter: w.target.chapter, title: w.title, text: w.text },
          signal,
        );
        const ref = w.hosted.reference_id as string;
        result.pulled.inserted.push({ index: made.index, reference_id: ref });
        inserted[indexKey(made.index)] = {
          reference_id: ref,
          hash: hostedHash(w.hosted),
          hosted_revision: w.hosted.revision ?? 0,
        };
        // A new chapter's key is known once its first requirement has an index: the story maps to it.
        if (w.target.key === undefined) {
          const parts = parseIndex(made.index);
          if (parts)
            newStories[`${parts.categoryPrefix}.${parts.chapterPrefix}`.toUpperCase()] = w.hosted.user_story;
        }
      }
    }
    // The state is what both sides hold now: the files read back after the writes.
    const project = writes.length > 0 ? await readLocalProject(projectRoot, env) : session.project;
    const after = reconcile(project, session.doc, {
      ...session.state,
      stories: { ...session.state.stories, ...newStories },
      requirements: { ...withoutRefs(session.state.requirements, inserted), ...inserted },
    });
    await saveState(session, after, nextRequirementsState(after.items));
    return result;
  });
}
