/**
 * YAML frontmatter of an entity file: split it from the body, parse it (with the file line of any error),
 * and edit it while keeping every byte of the body.
 */
import { type Document, parseDocument } from "yaml";
import { parseSimpleFrontmatter } from "./fast-frontmatter.js";

export class FrontmatterError extends Error {
  override readonly name = "FrontmatterError";
  /** 1-based line in the file. */
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

export interface SplitFile {
  /** Everything up to and including the line break of the opening `---` (a BOM stays here). */
  head: string;
  /** The YAML between the delimiters, with its line breaks. */
  yaml: string;
  /** 1-based file line of the first YAML line. */
  yamlLine: number;
  /** The closing delimiter line and everything after it. */
  tail: string;
  /** The text after the closing delimiter line: the body, byte for byte. */
  body: string;
  eol: "\n" | "\r\n";
}

const OPEN = /^(\uFEFF?)---[ \t]*(\r?\n)/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

/** `undefined` when the file does not start with a `---` line (a plain markdown file). */
export function splitFrontmatter(raw: string): SplitFile | undefined {
  const open = OPEN.exec(raw);
  if (!open) return undefined;
  const eol = open[2] === "\r\n" ? "\r\n" : "\n";
  const start = open[0].length;
  let pos = start;
  let line = 2;
  while (pos <= raw.length) {
    const nl = raw.indexOf("\n", pos);
    const end = nl === -1 ? raw.length : nl;
    // Only a line starting with - or . can close it: the others are not cut out and tested (a cold sync
    // splits every file of the graph).
    const first = raw.charCodeAt(pos);
    if ((first === 45 || first === 46) && CLOSE.test(raw.slice(pos, end).replace(/\r$/, ""))) {
      const after = nl === -1 ? raw.length : nl + 1;
      return {
        head: raw.slice(0, start),
        yaml: raw.slice(start, pos),
        yamlLine: 2,
        tail: raw.slice(pos),
        body: raw.slice(after),
        eol,
      };
    }
    if (nl === -1) break;
    pos = nl + 1;
    line++;
  }
  throw new FrontmatterError(
    `frontmatter opened with --- on line 1 is never closed: add a line with --- after the last YAML line (scanned to line ${line})`,
    1,
  );
}

function parseYaml(split: SplitFile): Document {
  const doc = parseDocument(split.yaml, { uniqueKeys: true, prettyErrors: false, strict: true });
  const error = doc.errors[0];
  if (error) {
    const offset = Math.min(error.pos[0], split.yaml.length);
    let yamlLine = 1;
    for (let i = split.yaml.indexOf("\n"); i !== -1 && i < offset; i = split.yaml.indexOf("\n", i + 1))
      yamlLine++;
    const message = error.message.split("\n")[0] ?? error.message;
    throw new FrontmatterError(`invalid YAML in frontmatter: ${message}`, split.yamlLine + yamlLine - 1);
  }
  return doc;
}

export interface ParsedFrontmatter {
  split: SplitFile;
  data: Record<string, unknown>;
}

/** Parses the frontmatter into plain JSON-like data; throws FrontmatterError with the file line. */
export function parseFrontmatter(split: SplitFile): ParsedFrontmatter {
  const simple = parseSimpleFrontmatter(split.yaml);
  if (simple) return { split, data: simple };
  const doc = parseYaml(split);
  // maxAliasCount guards against alias bombs in a hostile file.
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  if (data === null || data === undefined) return { split, data: {} };
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new FrontmatterError(
      "frontmatter must be a YAML mapping of keys to values (id: …, title: …)",
      split.yamlLine,
    );
  }
  return { split, data: data as Record<string, unknown> };
}

/**
 * Applies `edit` to the frontmatter's YAML document and returns the new file text. Comments and key order
 * survive; the body (everything after the closing delimiter) is copied unchanged.
 */
export function editFrontmatter(raw: string, edit: (doc: Document) => void): string {
  const split = splitFrontmatter(raw);
  if (!split) throw new FrontmatterError("the file has no frontmatter (it must start with a --- line)", 1);
  const doc = parseYaml(split);
  if (doc.contents === null) doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  edit(doc);
  let yaml = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  if (split.eol === "\r\n") yaml = yaml.replace(/\r?\n/g, "\r\n");
  return split.head + yaml + split.tail;
}
