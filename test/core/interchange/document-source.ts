import type { InterchangeDocument } from "../../../src/core/interchange/document.js";
import type { ExportSource } from "../../../src/core/interchange/formats.js";

/** An export source over a document in memory, answering like the database's (by reference id). */
export function documentSource(doc: InterchangeDocument, exportedAt: string): ExportSource {
  async function* each<T>(items: T[]): AsyncIterable<T> {
    yield* items;
  }
  return {
    header: {
      exported_at: exportedAt,
      workspace: { slug: "acme", name: "Acme" },
      scope: { kind: "workspace" },
      requirement_types: doc.requirement_types,
      relationship_types: doc.relationship_types,
    },
    epics: () => each(doc.epics),
    userStories: () => each(doc.user_stories),
    requirements: () => each(doc.requirements),
    acceptanceCriteria: () => each(doc.acceptance_criteria),
    relationships: () => each(doc.relationships),
    comments: () => each(doc.comments),
    userStoriesOf: (epic) => each(doc.user_stories.filter((s) => s.epic === epic)),
    requirementsOf: (story) => each(doc.requirements.filter((r) => r.user_story === story)),
    criteriaOf: (story) => each(doc.acceptance_criteria.filter((c) => c.user_story === story)),
  };
}
