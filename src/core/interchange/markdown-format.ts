/**
 * The Markdown format (docs/interchange.md "Markdown"): a folder per epic (`EP-001-checkout/README.md`
 * holds the epic), a file per user story (`EP-001-checkout/US-001-pay-by-card.md`: the story, then its
 * requirements, then its acceptance criteria), readable in a pull request. Each item is a block that
 * starts with a marker line (`<!-- reqlix:requirement -->`, invisible when rendered), then its heading
 * (`## REQ-001: Title`), a list of facts (`- Status: Draft`) and its description verbatim. Over HTTP the
 * folder travels as one `.tar.gz` (tar.ts). Comments and baselines are JSON-only.
 */
import {
  DocumentError,
  type DocumentProblem,
  type InterchangeDocument,
  type InterchangeDocumentInput,
  validateDocument,
} from "./document.js";
import type { ExportSource, ExportWriter, InterchangeFormat } from "./formats.js";
import { collect, readTar, TAR_END, tarEntry } from "./tar.js";

const KINDS = ["epic", "user_story", "requirement", "acceptance_criterion"] as const;
type Kind = (typeof KINDS)[number];
const MARKER = /^<!-- reqlix:(epic|user_story|requirement|acceptance_criterion) -->$/;
/** A description line that looks like a marker is written with one more backslash, and read back with one less. */
const ESCAPED = /^<!-- reqlix(\\+):(epic|user_story|requirement|acceptance_criterion) -->$/;

const escapeLine = (line: string) =>
  line.replace(
    /^<!-- reqlix(\\*):(epic|user_story|requirement|acceptance_criterion) -->$/,
    "<!-- reqlix\\$1:$2 -->",
  );
const unescapeLine = (line: string) =>
  ESCAPED.test(line) ? line.replace(/^<!-- reqlix\\(\\*):/, "<!-- reqlix$1:") : line;
const escapeText = (text: string) => text.split("\n").map(escapeLine).join("\n");
const unescapeText = (text: string) => text.split("\n").map(unescapeLine).join("\n");

/** `Pay by card!` → `pay-by-card`; at most 40 ASCII characters, so tar names stay short. */
export function slug(title: string): string {
  const s = title
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return s || "item";
}

/** The facts list, in a fixed order; absent or null values are left out. */
const FACTS: [string, string][] = [
  ["epic", "Epic"],
  ["user_story", "User story"],
  ["type", "Type"],
  ["status", "Status"],
  ["priority", "Priority"],
  ["assignee", "Assignee"],
  ["relationships", "Relationships"],
  ["external_id", "External id"],
  ["attributes", "Attributes"],
  ["creator", "Creator"],
  ["revision", "Revision"],
  ["created_at", "Created"],
  ["updated_at", "Updated"],
];

function block(
  kind: Kind,
  level: number,
  item: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  const all = { ...item, ...extra };
  const facts = FACTS.filter(([key]) => all[key] !== undefined && all[key] !== null && all[key] !== "")
    .map(([key, label]) => {
      const v = all[key];
      return `- ${label}: ${key === "attributes" ? JSON.stringify(v) : String(v)}`;
    })
    .join("\n");
  const id = item.reference_id ? `${item.reference_id}: ` : "";
  return `<!-- reqlix:${kind} -->\n${"#".repeat(level)} ${id}${item.title}\n\n${facts}\n\n${escapeText(String(item.description ?? ""))}\n`;
}

async function exportMarkdown(source: ExportSource, out: ExportWriter): Promise<void> {
  const gzip = new CompressionStream("gzip");
  const writer = gzip.writable.getWriter();
  const pump = (async () => {
    const reader = gzip.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      await out.write(value);
    }
  })();
  const mtime = Math.floor(Date.parse(source.header.exported_at) / 1000);
  const encoder = new TextEncoder();
  const file = async (name: string, text: string) => {
    for (const part of tarEntry(name, encoder.encode(text), mtime))
      await writer.write(part as Uint8Array<ArrayBuffer>);
  };
  // Outgoing links by source requirement, shown in the source's facts.
  const links = new Map<string, string[]>();
  for await (const l of source.relationships()) {
    const list = links.get(l.source) ?? [];
    list.push(`${l.type} ${l.target}`);
    links.set(l.source, list);
  }
  try {
    for await (const epic of source.epics()) {
      const folder = `${epic.reference_id}-${slug(epic.title)}`;
      await file(`${folder}/README.md`, block("epic", 1, epic));
      for await (const story of source.userStoriesOf(epic.reference_id as string)) {
        let text = block("user_story", 1, story);
        for await (const r of source.requirementsOf(story.reference_id as string)) {
          const rel = links.get(r.reference_id as string);
          text += `\n${block("requirement", 2, { ...r, user_story: undefined }, rel ? { relationships: rel.join("; ") } : {})}`;
        }
        for await (const c of source.criteriaOf(story.reference_id as string)) {
          text += `\n${block("acceptance_criterion", 2, { ...c, user_story: undefined })}`;
        }
        await file(`${folder}/${story.reference_id}-${slug(story.title)}.md`, text);
      }
    }
    await writer.write(TAR_END);
    await writer.close();
  } catch (err) {
    await writer.abort(err).catch(() => undefined);
    throw err;
  }
  await pump;
}

interface Block {
  kind: Kind;
  line: number;
  item: Record<string, unknown>;
}

const LABELS = new Map(FACTS.map(([key, label]) => [label.toLowerCase(), key]));
const NUMBERS = new Set(["priority", "revision"]);

/** The blocks of one file; problems name the file and the line. */
function parseFile(name: string, text: string, problems: DocumentProblem[]): Block[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (MARKER.test(l)) starts.push(i);
  });
  const blocks: Block[] = [];
  starts.forEach((start, n) => {
    const kind = (MARKER.exec(lines[start] as string) as RegExpExecArray)[1] as Kind;
    const end = starts[n + 1] ?? lines.length;
    const body = lines.slice(start + 1, end);
    // The writer ends each block with its description and "\n", and puts an empty line before the next.
    if (n + 1 < starts.length && body[body.length - 1] === "") body.pop();
    if (body[body.length - 1] === "") body.pop();
    const heading = /^(#+) (?:([A-Za-z]+-\d+): )?(.*)$/.exec(body[0] ?? "");
    if (!heading) {
      problems.push({
        message: `expected a heading like "## REQ-001: Title" after the marker`,
        path: name,
        line: start + 2,
        column: 1,
      });
      return;
    }
    const item: Record<string, unknown> = { title: heading[3] };
    if (heading[2]) item.reference_id = heading[2].toUpperCase();
    let i = 1;
    if (body[i] === "") i++;
    for (; i < body.length && body[i] !== ""; i++) {
      const fact = /^- ([^:]+): (.*)$/.exec(body[i] as string);
      const key = fact ? LABELS.get((fact[1] as string).toLowerCase()) : undefined;
      if (!fact || !key) {
        problems.push({
          message: `expected a fact like "- Status: Draft", got "${body[i]}"`,
          path: name,
          line: start + 2 + i,
          column: 1,
        });
        continue;
      }
      const value = fact[2] as string;
      if (key === "attributes") {
        try {
          item.attributes = JSON.parse(value);
        } catch {
          problems.push({ message: "Attributes is not JSON", path: name, line: start + 2 + i, column: 15 });
        }
      } else item[key] = NUMBERS.has(key) && /^\d+$/.test(value) ? Number(value) : value;
    }
    item.description = unescapeText(body.slice(i + 1).join("\n"));
    blocks.push({ kind, line: start + 1, item });
  });
  if (starts.length === 0)
    problems.push({
      message: "no reqlix block (<!-- reqlix:… --> marker) in this file",
      path: name,
      line: 1,
      column: 1,
    });
  return blocks;
}

export function parseMarkdownFiles(files: { name: string; text: string }[]): InterchangeDocument {
  const problems: DocumentProblem[] = [];
  const doc: InterchangeDocumentInput = {
    format: "reqlix-export",
    version: 1,
    epics: [],
    user_stories: [],
    requirements: [],
    acceptance_criteria: [],
    relationships: [],
  };
  const where: { name: string; line: number }[][] = [[], [], [], []];
  const push = (
    list: "epics" | "user_stories" | "requirements" | "acceptance_criteria",
    item: Record<string, unknown>,
    name: string,
    line: number,
  ) => {
    (doc[list] as unknown[]).push(item);
    where[["epics", "user_stories", "requirements", "acceptance_criteria"].indexOf(list)]?.push({
      name,
      line,
    });
  };
  for (const file of [...files].sort((a, b) => a.name.localeCompare(b.name))) {
    let story: string | undefined;
    for (const b of parseFile(file.name, file.text, problems)) {
      if (b.kind === "epic") push("epics", b.item, file.name, b.line);
      else if (b.kind === "user_story") {
        story = (b.item.reference_id as string | undefined) ?? (b.item.external_id as string | undefined);
        push("user_stories", b.item, file.name, b.line);
      } else if (story === undefined) {
        problems.push({
          message: `a ${b.kind.replace("_", " ")} must follow its user story in the same file`,
          path: file.name,
          line: b.line,
          column: 1,
        });
      } else if (b.kind === "requirement") {
        const { relationships, ...rest } = b.item;
        for (const link of String(relationships ?? "")
          .split(";")
          .map((s) => s.trim())
          .filter(Boolean)) {
          const [type, target] = link.split(/\s+/);
          doc.relationships?.push({
            source: (rest.reference_id ?? rest.external_id) as string,
            type: type as string,
            target: target as string,
          });
        }
        push("requirements", { ...rest, user_story: story }, file.name, b.line);
      } else push("acceptance_criteria", { ...b.item, user_story: story }, file.name, b.line);
    }
  }
  if (problems.length > 0) {
    const first = problems[0] as DocumentProblem;
    throw new DocumentError(
      `The Markdown is not in reqlix's layout: ${first.path} line ${first.line}: ${first.message}.`,
      problems,
    );
  }
  // Markdown orders items by file; a round trip keeps creation order through the reference ids' numbers.
  const byNumber = (a: { reference_id?: unknown }, b: { reference_id?: unknown }) =>
    idNumber(a.reference_id) - idNumber(b.reference_id);
  for (const list of ["epics", "user_stories", "requirements", "acceptance_criteria"] as const)
    (doc[list] as { reference_id?: unknown }[]).sort(byNumber);
  return validateDocument(doc, (path) => {
    const lists = ["epics", "user_stories", "requirements", "acceptance_criteria"];
    const at = where[lists.indexOf(String(path[0]))]?.[Number(path[1])];
    return at ? { line: at.line, column: 1 } : undefined;
  });
}

const idNumber = (id: unknown) =>
  typeof id === "string" && /-\d+$/.test(id)
    ? Number(id.slice(id.lastIndexOf("-") + 1))
    : Number.MAX_SAFE_INTEGER;

export const markdownFormat: InterchangeFormat = {
  name: "markdown",
  contentType: "application/gzip",
  extension: ".tar.gz",
  export: exportMarkdown,
  async parse(input) {
    let files: { name: string; content: Uint8Array }[];
    try {
      const gunzip = new DecompressionStream("gzip") as unknown as ReadableWritablePair<
        Uint8Array,
        Uint8Array
      >;
      files = readTar(await collect(input.stream().pipeThrough(gunzip)));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new DocumentError(`The upload is not a .tar.gz of reqlix Markdown: ${message}.`, [
        { message, line: 1, column: 1 },
      ]);
    }
    const decoder = new TextDecoder();
    return parseMarkdownFiles(
      files
        .filter((f) => f.name.endsWith(".md"))
        .map((f) => ({ name: f.name, text: decoder.decode(f.content) })),
    );
  },
};
