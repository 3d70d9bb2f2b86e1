/**
 * The JSON format: the interchange document itself (`docs/interchange.md`). Written one entity per line,
 * streamed from the source so memory stays flat; read with `JSON.parse`, and on failure located with
 * `json-locate.ts` (the offset of a syntax error, the node of a schema error's path), so every problem names
 * its line and column.
 */
import { DOCUMENT_FORMAT, DOCUMENT_VERSION, DocumentError, validateDocument } from "./document.js";
import {
  decodeUtf8,
  type ExportSource,
  type ExportWriter,
  type InterchangeFormat,
  positionAt,
} from "./formats.js";
import { jsonPathOffset, jsonSyntaxProblem } from "./json-locate.js";

/**
 * Writes `items` as the members of a JSON array, one per line; `first` says whether the array is empty.
 * `serialized`: the items are already JSON text (`ExportSource.json`).
 */
async function writeArray(
  out: ExportWriter,
  key: string,
  items: AsyncIterable<unknown>,
  serialized = false,
): Promise<void> {
  await out.write(`,\n${JSON.stringify(key)}:[`);
  let first = true;
  let batch = "";
  for await (const item of items) {
    batch += `${first ? "\n" : ",\n"}${serialized ? (item as string) : JSON.stringify(item)}`;
    first = false;
    // Chunks of ~64 KiB: few writes, flat memory.
    if (batch.length > 65_536) {
      await out.write(batch);
      batch = "";
    }
  }
  await out.write(`${batch}${first ? "" : "\n"}]`);
}

export async function exportJson(source: ExportSource, out: ExportWriter): Promise<void> {
  const h = source.header;
  const head = {
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    exported_at: h.exported_at,
    workspace: h.workspace,
    scope: h.scope,
  };
  await out.write(JSON.stringify(head).slice(0, -1));
  await writeArray(out, "requirement_types", fromArray(h.requirement_types));
  await writeArray(out, "relationship_types", fromArray(h.relationship_types));
  const json = source.json;
  await writeArray(out, "epics", json?.epics() ?? source.epics(), json !== undefined);
  await writeArray(out, "user_stories", json?.userStories() ?? source.userStories(), json !== undefined);
  await writeArray(out, "requirements", json?.requirements() ?? source.requirements(), json !== undefined);
  await writeArray(
    out,
    "acceptance_criteria",
    json?.acceptanceCriteria() ?? source.acceptanceCriteria(),
    json !== undefined,
  );
  await writeArray(out, "relationships", json?.relationships() ?? source.relationships(), json !== undefined);
  await writeArray(out, "comments", source.comments());
  if (source.baselines) await writeArray(out, "baselines", source.baselines());
  await out.write("\n}\n");
}

async function* fromArray<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}

/** A syntax error's position and wording (strict: no comments, no trailing commas). */
function syntaxProblem(text: string) {
  const found = jsonSyntaxProblem(text) ?? { offset: 0, message: "the text is not JSON" };
  return { message: `invalid JSON: ${found.message}`, ...positionAt(text, found.offset) };
}

export function parseJsonDocument(text: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const problem = syntaxProblem(text);
    throw new DocumentError(
      `The file is not valid JSON: ${problem.message} at line ${problem.line}, column ${problem.column}. Fix it there and send it again; nothing was imported.`,
      [problem],
    );
  }
  // Only on error: the deepest node that exists on the path (a missing field is reported at its parent).
  return validateDocument(value, (path) => positionAt(text, jsonPathOffset(text, path)));
}

export const jsonFormat: InterchangeFormat = {
  name: "json",
  contentType: "application/json",
  extension: ".json",
  export: exportJson,
  async parse(input) {
    return parseJsonDocument(decodeUtf8(await input.bytes()));
  },
};
