/**
 * A small registry for testing the faces before (and independently of) the hosted registry: one tool per
 * outcome the error table knows, a resource template, and a prompt with a required argument.
 */
import { z } from "zod";
import { DomainError } from "../../../src/core/errors.js";
import { type BaseContext, defineTool, type Registry } from "../../../src/core/registry.js";

export interface TestContext extends BaseContext {
  role: "viewer" | "editor";
  notes: Map<string, { reference_id: string; title: string }>;
}

const noteOutput = z.object({ reference_id: z.string(), title: z.string() });

export function testRegistry(): Registry<TestContext> {
  return {
    name: "test",
    instructions: "Test registry: notes with ids like NOTE-001.",
    tools: [
      defineTool<TestContext, z.ZodObject<{ title: z.ZodString }>, z.infer<typeof noteOutput>>({
        name: "create_note",
        title: "Create note",
        description: "Creates a note.",
        input: z.object({ title: z.string().min(1, "Title must not be empty") }),
        output: noteOutput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
        handler({ title }, ctx) {
          if (ctx.role === "viewer") throw DomainError.forbidden("Forbidden: viewers cannot create notes");
          for (const n of ctx.notes.values()) {
            if (n.title === title)
              throw DomainError.conflict(`A note titled "${title}" exists`, { reference_id: n.reference_id });
          }
          const note = { reference_id: `NOTE-${String(ctx.notes.size + 1).padStart(3, "0")}`, title };
          ctx.notes.set(note.reference_id, note);
          return note;
        },
      }),
      defineTool<TestContext, z.ZodObject<{ note_id: z.ZodString }>, z.infer<typeof noteOutput>>({
        name: "get_note",
        title: "Get note",
        description: "Reads a note.",
        input: z.object({ note_id: z.string().regex(/^NOTE-\d+$/, "Invalid note reference ID format") }),
        output: noteOutput,
        annotations: { readOnlyHint: true },
        handler({ note_id }, ctx) {
          const note = ctx.notes.get(note_id);
          if (!note) throw DomainError.notFound(`Note not found: ${note_id}`, note_id);
          return note;
        },
      }),
      defineTool<TestContext, z.ZodObject<Record<string, never>>, never>({
        name: "explode",
        title: "Explode",
        description: "Fails with an unexpected error.",
        input: z.object({}),
        annotations: { readOnlyHint: true },
        handler() {
          throw new Error("secret database detail: SQLITE_CORRUPT at /var/db");
        },
      }),
    ],
    resources: [
      {
        uriTemplate: "note://{note_id}",
        name: "note",
        description: "A note as JSON.",
        mimeType: "application/json",
        match(uri) {
          const m = /^note:\/\/([^/]+)$/.exec(uri);
          return m ? { note_id: m[1] as string } : undefined;
        },
        read({ note_id }, uri, ctx) {
          const note = ctx.notes.get(note_id as string);
          if (!note) throw DomainError.notFound(`Note not found: ${note_id}`, note_id);
          return [{ uri, mimeType: "application/json", text: JSON.stringify(note) }];
        },
      },
    ],
    prompts: [
      {
        name: "review_note",
        description: "Review a note.",
        arguments: [{ name: "note_id", description: "The note to review, e.g. NOTE-001", required: true }],
        async get({ note_id }, ctx) {
          const note = ctx.notes.get(note_id as string);
          if (!note) throw DomainError.notFound(`Note not found: ${note_id}`, note_id);
          return {
            description: `Review of ${note.reference_id}`,
            messages: [{ role: "user", content: { type: "text", text: `Review: ${note.title}` } }],
          };
        },
      },
    ],
  };
}
