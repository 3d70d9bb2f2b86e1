/**
 * The `trace` toolset: which requirements govern a file, where a requirement is implemented and tested,
 * coverage per requirement, and citations of ids that do not exist. Read-only: it never writes a file.
 */
import * as z from "zod";
import type { AnyZodObject, Registry, ToolDef } from "../../core/registry.js";
import type { LocalContext, LocalEnvironment } from "../context.js";
import { COVERAGE_STATUSES } from "./coverage.js";
import { TraceService } from "./trace-service.js";

const tool = <I extends AnyZodObject, O>(def: ToolDef<LocalContext, I, O>): ToolDef<LocalContext, I, O> =>
  def;

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const projectRoot = z
  .string({
    error: (i) =>
      i.input === undefined ? "required: the absolute path of the project root" : "must be a string",
  })
  .min(1, { error: "must not be empty" })
  .max(1000, { error: "too long: at most 1000 characters" })
  .describe("Absolute path of the project's root directory (the working copy to scan).");

export const TRACE_INSTRUCTIONS = `trace tools (trace_*) read back the requirement ids cited in the working copy: hosted ids (REQ-012, US-003, EP-1, AC-7) and reqlix indices (G.GI.3), optionally pinned to a revision (REQ-012@3).
Before editing a file, call trace_file with the project root and the file's path: it lists the requirements that govern the file (with their text when they are local) and the tests that check them; keep the code consistent with them and cite the ids you implement in comments and test titles.
Use trace_requirement to see where one requirement is implemented, tested and committed, trace_coverage for what is covered, and trace_orphans for citations of ids that do not exist or pins to an old revision.`;

export function traceRegistry(environment: LocalEnvironment): Registry<LocalContext> {
  const service = new TraceService(environment.env);
  const tools = [
    tool({
      name: "trace_file",
      title: "Requirements governing a file",
      description:
        "Call this before editing a file: returns the requirements that govern it — the ids cited in the file and those cited by the tests that cite the same ids — with each requirement's title, text (for local reqlix requirements), revision, coverage and the tests that check it. Keep your change consistent with them, cite the ids you implement, and run the listed tests afterwards.",
      input: z.object({
        project_root: projectRoot,
        path: z
          .string({
            error: (i) => (i.input === undefined ? "required: the file's path" : "must be a string"),
          })
          .min(1, { error: "must not be empty" })
          .max(4096, { error: "too long: at most 4096 characters" })
          .describe("The file, relative to project_root or absolute inside it."),
      }),
      annotations: READ,
      handler: (input, ctx) => service.traceFile(input.project_root, input.path, ctx.signal),
    }),
    tool({
      name: "trace_requirement",
      title: "Where a requirement is cited",
      description:
        "Returns every citation of one requirement id (REQ-012, US-003, G.GI.3) in the working copy — file:line, kind (impl, test, doc), test name, pinned revision and a one-line snippet — plus the commits whose messages cite it, its coverage and, for local requirements, its text. Use it to find the code and tests of a requirement before changing it.",
      input: z.object({
        project_root: projectRoot,
        id: z
          .string({
            error: (i) =>
              i.input === undefined
                ? "required: a requirement id such as REQ-012 or G.GI.3"
                : "must be a string",
          })
          .min(1, { error: "must not be empty" })
          .max(100, { error: "too long: at most 100 characters" })
          .describe("A hosted id (REQ-012, case-insensitive) or a reqlix index (G.GI.3)."),
      }),
      annotations: READ,
      handler: (input, ctx) => service.traceRequirement(input.project_root, input.id, ctx.signal),
    }),
    tool({
      name: "trace_coverage",
      title: "Requirement coverage",
      description:
        "Returns summary counts (covered, impl_only, test_only, uncovered, orphan, suspect) and a page of rows, one per requirement: its coverage status and how many implementation, test and doc citations it has. Filter by status or category (a reqlix category such as general, or a hosted prefix such as REQ); page with limit and the returned next_cursor.",
      input: z.object({
        project_root: projectRoot,
        status: z.enum(COVERAGE_STATUSES).optional().describe("Only rows with this coverage status."),
        category: z
          .string()
          .max(100, { error: "too long: at most 100 characters" })
          .optional()
          .describe("Only this reqlix category, or hosted prefix (REQ, US, EP, AC)."),
        limit: z
          .number({ error: "must be a number" })
          .int({ error: "must be a whole number" })
          .min(1, { error: "must be at least 1" })
          .max(500, { error: "must be at most 500" })
          .default(50)
          .describe("Rows per page (1–500, default 50)."),
        cursor: z.string().max(20).optional().describe("next_cursor of the previous page."),
      }),
      annotations: READ,
      handler: (input, ctx) => service.traceCoverage(input.project_root, input, ctx.signal),
    }),
    tool({
      name: "trace_orphans",
      title: "Citations of ids that do not exist",
      description:
        "Returns the citations of requirement ids that do not exist (orphans: a typo, or a deleted requirement), the citations pinned to a revision other than the requirement's current one (suspects: re-check that code against the requirement's new text, then update the pin), and the ids whose existence nobody could check (hosted ids when no server is configured).",
      input: z.object({ project_root: projectRoot }),
      annotations: READ,
      handler: (input, ctx) => service.traceOrphans(input.project_root, ctx.signal),
    }),
  ];
  return { name: "trace", tools, instructions: TRACE_INSTRUCTIONS };
}
