/**
 * YAML frontmatter of an entity file: split it from the body, parse it (with the file line of any error),
 * and edit it while keeping every byte of the body.
 */
import { type Document, parseDocument } from "yaml";
import { parseSimpleFrontmatter, parseSimpleFrontmatterAt } from "./fast-frontmatter.js";

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

/** Where the parts of a file with frontmatter are: indexes into the text that holds it. */
export interface FrontmatterBounds {
  /** Where the file starts. */
  start: number;
  /** Just past the opening `---` line (and a BOM before it): where the YAML starts. */
  yamlStart: number;
  /** Where the closing delimiter line starts, which ends the YAML. */
  yamlEnd: number;
  /** Just past the closing delimiter line (or the end of the file): where the body starts. */
  bodyStart: number;
  /** Where the file ends. */
  end: number;
  eol: "\n" | "\r\n";
}

/** Whether raw[from, to) is `---` or `...`, then spaces or tabs, once a trailing carriage return is cut. */
function closesAt(raw: string, from: number, to: number): boolean {
  if (to > from && raw.charCodeAt(to - 1) === 13) to--;
  if (to - from < 3) return false;
  const c = raw.charCodeAt(from);
  if ((c !== 45 && c !== 46) || raw.charCodeAt(from + 1) !== c || raw.charCodeAt(from + 2) !== c)
    return false;
  for (let k = from + 3; k < to; k++) {
    const d = raw.charCodeAt(k);
    if (d !== 32 && d !== 9) return false;
  }
  return true;
}

/**
 * The bounds of the frontmatter: `undefined` when the file does not start with a `---` line (an optional
 * BOM, `---`, spaces or tabs, a line break); a FrontmatterError when no `---` or `...` line closes it. Read
 * by character codes, with no regular expression or line cut out: a cold sync locates the frontmatter of
 * every file of the graph.
 */
export function locateFrontmatter(raw: string, start = 0, end = raw.length): FrontmatterBounds | undefined {
  // Every read below stays in [start, end): the text may hold other files after this one.
  let pos = start < end && raw.charCodeAt(start) === 0xfeff ? start + 1 : start;
  if (
    pos + 3 > end ||
    raw.charCodeAt(pos) !== 45 ||
    raw.charCodeAt(pos + 1) !== 45 ||
    raw.charCodeAt(pos + 2) !== 45
  ) {
    return undefined;
  }
  pos += 3;
  while (pos < end && (raw.charCodeAt(pos) === 32 || raw.charCodeAt(pos) === 9)) pos++;
  const eol = pos < end && raw.charCodeAt(pos) === 13 ? "\r\n" : "\n";
  if (eol === "\r\n") pos++;
  if (pos >= end || raw.charCodeAt(pos) !== 10) return undefined;
  const yamlStart = pos + 1;
  let line = 2;
  pos = yamlStart;
  while (pos <= end) {
    let nl = raw.indexOf("\n", pos);
    if (nl === -1 || nl > end) nl = end;
    // Only a line starting with - or . can close it.
    const first = pos < end ? raw.charCodeAt(pos) : 0;
    if ((first === 45 || first === 46) && closesAt(raw, pos, nl)) {
      return { start, yamlStart, yamlEnd: pos, bodyStart: nl === end ? end : nl + 1, end, eol };
    }
    if (nl === end) break;
    pos = nl + 1;
    line++;
  }
  throw new FrontmatterError(
    `frontmatter opened with --- on line 1 is never closed: add a line with --- after the last YAML line (scanned to line ${line})`,
    1,
  );
}

/** `undefined` when the file does not start with a `---` line (a plain markdown file). */
export function splitFrontmatter(raw: string): SplitFile | undefined {
  const bounds = locateFrontmatter(raw);
  return bounds && splitAt(raw, bounds);
}

function splitAt(
  raw: string,
  { start, yamlStart, yamlEnd, bodyStart, end, eol }: FrontmatterBounds,
): SplitFile {
  return {
    head: raw.slice(start, yamlStart),
    yaml: raw.slice(yamlStart, yamlEnd),
    yamlLine: 2,
    tail: raw.slice(yamlEnd, end),
    body: raw.slice(bodyStart, end),
    eol,
  };
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
  return { split, data: parseYamlData(split) };
}

/**
 * parseFrontmatter(splitFrontmatter(raw)).data for a file whose frontmatter is at `bounds`: the simple
 * subset is read in place; only the rest is cut out for the yaml package.
 */
export function frontmatterData(raw: string, bounds: FrontmatterBounds): Record<string, unknown> {
  return (
    parseSimpleFrontmatterAt(raw, bounds.yamlStart, bounds.yamlEnd) ?? parseYamlData(splitAt(raw, bounds))
  );
}

function parseYamlData(split: SplitFile): Record<string, unknown> {
  const doc = parseYaml(split);
  // maxAliasCount guards against alias bombs in a hostile file.
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new FrontmatterError(
      "frontmatter must be a YAML mapping of keys to values (id: …, title: …)",
      split.yamlLine,
    );
  }
  return data as Record<string, unknown>;
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
