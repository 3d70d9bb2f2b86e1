/**
 * The format registry seam (issue 15): a format is a name, a content type and two converters between its
 * files and the interchange document (`document.ts`). The export route, the import route, the admin CLI and
 * the `export_requirements` tool look formats up here and know nothing else about them, so a new format
 * (ReqIF) is one more entry in `INTERCHANGE_FORMATS` (`registry.ts`).
 *
 * Exports are streamed: a format pulls entities from an `ExportSource` (async iterables the database fills
 * page by page) and pushes chunks to an `ExportWriter`, so memory stays flat whatever the workspace's size.
 */
import type {
  BaselineDoc,
  CommentDoc,
  CriterionDoc,
  EpicDoc,
  InterchangeDocument,
  NamedTypeDoc,
  RelationshipDoc,
  RequirementDoc,
  UserStoryDoc,
} from "./document.js";

/** What every export starts with: everything but the entity lists. */
export interface ExportHeader {
  exported_at: string;
  workspace: { slug: string; name: string };
  scope: InterchangeDocument["scope"];
  requirement_types: NamedTypeDoc[];
  relationship_types: NamedTypeDoc[];
}

/**
 * The entities of an export, each list read lazily in creation order. Each method may be called once per
 * export, in any order; a format that needs an entity twice (Markdown: requirements under their story)
 * asks for the narrower lists (`userStoriesOf`, `requirementsOf`, `criteriaOf`).
 */
export interface ExportSource {
  header: ExportHeader;
  epics(): AsyncIterable<EpicDoc>;
  userStories(): AsyncIterable<UserStoryDoc>;
  requirements(): AsyncIterable<RequirementDoc>;
  acceptanceCriteria(): AsyncIterable<CriterionDoc>;
  relationships(): AsyncIterable<RelationshipDoc>;
  comments(): AsyncIterable<CommentDoc>;
  /**
   * The same lists as JSON text, one string per item, each exactly `JSON.stringify` of the item the object
   * list yields (a database source has SQLite build it): the JSON export writes them as they are.
   */
  json?: {
    epics(): AsyncIterable<string>;
    userStories(): AsyncIterable<string>;
    requirements(): AsyncIterable<string>;
    acceptanceCriteria(): AsyncIterable<string>;
    relationships(): AsyncIterable<string>;
  };
  /** Present only when the caller asked for baselines. */
  baselines?(): AsyncIterable<BaselineDoc>;
  /** The stories of one epic, the requirements and criteria of one story (by reference id), in order. */
  userStoriesOf(epic: string): AsyncIterable<UserStoryDoc>;
  requirementsOf(story: string): AsyncIterable<RequirementDoc>;
  criteriaOf(story: string): AsyncIterable<CriterionDoc>;
}

/** Where an export goes: an HTTP response stream, a file, memory in tests. Awaiting `write` is backpressure. */
export interface ExportWriter {
  write(chunk: string | Uint8Array): Promise<void> | void;
}

/** An uploaded file, readable once in whichever form the format prefers. */
export interface ImportInput {
  /** The file name (Content-Disposition, or the CLI's --file), when known. */
  fileName?: string;
  /** Format-specific settings (the import's query parameters), e.g. ReqIF's `epic_depth`. */
  options?: Readonly<Record<string, string>>;
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  stream(): ReadableStream<Uint8Array>;
}

export interface InterchangeFormat {
  /** `json`, `csv`, `markdown`, `reqif`: the `format` query parameter. */
  name: string;
  /** Content-Type of an export (and the expected upload). */
  contentType: string;
  /** File name extension of an export, with its dot (`.json`, `.tar.gz`). */
  extension: string;
  /** Writes the export of `source` to `out`. */
  export(source: ExportSource, out: ExportWriter): Promise<void>;
  /** Reads a file into the document; throws `DocumentError` (problems with line and column) when it is malformed. */
  parse(input: ImportInput): Promise<InterchangeDocument>;
}

/** An `ImportInput` over bytes already in memory (the CLI, tests); `options` as the route's query parameters. */
export function importInputOf(
  data: Uint8Array | string,
  fileName?: string,
  options?: Readonly<Record<string, string>>,
): ImportInput {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return {
    ...(fileName !== undefined ? { fileName } : {}),
    ...(options !== undefined ? { options } : {}),
    bytes: async () => bytes,
    text: async () => decodeUtf8(bytes),
    stream: () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      }),
  };
}

/** UTF-8 text of a file, without a leading byte order mark. */
export function decodeUtf8(bytes: Uint8Array): string {
  const text = new TextDecoder("utf-8").decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** 1-based line and column of a character offset in `text`. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}
