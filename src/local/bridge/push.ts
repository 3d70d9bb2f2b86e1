/**
 * `reqlix-mcp push`: local changes since the last sync go up, as one interchange import (one transaction;
 * revisions with source `reqlix-mcp push`). Only requirements changed locally are sent, with the hosted
 * fields the files do not hold (status, priority, type, assignee) as the workspace has them; epics and
 * user stories are sent when new or renamed. A conflict anywhere stops the push before anything is sent.
 */
import { DomainError } from "../../core/errors.js";
import { exportWorkspace, importDocument } from "./hosted-client.js";
import type { LocalProject } from "./local-project.js";
import {
  ABSENT,
  type BridgeDocument,
  type EpicDoc,
  NEW_REQUIREMENT_STATUS,
  NEW_REQUIREMENT_TYPE,
  OBSOLETE,
  type RequirementDoc,
  type StoryDoc,
  sameId,
} from "./mapping.js";
import { nextRequirementsState, type Reconciliation, reconcile } from "./reconcile.js";
import {
  emptyResult,
  itemName,
  type SyncOptions,
  type SyncResult,
  saveState,
  settleConflicts,
  withSession,
} from "./session.js";

export const PUSH_SOURCE = "reqlix-mcp push";

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 20_000;

/** Builds the import document; `result` lists what it does. */
function planPush(
  project: LocalProject,
  rec: Reconciliation,
  hostedDoc: BridgeDocument,
  result: SyncResult,
): BridgeDocument {
  const requirements: RequirementDoc[] = [];
  const newIn = new Set<string>(); // chapter keys that get new requirements
  const problems: string[] = [];
  for (const item of rec.items) {
    const { local, hosted } = item;
    if (item.change === "local") {
      if (local) {
        if (local.title.length === 0 || local.title.length > TITLE_MAX)
          problems.push(
            `${local.index} (${local.category}.md) needs a title of 1–${TITLE_MAX} characters in the workspace; give it one with reqlix_update_requirement.`,
          );
        if (local.text.length > DESCRIPTION_MAX)
          problems.push(
            `${local.index} (${local.category}.md) has ${local.text.length} characters of text; the workspace holds at most ${DESCRIPTION_MAX}. Split it.`,
          );
      }
      if (local && hosted && item.hostedHash !== ABSENT) {
        requirements.push({
          ...hosted,
          title: local.title,
          description: local.text,
          external_id: local.index,
        });
        result.pushed.updated.push(local.index);
      } else if (local) {
        const story = rec.stories.get(local.chapterKey);
        requirements.push({
          external_id: local.index,
          title: local.title,
          description: local.text,
          user_story: story?.reference_id ?? local.chapterKey,
          type: NEW_REQUIREMENT_TYPE,
          status: NEW_REQUIREMENT_STATUS,
        });
        newIn.add(local.chapterKey);
        result.pushed.created.push(local.index);
      } else if (hosted) {
        // Removed from the files: Obsolete in the workspace (its history stays); the index is freed, as
        // reqlix may give it to a new requirement of the chapter.
        requirements.push({ ...hosted, status: OBSOLETE, external_id: null });
        result.pushed.obsoleted.push(itemName(item));
      }
    } else if (item.change === "hosted") {
      result.waiting.pull.push(itemName(item));
    } else {
      result.unchanged++;
    }
    // A requirement the pull brought down (or one paired by the last sync) gets its index as external id.
    if (
      item.change !== "local" &&
      local &&
      hosted &&
      item.hostedHash !== ABSENT &&
      !sameId(hosted.external_id, local.index)
    ) {
      requirements.push({ ...hosted, external_id: local.index });
      result.pushed.external_ids_set.push(local.index);
    }
  }
  requirements.unshift(...freedIndices(requirements, hostedDoc.requirements));
  if (problems.length > 0)
    throw DomainError.invalid(
      `Nothing was pushed: ${problems.length} requirement(s) cannot go to the workspace.\n- ${problems.join("\n- ")}`,
    );

  const epics: EpicDoc[] = [];
  const stories: StoryDoc[] = [];
  for (const category of project.categories) {
    const epic = rec.epics.get(category.prefix);
    let epicNeeded = !epic || epic.title !== category.name || !sameId(epic.external_id, category.prefix);
    for (const chapter of category.chapters) {
      const story = rec.stories.get(chapter.key);
      const renamed = story && (story.title !== chapter.name || !sameId(story.external_id, chapter.key));
      if (story && !renamed && !newIn.has(chapter.key)) continue;
      if (!story && !newIn.has(chapter.key)) continue;
      stories.push(
        story
          ? { ...story, title: chapter.name, external_id: chapter.key }
          : {
              external_id: chapter.key,
              title: chapter.name,
              description: "",
              epic: epic?.reference_id ?? category.prefix,
            },
      );
      epicNeeded ||= !epic;
    }
    // An epic is sent when new or renamed, or (unchanged) as the parent of a story that is sent.
    if (epicNeeded || stories.some((s) => s.epic === epic?.reference_id || s.epic === category.prefix)) {
      epics.push(
        epic
          ? { ...epic, title: category.name, external_id: category.prefix }
          : { external_id: category.prefix, title: category.name, description: "" },
      );
    }
  }
  return { format: "reqlix-export", version: 1, epics, user_stories: stories, requirements };
}

/**
 * External ids are unique per workspace: an index given to one requirement is first taken from any other
 * that still holds it (one made Obsolete in the workspace and deleted by a pull, whose index reqlix then
 * reused). Those clearing updates go first in the document, so the import applies them first.
 */
function freedIndices(sent: RequirementDoc[], hosted: RequirementDoc[]): RequirementDoc[] {
  const inDoc = new Set(sent.map((r) => r.reference_id).filter((r) => r !== undefined));
  const out: RequirementDoc[] = [];
  for (const r of sent) {
    if (!r.reference_id || typeof r.external_id !== "string") continue;
    for (const holder of hosted) {
      if (holder.external_id === r.external_id && holder.reference_id && !inDoc.has(holder.reference_id)) {
        out.push({ ...holder, external_id: null });
        inDoc.add(holder.reference_id);
      }
    }
  }
  return out;
}

function hasWork(doc: BridgeDocument): boolean {
  return doc.epics.length + doc.user_stories.length + doc.requirements.length > 0;
}

export async function push(options: SyncOptions): Promise<SyncResult> {
  return withSession(options, async (session) => {
    const result = emptyResult("push", options.target);
    const rec = reconcile(session.project, session.doc, session.state);
    if (settleConflicts(rec.items, result, options.force, "local")) return result;
    const doc = planPush(session.project, rec, session.doc, result);
    let after = rec;
    if (hasWork(doc)) {
      await importDocument(options.target, doc, PUSH_SOURCE, options.signal);
      // A created requirement pairs by its external id: a forced re-creation drops the old pair.
      const requirements = { ...session.state.requirements };
      for (const index of result.pushed.created) delete requirements[index.toUpperCase()];
      after = reconcile(session.project, await exportWorkspace(options.target, options.signal), {
        ...session.state,
        requirements,
      });
    }
    await saveState(session, after, nextRequirementsState(after.items));
    return result;
  });
}
