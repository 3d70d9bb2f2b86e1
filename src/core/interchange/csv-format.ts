/**
 * The CSV format (docs/interchange.md "CSV"): one row per requirement, with its story and epic by
 * reference id and title. Written by hand (RFC 4180: every cell quoted when it holds a comma, quote, CR
 * or LF; CRLF row ends) and streamed; read by `csv-read.ts` (RFC 4180, line and cell of each error; small
 * enough for the Worker, where csv-parse's browser build was a quarter of the bundle's growth).
 *
 * Formula injection: a text cell beginning with `=`, `+`, `-`, `@`, TAB or CR (or with `'` followed by one
 * of those) is written with a leading `'`, so a spreadsheet shows it as text instead of running it; import
 * removes exactly that `'` again, so a round trip loses nothing.
 */
import { type CsvRow, CsvSyntaxError, parseCsv } from "./csv-read.js";
import {
  DocumentError,
  type DocumentProblem,
  type EpicDoc,
  type InterchangeDocumentInput,
  type UserStoryDoc,
  validateDocument,
} from "./document.js";
import { decodeUtf8, type ExportSource, type ExportWriter, type InterchangeFormat } from "./formats.js";

/** The columns, in order. `attributes` is JSON; unknown columns on import go into `attributes`. */
export const CSV_COLUMNS = [
  "reference_id",
  "external_id",
  "title",
  "description",
  "type",
  "status",
  "priority",
  "assignee",
  "user_story",
  "user_story_title",
  "epic",
  "epic_title",
  "creator",
  "revision",
  "created_at",
  "updated_at",
  "attributes",
] as const;
type Column = (typeof CSV_COLUMNS)[number];

const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell made safe for spreadsheets (see the file comment). */
export function neutralise(text: string): string {
  return FORMULA_START.test(text) || /^'[=+\-@\t\r']/.test(text) ? `'${text}` : text;
}

/** The inverse of `neutralise`. */
export function unneutralise(text: string): string {
  return /^'[=+\-@\t\r']/.test(text) ? text.slice(1) : text;
}

/** RFC 4180 quoting: quoted when needed, quotes doubled. */
function cell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

const text = (v: string | null | undefined) => cell(neutralise(v ?? ""));
const plain = (v: string | number | null | undefined) => cell(v === null || v === undefined ? "" : String(v));

async function exportCsv(source: ExportSource, out: ExportWriter): Promise<void> {
  // Stories and epics are few next to requirements: held in maps so each row can carry their titles.
  const epics = new Map<string, EpicDoc>();
  for await (const e of source.epics()) epics.set(e.reference_id as string, e);
  const stories = new Map<string, UserStoryDoc>();
  for await (const s of source.userStories()) stories.set(s.reference_id as string, s);
  let batch = `${CSV_COLUMNS.join(",")}\r\n`;
  for await (const r of source.requirements()) {
    const story = stories.get(r.user_story);
    const epic = story ? epics.get(story.epic) : undefined;
    const row: Record<Column, string> = {
      reference_id: plain(r.reference_id),
      external_id: text(r.external_id),
      title: text(r.title),
      description: text(r.description),
      type: text(r.type),
      status: plain(r.status),
      priority: plain(r.priority),
      assignee: text(r.assignee),
      user_story: plain(r.user_story),
      user_story_title: text(story?.title),
      epic: plain(story?.epic),
      epic_title: text(epic?.title),
      creator: text(r.creator),
      revision: plain(r.revision),
      created_at: plain(r.created_at),
      updated_at: plain(r.updated_at),
      attributes: text(r.attributes ? JSON.stringify(r.attributes) : ""),
    };
    batch += `${CSV_COLUMNS.map((c) => row[c]).join(",")}\r\n`;
    if (batch.length > 65_536) {
      await out.write(batch);
      batch = "";
    }
  }
  await out.write(batch);
}

/** Reads CSV text into the document; problems name the line and the column (the field's position, 1-based). */
export function parseCsvDocument(input: string): ReturnType<typeof validateDocument> {
  let records: CsvRow[];
  try {
    records = parseCsv(input);
  } catch (err) {
    if (!(err instanceof CsvSyntaxError)) throw err;
    const problem: DocumentProblem = { message: err.message, line: err.line, column: err.column };
    throw new DocumentError(
      `The file is not valid CSV: ${err.message} (line ${problem.line}, column ${problem.column}). Fix it there and send it again; nothing was imported.`,
      [problem],
    );
  }
  const [head, ...rows] = records;
  if (!head)
    throw new DocumentError("The CSV file is empty: send a header row and one row per requirement.", [
      { message: "empty", line: 1, column: 1 },
    ]);
  const header = head.cells.map((h) => h.trim().toLowerCase());
  const missing = ["title", "type", "user_story"].filter((c) => !header.includes(c));
  if (missing.length > 0) {
    throw new DocumentError(
      `The CSV header lacks the column(s) ${missing.join(", ")}; see docs/interchange.md for the columns.`,
      [{ message: `missing column(s): ${missing.join(", ")}`, line: 1, column: 1 }],
    );
  }
  const doc: InterchangeDocumentInput = {
    format: "reqlix-export",
    version: 1,
    epics: [],
    user_stories: [],
    requirements: [],
  };
  const epics = new Map<string, Record<string, unknown>>();
  const stories = new Map<string, Record<string, unknown>>();
  const lines: number[] = [];
  for (const { cells: record, line } of rows) {
    const get = (c: string) => {
      const i = header.indexOf(c);
      return i < 0 ? undefined : unneutralise(record[i] ?? "");
    };
    const opt = (c: string) => {
      const v = get(c);
      return v === undefined || v === "" ? undefined : v;
    };
    const attributes: Record<string, unknown> = {};
    const attrText = opt("attributes");
    if (attrText !== undefined) {
      try {
        Object.assign(attributes, JSON.parse(attrText));
      } catch {
        throw new DocumentError(`Line ${line}: the attributes cell is not a JSON object.`, [
          {
            message: "attributes: not a JSON object",
            line,
            column: header.indexOf("attributes") + 1,
          },
        ]);
      }
    }
    // Columns reqlix has no field for are kept, so nothing is lost.
    header.forEach((h, i) => {
      if (!(CSV_COLUMNS as readonly string[]).includes(h) && h !== "")
        attributes[h] = unneutralise(record[i] ?? "");
    });
    const epic = opt("epic");
    const storyId = get("user_story") ?? "";
    if (epic !== undefined && opt("epic_title") !== undefined && !epics.has(epic)) {
      epics.set(epic, idFields(epic, "EP", { title: opt("epic_title") }));
    }
    if (opt("user_story_title") !== undefined && !stories.has(storyId) && epic !== undefined) {
      stories.set(storyId, idFields(storyId, "US", { epic, title: opt("user_story_title") }));
    }
    const priority = opt("priority");
    const revision = opt("revision");
    lines.push(line);
    doc.requirements?.push({
      ...idFields(opt("reference_id") ?? "", "REQ", {}),
      ...(opt("external_id") !== undefined ? { external_id: opt("external_id") } : {}),
      title: get("title") ?? "",
      ...(get("description") !== undefined ? { description: get("description") } : {}),
      type: get("type") ?? "",
      ...(opt("status") !== undefined ? { status: opt("status") } : {}),
      ...(priority !== undefined ? { priority: numberOr(priority) } : {}),
      ...(header.includes("assignee") ? { assignee: opt("assignee") ?? null } : {}),
      user_story: storyId,
      ...(opt("creator") !== undefined ? { creator: opt("creator") } : {}),
      ...(revision !== undefined ? { revision: numberOr(revision) } : {}),
      ...(opt("created_at") !== undefined ? { created_at: opt("created_at") } : {}),
      ...(opt("updated_at") !== undefined ? { updated_at: opt("updated_at") } : {}),
      ...(Object.keys(attributes).length > 0
        ? { attributes }
        : header.includes("attributes")
          ? { attributes: null }
          : {}),
    } as never);
  }
  doc.epics = [...epics.values()] as never;
  doc.user_stories = [...stories.values()] as never;
  return validateDocument(doc, (path) => {
    if (path[0] !== "requirements" || typeof path[1] !== "number") return undefined;
    const line = lines[path[1]];
    const field = String(path[2] ?? "");
    return line === undefined ? undefined : { line, column: header.indexOf(field) + 1 || 1 };
  });
}

/** A reference id when `id` looks like one of `prefix`, else an external id. */
function idFields(id: string, prefix: string, rest: Record<string, unknown>): Record<string, unknown> {
  if (id === "") return rest;
  return new RegExp(`^${prefix}-\\d+$`, "i").test(id)
    ? { reference_id: id.toUpperCase(), ...rest }
    : { external_id: id, ...rest };
}

const numberOr = (v: string): number | string => (/^\d+$/.test(v) ? Number(v) : v);

export const csvFormat: InterchangeFormat = {
  name: "csv",
  contentType: "text/csv; charset=utf-8",
  extension: ".csv",
  export: exportCsv,
  async parse(input) {
    return parseCsvDocument(decodeUtf8(await input.bytes()));
  },
};
