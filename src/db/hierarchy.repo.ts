/**
 * A user story, or an epic, with everything under it, read a page at a time (issue item 8: a story of
 * 3,000 requirements was 13 MB in one answer). A page is a walk in a fixed order that stops at `limit`
 * items or when the next item would pass `maxBytes`, and leaves a keyset cursor at the last item shown:
 *
 *   epic:  story 1, its requirements (priority ↑, created_at ↓, id ↓), its criteria (id ↑), story 2, …
 *   story: its requirements, then its criteria.
 *
 * Each step reads at most what is left of the page (plus one row, to know whether more follow), so a page
 * costs the same whatever the size of the story or epic.
 */

import type { AcceptanceCriterion, Epic, Requirement, UserStory } from "../core/domain.js";
import { criteriaOfUserStoryAfter } from "./acceptance-criteria.repo.js";
import type { Executor } from "./database.js";
import { decodeCursor, encodeCursor, isPositiveInt } from "./entity-support.js";
import { requireEpicRow, toEpic } from "./epics.repo.js";
import { isRequirementKey, type RequirementKey, requirementsOfUserStoryAfter } from "./requirements.repo.js";
import { requireUserStoryRow, toUserStory, userStoriesOfEpicAfter } from "./user-stories.repo.js";

export interface StoryTree extends UserStory {
  requirements: Requirement[];
  acceptance_criteria: AcceptanceCriterion[];
}

export interface EpicTree extends Epic {
  user_stories: StoryTree[];
}

/** How much one page may hold: items, and bytes as the caller measures them (what it will send). */
export interface PageBudget {
  limit: number;
  maxBytes: number;
  size(item: Epic | UserStory | Requirement | AcceptanceCriterion): number;
}

export type Paged<T> = T & { next_cursor?: string };

/** Counts what a page holds; the first item always fits, so every page moves forward. */
class Filler {
  count = 0;
  bytes = 0;
  constructor(private readonly budget: PageBudget) {}
  get left(): number {
    return Math.max(0, this.budget.limit - this.count);
  }
  /** Takes `item` if it fits; false when the page is full. */
  take(item: UserStory | Requirement | AcceptanceCriterion): boolean {
    if (this.count >= this.budget.limit) return false;
    const size = this.budget.size(item);
    if (this.count > 0 && this.bytes + size > this.budget.maxBytes) return false;
    this.count++;
    this.bytes += size;
    return true;
  }
  /** The epic or story a page is about (or a story continued from the last page): bytes, not an item. */
  carry(item: Epic | UserStory): void {
    this.bytes += this.budget.size(item);
  }
}

/** Where a walk stopped inside one story: after its header (0), a requirement (1), a criterion (2). */
type StoryPos = [0] | [1, number, string, number] | [2, number];

const isStoryPos = (k: unknown): k is StoryPos =>
  Array.isArray(k) &&
  ((k.length === 1 && k[0] === 0) ||
    (k[0] === 1 && isRequirementKey(k.slice(1))) ||
    (k.length === 2 && k[0] === 2 && isPositiveInt(k[1])));

interface StoryPart {
  requirements: Requirement[];
  acceptance_criteria: AcceptanceCriterion[];
  last: StoryPos;
  more: boolean;
}

/** The requirements, then the criteria, of one story after `pos`, as many as the page still holds. */
async function fillStory(
  ex: Executor,
  workspaceId: number,
  storyRowId: number,
  pos: StoryPos,
  page: Filler,
): Promise<StoryPart> {
  const part: StoryPart = { requirements: [], acceptance_criteria: [], last: pos, more: false };
  if (pos[0] !== 2) {
    const after = pos[0] === 1 ? (pos.slice(1) as RequirementKey) : undefined;
    const rows = await requirementsOfUserStoryAfter(ex, workspaceId, storyRowId, after, page.left + 1);
    for (const { item, key } of rows) {
      if (!page.take(item)) return { ...part, more: true };
      part.requirements.push(item);
      part.last = [1, ...key];
    }
  }
  const afterId = part.last[0] === 2 ? part.last[1] : 0;
  const rows = await criteriaOfUserStoryAfter(ex, workspaceId, storyRowId, afterId, page.left + 1);
  for (const { item, key } of rows) {
    if (!page.take(item)) return { ...part, more: true };
    part.acceptance_criteria.push(item);
    part.last = [2, key];
  }
  return part;
}

/** A user story with a page of its requirements (story order), then of its acceptance criteria. */
export async function userStoryPage(
  ex: Executor,
  workspaceId: number,
  storyReference: string,
  budget: PageBudget,
  cursor?: string,
): Promise<Paged<StoryTree>> {
  const tag = `user_story:${storyReference}`;
  const pos = decodeCursor(tag, cursor, isStoryPos) ?? [0];
  const row = await requireUserStoryRow(ex, workspaceId, storyReference);
  const { id } = row;
  const story = toUserStory(row);
  const page = new Filler(budget);
  page.carry(story);
  const part = await fillStory(ex, workspaceId, id, pos, page);
  return {
    ...story,
    requirements: part.requirements,
    acceptance_criteria: part.acceptance_criteria,
    ...(part.more ? { next_cursor: encodeCursor(tag, part.last) } : {}),
  };
}

/** Where an epic walk stopped: in a story (its row id and the place in it), or after it (3). */
type EpicPos = [number, ...StoryPos] | [number, 3];

const isEpicPos = (k: unknown): k is EpicPos =>
  Array.isArray(k) && isPositiveInt(k[0]) && ((k.length === 2 && k[1] === 3) || isStoryPos(k.slice(1)));

/** An epic with a page of its stories, each with its requirements and criteria (see the walk above). */
export async function epicHierarchyPage(
  ex: Executor,
  workspaceId: number,
  epicReference: string,
  budget: PageBudget,
  cursor?: string,
): Promise<Paged<EpicTree>> {
  const tag = `epic_hierarchy:${epicReference}`;
  const pos = decodeCursor(tag, cursor, isEpicPos);
  const epic = await requireEpicRow(ex, workspaceId, epicReference);
  const page = new Filler(budget);
  page.carry(toEpic(epic));
  const stories: StoryTree[] = [];
  const done = (next?: EpicPos): Paged<EpicTree> => ({
    ...toEpic(epic),
    user_stories: stories,
    ...(next ? { next_cursor: encodeCursor(tag, next) } : {}),
  });
  const add = (story: UserStory, part: StoryPart) =>
    stories.push({
      ...story,
      requirements: part.requirements,
      acceptance_criteria: part.acceptance_criteria,
    });

  let afterStory = pos?.[0] ?? 0;
  if (pos && pos[1] !== 3) {
    // Continue inside the story the last page stopped in (unless it was deleted since).
    const resumed = await userStoriesOfEpicAfter(ex, workspaceId, epic.id, pos[0] - 1, 1);
    const story = resumed[0];
    if (story && story.id === pos[0]) {
      const { id, ...shown } = story;
      page.carry(shown);
      const part = await fillStory(ex, workspaceId, id, pos.slice(1) as StoryPos, page);
      add(shown, part);
      if (part.more) return done([id, ...part.last]);
    }
  }
  for (;;) {
    const wanted = page.left + 1;
    const batch = await userStoriesOfEpicAfter(ex, workspaceId, epic.id, afterStory, wanted);
    for (const { id, ...story } of batch) {
      if (!page.take(story)) return done([afterStory, 3]);
      const part = await fillStory(ex, workspaceId, id, [0], page);
      add(story, part);
      if (part.more) return done([id, ...part.last]);
      afterStory = id;
    }
    if (batch.length < wanted) return done();
  }
}

/** A user story with the first page of its acceptance criteria only (the story's own resource). */
export async function userStoryCriteriaPage(
  ex: Executor,
  workspaceId: number,
  storyReference: string,
  budget: PageBudget,
): Promise<UserStory & { acceptance_criteria: AcceptanceCriterion[]; more: boolean }> {
  const row = await requireUserStoryRow(ex, workspaceId, storyReference);
  const { id } = row;
  const story = toUserStory(row);
  const page = new Filler(budget);
  page.carry(story);
  const part = await fillStory(ex, workspaceId, id, [2, 0], page);
  return { ...story, acceptance_criteria: part.acceptance_criteria, more: part.more };
}
