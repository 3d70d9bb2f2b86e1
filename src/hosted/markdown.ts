/** Markdown views of entities, for resources people read and for prompt context. */
import {
  type AcceptanceCriterion,
  type Epic,
  type InterchangeFields,
  PRIORITY_NAMES,
  type Relationship,
  type Requirement,
  type UserStory,
} from "../core/domain.js";
import type { EpicTree, StoryTree } from "../db/hierarchy.repo.js";

const priorityText = (p: number) => `${p} (${PRIORITY_NAMES[p] ?? "?"})`;
const who = (name: string | null) => name ?? "—";
const body = (text: string) => (text.trim() === "" ? "_No description._" : text.trim());

function facts(lines: [string, string][], item?: InterchangeFields): string {
  return [...lines, ...interchangeFacts(item)].map(([k, v]) => `- ${k}: ${v}`).join("\n");
}

/** External id and imported attributes, only when the item has them. */
function interchangeFacts(item: InterchangeFields | undefined): [string, string][] {
  if (!item) return [];
  return [
    ...(item.external_id !== undefined ? [["External id", item.external_id] as [string, string]] : []),
    ...(item.attributes !== undefined
      ? [["Attributes", JSON.stringify(item.attributes)] as [string, string]]
      : []),
  ];
}

export function epicMarkdown(e: Epic): string {
  return `# ${e.reference_id}: ${e.title}

${facts(
  [
    ["Status", e.status],
    ["Priority", priorityText(e.priority)],
    ["Creator", who(e.creator_username)],
    ["Assignee", who(e.assignee_username)],
    ["Created", e.created_at],
    ["Updated", e.updated_at],
  ],
  e,
)}

${body(e.description)}
`;
}

/** A story's facts and text; with its acceptance criteria when given. */
export function userStoryMarkdown(s: UserStory, criteria?: AcceptanceCriterion[]): string {
  const list =
    criteria === undefined
      ? ""
      : `\n## Acceptance criteria\n\n${criteria.map(criterionLine).join("\n") || "_None yet._"}\n`;
  return `# ${s.reference_id}: ${s.title}

${facts(
  [
    ["Epic", s.epic_id],
    ["Status", s.status],
    ["Priority", priorityText(s.priority)],
    ["Creator", who(s.creator_username)],
    ["Assignee", who(s.assignee_username)],
    ["Created", s.created_at],
    ["Updated", s.updated_at],
  ],
  s,
)}

${body(s.description)}
${list}`;
}

export function requirementMarkdown(
  r: Requirement,
  relationships?: { outgoing: Relationship[]; incoming: Relationship[] },
  coverage?: string,
): string {
  const links = relationships
    ? `\n## Relationships\n\n${
        [
          ...relationships.outgoing.map(
            (l) => `- ${l.relationship_type} → ${l.target_requirement_id}${suspectNote(l)}`,
          ),
          ...relationships.incoming.map(
            (l) => `- ${l.source_requirement_id} ${l.relationship_type} → this${suspectNote(l)}`,
          ),
        ].join("\n") || "_None._"
      }\n`
    : "";
  return `# ${r.reference_id}: ${r.title}

${facts(
  [
    ["User story", r.user_story_id],
    ["Type", r.type_name],
    ["Status", r.status],
    ["Priority", priorityText(r.priority)],
    ["Creator", who(r.creator_username)],
    ["Assignee", who(r.assignee_username)],
    ["Created", r.created_at],
    ["Updated", r.updated_at],
    ...(coverage === undefined ? [] : [["Coverage", coverage] as [string, string]]),
  ],
  r,
)}

${body(r.description)}
${links}`;
}

export function criterionMarkdown(c: AcceptanceCriterion): string {
  return `# ${c.reference_id}: ${c.title}

${facts(
  [
    ["User story", c.user_story_id],
    ["Creator", who(c.creator_username)],
    ["Created", c.created_at],
    ["Updated", c.updated_at],
  ],
  c,
)}

${body(c.description)}
`;
}

function requirementLine(r: Requirement): string {
  const text = r.description.trim() === "" ? "" : `\n  ${r.description.trim().replace(/\n/g, "\n  ")}`;
  return `- **${r.reference_id}** ${r.title} (${r.type_name}, priority ${r.priority}, ${r.status})${text}`;
}

function criterionLine(c: AcceptanceCriterion): string {
  return `- **${c.reference_id}** ${c.description.trim().replace(/\n/g, "\n  ")}`;
}

export function storyTreeMarkdown(s: StoryTree, level = 1): string {
  const h = "#".repeat(level);
  return `${h} ${s.reference_id}: ${s.title} (${s.status}, priority ${s.priority})

${body(s.description)}

${h}# Requirements

${s.requirements.map(requirementLine).join("\n") || "_None yet._"}

${h}# Acceptance criteria

${s.acceptance_criteria.map(criterionLine).join("\n") || "_None yet._"}
`;
}

export function epicTreeMarkdown(e: EpicTree): string {
  const stories = e.user_stories.map((s) => storyTreeMarkdown(s, 2)).join("\n");
  return `# ${e.reference_id}: ${e.title} (${e.status}, priority ${e.priority})

${body(e.description)}

${stories || "_No user stories yet._\n"}`;
}

/** Marks a link whose ends changed since it was created or confirmed (change control: suspect links). */
function suspectNote(l: Relationship): string {
  return l.suspect
    ? ` (suspect: an end changed since revision ${l.source_revision}/${l.target_revision}; check it, then confirm_relationship)`
    : "";
}
