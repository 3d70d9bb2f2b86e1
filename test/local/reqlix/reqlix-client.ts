/** Drives the reqlix tools of a running companion and decodes their JSON answers (G.C.5/G.C.6). */
import type { Companion } from "../../helpers/companion.js";
import { textOf } from "../../helpers/companion.js";

export type Answer<T = Record<string, unknown>> =
  | { success: true; data: T; isError: false }
  | { success: false; error: string; isError: true };

export function reqlix(companion: Companion, projectRoot: string) {
  return async function call<T = Record<string, unknown>>(
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<Answer<T>> {
    const result = await companion.client.callTool({
      name: `reqlix_${name}`,
      arguments: { project_root: projectRoot, operation_description: "test", ...args },
    });
    const body = JSON.parse(textOf(result)) as { success: boolean; data?: T; error?: string };
    const isError = result.isError === true;
    if (body.success !== !isError) throw new Error(`success flag and isError disagree: ${textOf(result)}`);
    return { ...body, isError } as Answer<T>;
  };
}

export function ok<T>(answer: Answer<T>): T {
  if (!answer.success) throw new Error(`expected success, got error: ${answer.error}`);
  return answer.data;
}

export function err(answer: Answer<unknown>): string {
  if (answer.success) throw new Error(`expected an error, got ${JSON.stringify(answer.data)}`);
  return answer.error;
}

/** Requirements of the spec file, parsed the obvious way (headings outside ``` fences). */
export interface SpecRequirement {
  chapter: string;
  index: string;
  title: string;
  text: string;
}

export function parseSpec(content: string): { chapters: string[]; requirements: SpecRequirement[] } {
  const chapters: string[] = [];
  const requirements: SpecRequirement[] = [];
  let fence = false;
  let current: (SpecRequirement & { lines: string[] }) | undefined;
  const flush = () => {
    if (current) {
      const lines = current.lines;
      while (lines.length > 0 && lines[0]?.trim() === "") lines.shift();
      while (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop();
      requirements.push({
        chapter: current.chapter,
        index: current.index,
        title: current.title,
        text: lines.join("\n"),
      });
    }
    current = undefined;
  };
  for (const line of content.split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    if (!fence && line.startsWith("# ")) {
      flush();
      chapters.push(line.slice(2));
      continue;
    }
    if (!fence && line.startsWith("## ")) {
      flush();
      const m = /^## (\S+): (.*)$/.exec(line);
      if (!m) throw new Error(`unexpected heading ${line}`);
      current = {
        chapter: chapters[chapters.length - 1] ?? "",
        index: m[1] as string,
        title: m[2] as string,
        text: "",
        lines: [],
      };
      continue;
    }
    current?.lines.push(line);
  }
  flush();
  return { chapters, requirements };
}
