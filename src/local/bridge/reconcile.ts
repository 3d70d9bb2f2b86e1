/**
 * Three-way reconciliation of the bridge: the files now, the workspace now, and what both held at the
 * last sync (`sync-state.ts`). Each requirement is paired across the sides, then classified:
 *
 * - `none`: neither side changed; `local` / `hosted`: only that side changed (push / pull carries it);
 * - `converged`: both changed to the same title and text (recorded, nothing to carry);
 * - `conflict`: both changed differently (reported with both versions; nothing is written anywhere).
 *
 * Pairing, in order: the last sync's pairs (index ↔ reference id); then an index ↔ a live hosted
 * requirement whose external id is that index; what is left is new on its side (a hosted requirement is
 * new only inside a user story that maps to a chapter).
 */
import { indexKey, type LocalChapter, type LocalProject, type LocalRequirement } from "./local-project.js";
import {
  ABSENT,
  type BridgeDocument,
  contentHash,
  type EpicDoc,
  hostedHash,
  OBSOLETE,
  type RequirementDoc,
  type StoryDoc,
  sameId,
} from "./mapping.js";
import type { SyncedRequirement, TargetState } from "./sync-state.js";

export type Change = "none" | "local" | "hosted" | "converged" | "conflict";

export interface Item {
  /** Upper-case index key when the requirement exists (or existed at the last sync) locally. */
  key: string | undefined;
  local: LocalRequirement | undefined;
  hosted: RequirementDoc | undefined;
  base: SyncedRequirement | undefined;
  localHash: string;
  hostedHash: string;
  change: Change;
}

export interface Reconciliation {
  items: Item[];
  /** Category prefix → the hosted epic it maps to (when it exists). */
  epics: Map<string, EpicDoc>;
  /** Chapter key → the hosted user story it maps to (when it exists). */
  stories: Map<string, StoryDoc>;
  /**
   * User story reference id → the chapter its new requirements go to: the chapter it maps to, or, for a
   * story new in a mapped epic, a new chapter of that category named after it (`key` unknown until the
   * first insert gives it a prefix).
   */
  targetOfStory: Map<string, ChapterTarget>;
}

export interface ChapterTarget {
  category: string;
  chapter: string;
  key: string | undefined;
}

function classify(base: string, local: string, hosted: string): Change {
  const localChanged = local !== base;
  const hostedChanged = hosted !== base;
  if (!localChanged && !hostedChanged) return "none";
  if (localChanged && !hostedChanged) return "local";
  if (!localChanged && hostedChanged) return "hosted";
  return local === hosted ? "converged" : "conflict";
}

function byRef<T extends { reference_id?: string }>(list: T[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const e of list) if (e.reference_id) out.set(e.reference_id.toUpperCase(), e);
  return out;
}

/** The hosted entity a local key maps to: the last sync's pair first, then the external id. */
function mapped<T extends { reference_id?: string; external_id?: string | null }>(
  key: string,
  remembered: string | undefined,
  refs: Map<string, T>,
  all: T[],
): T | undefined {
  const known = remembered ? refs.get(remembered.toUpperCase()) : undefined;
  return known ?? all.find((e) => sameId(e.external_id, key));
}

export function reconcile(project: LocalProject, doc: BridgeDocument, state: TargetState): Reconciliation {
  const epicRefs = byRef(doc.epics);
  const storyRefs = byRef(doc.user_stories);
  const reqRefs = byRef(doc.requirements);
  const epics = new Map<string, EpicDoc>();
  const stories = new Map<string, StoryDoc>();
  const targetOfStory = new Map<string, ChapterTarget>();
  const categoryOfEpic = new Map<string, string>();
  for (const category of project.categories) {
    const epic = mapped(category.prefix, state.epics[category.prefix], epicRefs, doc.epics);
    if (epic?.reference_id) {
      epics.set(category.prefix, epic);
      categoryOfEpic.set(epic.reference_id.toUpperCase(), category.name);
    }
    for (const chapter of category.chapters) {
      const story = mapped(chapter.key, state.stories[chapter.key], storyRefs, doc.user_stories);
      if (story?.reference_id) {
        stories.set(chapter.key, story);
        targetOfStory.set(story.reference_id.toUpperCase(), targetOf(chapter, category.name));
      }
    }
  }
  // A story new in a mapped epic becomes a chapter; one the last sync knew (its chapter since emptied) not.
  const known = new Set(Object.values(state.stories).map((r) => r.toUpperCase()));
  for (const story of doc.user_stories) {
    const ref = story.reference_id?.toUpperCase();
    const category = categoryOfEpic.get(story.epic.toUpperCase());
    if (!ref || !category || targetOfStory.has(ref) || known.has(ref) || story.external_id) continue;
    targetOfStory.set(ref, { category, chapter: story.title, key: undefined });
  }

  const items: Item[] = [];
  const takenLocal = new Set<string>();
  const takenHosted = new Set<string>();
  const add = (
    key: string | undefined,
    local: LocalRequirement | undefined,
    hosted: RequirementDoc | undefined,
    base: SyncedRequirement | undefined,
  ) => {
    if (key && local) takenLocal.add(key);
    if (hosted?.reference_id) takenHosted.add(hosted.reference_id.toUpperCase());
    const localHash = local ? contentHash(local.title, local.text) : ABSENT;
    const remote = hostedHash(hosted);
    items.push({
      key,
      local,
      hosted,
      base,
      localHash,
      hostedHash: remote,
      change: classify(base?.hash ?? ABSENT, localHash, remote),
    });
  };

  // 1. The last sync's pairs.
  for (const [key, base] of Object.entries(state.requirements)) {
    const hosted = reqRefs.get(base.reference_id.toUpperCase());
    add(key, project.requirements.get(key), hosted, base);
  }
  // 2. A local index and the live hosted requirement that carries it as its external id.
  for (const [key, local] of project.requirements) {
    if (takenLocal.has(key)) continue;
    const hosted = doc.requirements.find(
      (r) =>
        r.status !== OBSOLETE &&
        sameId(r.external_id, key) &&
        !takenHosted.has((r.reference_id ?? "").toUpperCase()),
    );
    add(key, local, hosted, undefined);
  }
  // 3. Live hosted requirements new in a story that maps to a chapter.
  for (const r of doc.requirements) {
    const ref = r.reference_id?.toUpperCase();
    if (!ref || takenHosted.has(ref) || r.status === OBSOLETE) continue;
    if (!targetOfStory.has(r.user_story.toUpperCase())) continue;
    add(undefined, undefined, r, undefined);
  }
  return { items, epics, stories, targetOfStory };
}

function targetOf(chapter: LocalChapter, category: string): ChapterTarget {
  return { category, chapter: chapter.name, key: chapter.key };
}

/** The version of one side of an item, for reports. */
export interface Version {
  title: string;
  text: string;
  revision?: number;
  status?: string;
}

export interface Conflict {
  index: string | null;
  reference_id: string | null;
  /** null: deleted on that side (or Obsolete in the workspace). */
  local: Version | null;
  hosted: Version | null;
}

export function conflictOf(item: Item): Conflict {
  const h = item.hosted;
  return {
    index: item.local?.index ?? item.key ?? null,
    reference_id: h?.reference_id ?? item.base?.reference_id ?? null,
    local: item.local
      ? { title: item.local.title, text: item.local.text, revision: item.local.localRevision }
      : null,
    hosted:
      h && h.status !== OBSOLETE
        ? {
            title: h.title,
            text: h.description ?? "",
            ...(h.revision !== undefined ? { revision: h.revision } : {}),
            ...(typeof h.status === "string" ? { status: h.status } : {}),
          }
        : null,
  };
}

/** The state after a sync: every pair whose sides now agree is remembered; others keep their old entry. */
export function nextRequirementsState(items: Item[]): Record<string, SyncedRequirement> {
  const out: Record<string, SyncedRequirement> = {};
  for (const item of items) {
    const key = item.local ? indexKey(item.local.index) : item.key;
    if (!key) continue;
    const ref = item.hosted?.reference_id;
    if (item.localHash === item.hostedHash) {
      if (item.localHash === ABSENT || !ref) continue; // gone on both sides: forgotten
      out[key] = { reference_id: ref, hash: item.localHash, hosted_revision: item.hosted?.revision ?? 0 };
    } else if (item.base) {
      out[key] = item.base;
    }
  }
  return out;
}
