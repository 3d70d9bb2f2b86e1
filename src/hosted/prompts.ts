/**
 * Prompts (jsonrpc spec requirement 8): each loads its entities through the repositories and returns a
 * description and messages that carry that context, plus what to do with the answer (which tool to call).
 */
import type { z } from "zod";
import { DomainError } from "../core/errors.js";
import type { PromptDef, PromptMessage } from "../core/registry.js";
import { epicHierarchyPage, userStoryPage } from "../db/hierarchy.repo.js";
import { relationshipsOfRequirement } from "../db/relationships.repo.js";
import { listRequirementTypes } from "../db/requirement-types.repo.js";
import { getRequirement } from "../db/requirements.repo.js";
import type { HostedContext } from "./context.js";
import { epicTreeMarkdown, requirementMarkdown, storyTreeMarkdown } from "./markdown.js";
import { PROMPT_BUDGET } from "./paging.js";
import { epicId, requirementId, userStoryId } from "./schemas.js";

/** Validates one prompt argument with the same schema the tools use; invalid_input naming it otherwise. */
function arg<S extends z.ZodType<string>>(schema: S, args: Record<string, string>, name: string): string {
  const parsed = schema.safeParse(args[name]);
  if (parsed.success) return parsed.data as string;
  const errors = parsed.error.issues.map((issue) => ({ field: name, message: issue.message }));
  throw DomainError.invalid(`Invalid argument ${name}: ${errors.map((e) => e.message).join("; ")}`, errors);
}

const user = (text: string): PromptMessage => ({ role: "user", content: { type: "text", text } });

// The context the prompts carry, each read once here for every prompt that shows it.

/** A requirement and its relationships, as Markdown. */
function requirementContext(ctx: HostedContext, id: string): Promise<string> {
  return ctx.database.read(async (db) =>
    requirementMarkdown(
      await getRequirement(db, ctx.auth.workspaceId, id),
      await relationshipsOfRequirement(db, ctx.auth.workspaceId, id),
    ),
  );
}

// Issue item 8: a prompt carries at most one bounded page of a story or epic, and says where the rest is.

/** A user story with (a first page of) its requirements and acceptance criteria, as Markdown. */
async function storyContext(ctx: HostedContext, id: string): Promise<string> {
  const page = await ctx.database.read((db) => userStoryPage(db, ctx.auth.workspaceId, id, PROMPT_BUDGET));
  const rest = page.next_cursor
    ? `\n(Only the first part of ${id} fits here. Read the rest with get_user_story, user_story_id ${id}, cursor "${page.next_cursor}", before you rely on it being complete.)\n`
    : "";
  return `${storyTreeMarkdown(page)}${rest}`;
}

/** An epic with (a first page of) everything under it, as Markdown. */
async function epicContext(ctx: HostedContext, id: string): Promise<string> {
  const page = await ctx.database.read((db) =>
    epicHierarchyPage(db, ctx.auth.workspaceId, id, PROMPT_BUDGET),
  );
  const rest = page.next_cursor
    ? `\n(Only the first part of ${id} fits here. Read the rest with epic_hierarchy, epic_id ${id}, cursor "${page.next_cursor}", before you rely on it being complete.)\n`
    : "";
  return `${epicTreeMarkdown(page)}${rest}`;
}

export const analyzeRequirementQuality: PromptDef<HostedContext> = {
  name: "analyze_requirement_quality",
  title: "Analyze requirement quality",
  description:
    "Review one requirement for clarity, testability and consistency, and propose a better wording.",
  arguments: [
    { name: "requirement_id", description: "Requirement reference ID (e.g., 'REQ-048')", required: true },
  ],
  async get(args, ctx) {
    const id = arg(requirementId(), args, "requirement_id");
    const text = await requirementContext(ctx, id);
    return {
      description: `Quality review of ${id}`,
      messages: [
        user(`Review the quality of requirement ${id}.

${text}
Assess it against these criteria, one short paragraph each, quoting the words at fault:
1. Unambiguous: one reading only; no vague words (fast, easy, user-friendly, etc.).
2. Testable: a tester can decide pass or fail; measurable where it speaks of quality.
3. Atomic: one need, not several joined by "and".
4. Complete: actor, condition and expected result are stated.
5. Consistent: no conflict with its related requirements.
6. Feasible and free of design: says what, not how.

Then give a rewritten title and description that fix the problems, and list open questions for the author.
If the user agrees, apply the rewrite with update_requirement (requirement_id ${id}, passing expected_updated_at).`),
      ],
    };
  },
};

export const suggestAcceptanceCriteria: PromptDef<HostedContext> = {
  name: "suggest_acceptance_criteria",
  title: "Suggest acceptance criteria",
  description:
    "Propose testable acceptance criteria (Given/When/Then) for a user story, given its requirements.",
  arguments: [
    { name: "user_story_id", description: "User story reference ID (e.g., 'US-047')", required: true },
  ],
  async get(args, ctx) {
    const id = arg(userStoryId(), args, "user_story_id");
    const story = await storyContext(ctx, id);
    return {
      description: `Acceptance criteria for ${id}`,
      messages: [
        user(`Suggest acceptance criteria for user story ${id}.

${story}
Write criteria in Given/When/Then form, each independently testable. Cover the main flow, edge cases and
failures implied by the requirements above; cite the REQ ids each criterion checks. Do not repeat criteria
that already exist (listed above). After the user approves, add each one with create_acceptance_criteria
(user_story_id ${id}).`),
      ],
    };
  },
};

export const generateUserStory: PromptDef<HostedContext> = {
  name: "generate_user_story",
  title: "Generate user story",
  description:
    "Draft a new user story for an epic, optionally from a described need, fitting the stories it already has.",
  arguments: [
    { name: "epic_id", description: "Epic reference ID (e.g., 'EP-001')", required: true },
    {
      name: "need",
      description: "What the user wants to achieve, in their words (optional)",
      required: false,
    },
  ],
  async get(args, ctx) {
    const id = arg(epicId(), args, "epic_id");
    const epic = await epicContext(ctx, id);
    const need = args.need?.trim();
    return {
      description: `New user story for ${id}`,
      messages: [
        user(`Draft a new user story for epic ${id}${need ? ` for this need: ${need}` : ""}.

${epic}
Write: a title in the form "As a <role>, I want <goal> so that <benefit>"; a description with context and
scope (what is in and out); a priority from 1 (Critical) to 4 (Low) with a reason; 3–6 acceptance criteria in
Given/When/Then form; and the requirements it needs (title, type, priority). It must not duplicate the
stories above. After the user approves, create it with create_user_story (epic_id ${id}), then its
requirements with create_requirement and its criteria with create_acceptance_criteria.`),
      ],
    };
  },
};

export const decomposeEpic: PromptDef<HostedContext> = {
  name: "decompose_epic",
  title: "Decompose epic",
  description: "Split an epic into user stories that are small, independent and valuable on their own.",
  arguments: [{ name: "epic_id", description: "Epic reference ID (e.g., 'EP-001')", required: true }],
  async get(args, ctx) {
    const id = arg(epicId(), args, "epic_id");
    const epic = await epicContext(ctx, id);
    return {
      description: `Decomposition of ${id}`,
      messages: [
        user(`Decompose epic ${id} into user stories.

${epic}
Propose the stories still missing to deliver this epic (keep the existing ones; say if any should be split or
merged). Each story: title as "As a <role>, I want <goal> so that <benefit>", one-paragraph description,
priority 1–4, and an estimate of relative size (S/M/L). Follow INVEST: independent, negotiable, valuable,
estimable, small, testable. Order them so the first delivers value soonest. After the user approves, create
each with create_user_story (epic_id ${id}).`),
      ],
    };
  },
};

export const suggestTestScenarios: PromptDef<HostedContext> = {
  name: "suggest_test_scenarios",
  title: "Suggest test scenarios",
  description:
    "Propose test scenarios for a requirement or for a whole user story (pass one of the two ids).",
  arguments: [
    {
      name: "requirement_id",
      description: "Requirement reference ID (e.g., 'REQ-048'); or pass user_story_id",
      required: false,
    },
    {
      name: "user_story_id",
      description: "User story reference ID (e.g., 'US-047'); or pass requirement_id",
      required: false,
    },
  ],
  async get(args, ctx) {
    const hasReq = Boolean(args.requirement_id?.trim());
    const hasStory = Boolean(args.user_story_id?.trim());
    if (hasReq === hasStory) {
      throw DomainError.invalid(
        "Pass exactly one of requirement_id (e.g. REQ-048) or user_story_id (e.g. US-047) to suggest_test_scenarios.",
        [
          {
            field: "requirement_id",
            message: hasReq ? "pass only one of the two" : "required unless user_story_id is given",
          },
          {
            field: "user_story_id",
            message: hasStory ? "pass only one of the two" : "required unless requirement_id is given",
          },
        ],
      );
    }
    let subject: string;
    let context: string;
    if (hasReq) {
      subject = arg(requirementId(), args, "requirement_id");
      context = await requirementContext(ctx, subject);
    } else {
      subject = arg(userStoryId(), args, "user_story_id");
      context = await storyContext(ctx, subject);
    }
    const types = await ctx.database.read((db) => listRequirementTypes(db, ctx.auth.workspaceId));
    return {
      description: `Test scenarios for ${subject}`,
      messages: [
        user(`Suggest test scenarios for ${subject}.

${context}
For each scenario give: a name, the requirement or acceptance criterion ids it verifies, preconditions, steps,
and the expected result. Cover the happy path, boundaries, invalid input, failures and, for
${
  types
    .map((t) => t.name)
    .filter((n) => n !== "Functional")
    .join(" / ") || "non-functional"
} requirements, how to
measure them. Mark which scenarios suit automation and at which level (unit, integration, end-to-end).
Name the test cases so they cite the ids (e.g. "REQ-048: rejects an expired token").`),
      ],
    };
  },
};

export const hostedPrompts: PromptDef<HostedContext>[] = [
  analyzeRequirementQuality,
  suggestAcceptanceCriteria,
  generateUserStory,
  decomposeEpic,
  suggestTestScenarios,
];
