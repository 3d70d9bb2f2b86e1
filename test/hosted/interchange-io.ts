/**
 * The export and the import the interchange tests run in process, through the format registry and the
 * import engine as the routes use them: an export collected as text, a parsed document applied as an admin
 * (types the file uses are created).
 */
import type { AuthInfo } from "../../src/core/auth-info.js";
import type { InterchangeDocument } from "../../src/core/interchange/document.js";
import { interchangeFormat } from "../../src/core/interchange/registry.js";
import type { Database } from "../../src/db/database.js";
import { exportSource } from "../../src/db/interchange-export.js";
import { applyImport } from "../../src/db/interchange-import.js";

export async function exportText(
  database: Database,
  auth: AuthInfo,
  format: string,
  epic?: string,
): Promise<string> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  await database.read(async (db) => {
    const source = await exportSource(db, auth.workspaceId, { now: new Date(), ...(epic ? { epic } : {}) });
    await interchangeFormat(format).export(source, {
      write: (c) => {
        chunks.push(typeof c === "string" ? c : decoder.decode(c, { stream: true }));
      },
    });
  });
  return chunks.join("");
}

export function applyDocument(database: Database, auth: AuthInfo, doc: InterchangeDocument, source: string) {
  return database.write((tx) =>
    applyImport(
      tx,
      auth.workspaceId,
      doc,
      { userId: auth.userId, now: new Date(), change: { tool: "import", source } },
      { createTypes: true },
    ),
  );
}
