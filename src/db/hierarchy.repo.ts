/**
 * An epic with everything under it, read in four queries whatever its size: the epic, its stories, and the
 * requirements and acceptance criteria of all those stories at once.
 */

import type { AcceptanceCriterion, Epic, Requirement, UserStory } from "../core/domain.js";
import { criteriaOfUserStories } from "./acceptance-criteria.repo.js";
import type { Executor } from "./database.js";
import { requireEpicRow, toEpic } from "./epics.repo.js";
import { requirementsOfUserStories } from "./requirements.repo.js";
import { requireUserStoryRow, userStoriesOfEpic } from "./user-stories.repo.js";

export interface StoryTree extends UserStory {
  requirements: Requirement[];
  acceptance_criteria: AcceptanceCriterion[];
}

export interface EpicTree extends Epic {
  user_stories: StoryTree[];
}

export async function epicHierarchy(
  ex: Executor,
  workspaceId: number,
  epicReference: string,
): Promise<EpicTree> {
  const epic = await requireEpicRow(ex, workspaceId, epicReference);
  const stories = await userStoriesOfEpic(ex, workspaceId, epic.id);
  const ids = stories.map((s) => s.id);
  const [requirements, criteria] = await Promise.all([
    requirementsOfUserStories(ex, workspaceId, ids),
    criteriaOfUserStories(ex, workspaceId, ids),
  ]);
  return {
    ...toEpic(epic),
    user_stories: stories.map(({ id: _id, ...s }) => ({
      ...s,
      requirements: requirements.filter((r) => r.user_story_id === s.reference_id),
      acceptance_criteria: criteria.filter((c) => c.user_story_id === s.reference_id),
    })),
  };
}

/** A user story with its requirements (priority, then newest first) and its acceptance criteria. */
export async function userStoryTree(
  ex: Executor,
  workspaceId: number,
  storyReference: string,
): Promise<StoryTree> {
  const { id, epic_row_id: _epic, ...story } = await requireUserStoryRow(ex, workspaceId, storyReference);
  const [requirements, criteria] = await Promise.all([
    requirementsOfUserStories(ex, workspaceId, [id]),
    criteriaOfUserStories(ex, workspaceId, [id]),
  ]);
  return { ...story, requirements, acceptance_criteria: criteria };
}
