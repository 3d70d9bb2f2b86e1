/**
 * A small registry exercising every part of the seam: rich tool content, a binary resource, image and
 * resource prompt messages, a tool that logs to the client, and completion hooks. Test-only.
 */
import { z } from "zod";
import { type BaseContext, defineTool, type Registry } from "../../src/core/registry.js";

export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

const none = z.object({});
const tagged = z.object({ tag: z.string() });
const annotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** 150 candidate values, so a completion answer is cut at 100. */
export const MANY = Array.from({ length: 150 }, (_, i) => `item-${String(i).padStart(3, "0")}`);

export function seamRegistry<Ctx extends BaseContext>(options: { completions: boolean }): Registry<Ctx> {
  return {
    name: "seam",
    tools: [
      defineTool<Ctx, typeof tagged, { tag: string }>({
        name: "plain_echo",
        title: "Plain echo",
        description: "Returns its input as plain data (rendered as JSON text).",
        input: tagged,
        output: z.object({ tag: z.string() }),
        annotations,
        handler: (input) => ({ tag: input.tag }),
      }),
      defineTool<Ctx, typeof none, { caption: string }>({
        name: "rich_result",
        title: "Rich result",
        description: "Returns text, an image, audio, an embedded blob resource and a resource link.",
        input: none,
        output: z.object({ caption: z.string() }),
        annotations,
        handler: () => ({ caption: "a red pixel" }),
        render: (out) => [
          { type: "text", text: out.caption },
          { type: "image", data: PNG, mimeType: "image/png" },
          { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "seam://pixel", mimeType: "image/png", blob: PNG } },
          { type: "resource_link", uri: "seam://pixel", name: "pixel", mimeType: "image/png" },
          { type: "text", text: "end" },
        ],
      }),
      defineTool<Ctx, typeof none, string>({
        name: "chatty",
        title: "Chatty",
        description: "Logs at debug, info and error, then answers.",
        input: none,
        annotations,
        logs: true,
        handler: async (_input, ctx) => {
          await ctx.logToClient?.("debug", "debug detail");
          await ctx.logToClient?.("info", { step: 1 }, "seam");
          await ctx.logToClient?.("error", "something failed");
          return "done";
        },
      }),
    ],
    resources: [
      {
        uriTemplate: "seam://pixel",
        name: "pixel",
        description: "A binary resource.",
        mimeType: "image/png",
        match: (uri) => (uri === "seam://pixel" ? {} : undefined),
        read: () => [{ uri: "seam://pixel", mimeType: "image/png", blob: PNG }],
      },
      {
        uriTemplate: "seam://items/{item}",
        name: "item",
        description: "An item by name.",
        mimeType: "text/plain",
        match: (uri) => {
          const m = /^seam:\/\/items\/([^/]+)$/.exec(uri);
          return m ? { item: m[1] as string } : undefined;
        },
        read: (params, uri) => [{ uri, mimeType: "text/plain", text: params.item as string }],
        ...(options.completions
          ? {
              complete: (variable: string, value: string) =>
                variable === "item" ? MANY.filter((v) => v.startsWith(value)) : [],
            }
          : {}),
      },
    ],
    prompts: [
      {
        name: "look",
        description: "An image prompt with an embedded resource.",
        arguments: [{ name: "colour", description: "A colour", required: false }],
        get: async (args) => ({
          description: "look at it",
          messages: [
            { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
            {
              role: "user",
              content: {
                type: "resource",
                resource: {
                  uri: "seam://note",
                  mimeType: "text/plain",
                  text: `colour ${args.colour ?? "?"}`,
                },
              },
            },
            { role: "assistant", content: { type: "text", text: "I see it." } },
          ],
        }),
        ...(options.completions
          ? {
              complete: (argument: string, value: string, _ctx: Ctx, known: Record<string, string>) =>
                argument === "colour"
                  ? ["red", "green", "rose", `known:${known.shade ?? "-"}`].filter(
                      (c) => c.startsWith(value) || c.startsWith("known:"),
                    )
                  : [],
            }
          : {}),
      },
      {
        name: "bare",
        description: "A prompt without a completion hook.",
        arguments: [{ name: "x", description: "x", required: false }],
        get: async () => ({
          description: "bare",
          messages: [{ role: "user", content: { type: "text", text: "hi" } }],
        }),
      },
    ],
  };
}
