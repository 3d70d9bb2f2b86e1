/** The shapes of the tool results the pages read (what the tools' output schemas advertise). */
export interface Requirement {
  reference_id: string;
  user_story_id: string;
  title: string;
  description: string;
  status: string;
  priority: number;
  type_name: string;
  creator_username: string | null;
  assignee_username: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
  coverage?: string;
}
export interface Criterion {
  reference_id: string;
  user_story_id: string;
  title: string;
  description: string;
  revision: number;
  updated_at: string;
}
export interface WorkItem {
  reference_id: string;
  title: string;
  description: string;
  status: string;
  priority: number;
  creator_username: string | null;
  assignee_username: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
}
export interface Story extends WorkItem {
  epic_id: string;
  requirements: Requirement[];
  acceptance_criteria: Criterion[];
  next_cursor?: string;
}
export interface EpicTree extends WorkItem {
  user_stories: Story[];
  next_cursor?: string;
}
export interface Page<T> {
  items: T[];
  next_cursor?: string;
}
export interface Relationship {
  source_requirement_id: string;
  target_requirement_id: string;
  relationship_type: string;
  revision: number;
  suspect: boolean;
}
export interface RequirementWithLinks extends Requirement {
  coverage: string;
  relationships: { outgoing: Relationship[]; incoming: Relationship[] };
}
export interface Revision {
  reference_id: string;
  revision: number;
  op: string;
  username: string | null;
  created_at: string;
  change_note: string | null;
  source: string | null;
  tool: string | null;
}
export interface Diff {
  reference_id: string;
  from: { revision: number; username: string | null; created_at: string };
  to: { revision: number; username: string | null; created_at: string };
  changes: { field: string; from: unknown; to: unknown }[];
}
export interface Comment {
  comment_id: number;
  revision: number;
  username: string | null;
  text: string;
  resolved: boolean;
  created_at: string;
}
export interface Verdict {
  username: string;
  verdict: string;
  revision: number;
  comment: string | null;
  created_at: string;
  current: boolean;
}
export interface Traces {
  coverage: string;
  counts: { impl: number; test: number; doc: number; suspect: number };
  repositories: {
    repository: string;
    commit: string;
    branch?: string | null;
    citations: {
      file: string;
      line: number;
      kind: string;
      test_name: string | null;
      revision: number | null;
      suspect: boolean;
    }[];
    citations_not_shown: number;
    commits: { sha: string; subject: string }[];
  }[];
}

export const REQUIREMENT_STATUSES = ["Draft", "Active", "Obsolete"];
export const ENTITY_STATUSES = ["Backlog", "Draft", "In Progress", "Done", "Cancelled"];
export const COVERAGES = ["covered", "impl_only", "test_only", "uncovered"];
