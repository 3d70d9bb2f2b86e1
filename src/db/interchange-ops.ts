/**
 * Export and import as operations (issue 15), shared by the HTTP API (`http/interchange-route.ts`), the
 * admin CLI and the `export_requirements` resource: the format lookup, the parse, the role rules, the plan
 * or the one-transaction apply, and the audit row. A face only moves bytes.
 */
import { sql } from "drizzle-orm";
import { DomainError } from "../core/errors.js";
import { type DocumentProblem, isDocumentError } from "../core/interchange/document.js";
import type { ExportWriter, ImportInput, InterchangeFormat } from "../core/interchange/formats.js";
import { interchangeFormat } from "../core/interchange/registry.js";
import { normalizeReference } from "../core/references.js";
import { type Role, roleAtLeast } from "../core/roles.js";
import { recordAudit } from "./audit.repo.js";
import type { Database, Tx } from "./database.js";
import { exportSource } from "./interchange-export.js";
import { applyImport, type ImportPlan, importRefused, planImport } from "./interchange-import.js";

/** Who runs an export or import: a member through a token, or the admin CLI (no user: `userId` of the workspace's importer). */
export interface InterchangeCaller {
  workspaceId: number;
  workspaceSlug: string;
  /** The member's role; the CLI acts as admin (access to the database is the credential). */
  role: Role;
  userId: number | null;
  tokenId?: number | null;
  requestId?: string;
  /** Audit channel: `http`, `cli`. */
  channel: string;
  now: Date;
}

/** `EP-1`, `ep-001` → `EP-001`; invalid_input otherwise. */
export function epicScope(epic: string | undefined): string | undefined {
  if (epic === undefined || epic.trim() === "") return undefined;
  const id = normalizeReference("EP", epic);
  if (!id) {
    throw DomainError.invalid(
      `Invalid epic reference ID format: expected an epic id like EP-001, got "${epic}".`,
      [{ field: "epic", message: "expected an epic id like EP-001" }],
    );
  }
  return id;
}

/** The file name an export is offered as: `<workspace>[-EP-001].<ext>`. */
export function exportFileName(
  caller: { workspaceSlug: string },
  format: InterchangeFormat,
  epic?: string,
): string {
  return `${caller.workspaceSlug}${epic ? `-${epic}` : ""}${format.extension}`;
}

/**
 * Writes the export to `out`. Any member may export their workspace. An unknown epic is not_found before
 * anything is written. The caller records the read's audit row (the faces batch reads).
 */
export async function exportOp(
  database: Database,
  caller: InterchangeCaller,
  request: { format: string; epic?: string | undefined },
  out: ExportWriter,
): Promise<void> {
  await (await prepareExport(database, caller, request)).run(out);
}

/**
 * Opens an export: checks format and epic up front (so a face can still answer 400/404), then streams.
 * The whole export — the epic's lookup, the header and every page of every list — reads ONE snapshot (a
 * read transaction, `Database.snapshot`), so a write committed meanwhile is either entirely in the
 * document or entirely absent: no story without its epic, no relationship without its ends. The snapshot
 * is held from here until `run` settles; call `run` once.
 */
export async function prepareExport(
  database: Database,
  caller: InterchangeCaller,
  request: { format: string; epic?: string | undefined },
): Promise<{
  format: InterchangeFormat;
  fileName: string;
  epic?: string;
  run(out: ExportWriter): Promise<void>;
}> {
  const format = interchangeFormat(request.format);
  const epic = epicScope(request.epic);
  let opened!: () => void;
  const isOpen = new Promise<void>((resolve) => {
    opened = resolve;
  });
  let give!: (out: ExportWriter) => void;
  const writer = new Promise<ExportWriter>((resolve) => {
    give = resolve;
  });
  const done = database.snapshot(async (db) => {
    // The epic is looked up now, so "not found" is an answer, not a stream cut short.
    const source = await exportSource(db, caller.workspaceId, { now: caller.now, ...(epic ? { epic } : {}) });
    opened();
    await format.export(source, await writer);
  });
  // Either the source is open, or the snapshot failed first (an unknown epic): that is the answer.
  await Promise.race([isOpen, done]);
  return {
    format,
    fileName: exportFileName(caller, format, epic),
    ...(epic ? { epic } : {}),
    run: (out) => {
      give(out);
      return done;
    },
  };
}

export interface ImportReport {
  dry_run: boolean;
  format: string;
  /** The file name (recorded as the revisions' `source`), when known. */
  source: string | null;
  counts: { create: number; update: number; unchanged: number; errors: number };
  plan: ImportPlan;
}

/** A malformed file → invalid_input with each problem's line and column; nothing written. */
export function malformedFile(format: string, problems: DocumentProblem[], message: string): DomainError {
  const first = problems[0];
  const error = DomainError.invalid(
    message,
    problems.map((p) => ({ field: p.path ?? "body", message: p.message })),
  );
  error.details.problems = problems;
  error.details.format = format;
  if (first?.line !== undefined) {
    error.details.line = first.line;
    error.details.column = first.column;
  }
  return error;
}

/**
 * Parses `input` with `format` and plans (dry run, the default) or applies the import in one write
 * transaction, with its audit row in that transaction. Editors and admins may import; admins also create the
 * requirement types the file lists and the workspace lacks.
 */
export async function importOp(
  database: Database,
  caller: InterchangeCaller,
  request: { format: string; dryRun: boolean },
  input: ImportInput,
): Promise<ImportReport> {
  if (!roleAtLeast(caller.role, "editor")) {
    throw DomainError.forbidden(
      `Forbidden: importing needs the editor role; your role in workspace "${caller.workspaceSlug}" is ${caller.role}. Ask a workspace admin for an editor token.`,
    );
  }
  const format = interchangeFormat(request.format);
  let doc: Awaited<ReturnType<InterchangeFormat["parse"]>>;
  try {
    doc = await format.parse(input);
  } catch (err) {
    if (isDocumentError(err)) throw malformedFile(format.name, err.problems, err.message);
    throw err;
  }
  const options = { createTypes: roleAtLeast(caller.role, "admin") };
  const source = input.fileName ?? null;
  const report = (plan: ImportPlan): ImportReport => ({
    dry_run: request.dryRun,
    format: format.name,
    source,
    counts: {
      create: plan.create.length,
      update: plan.update.length,
      unchanged: plan.unchanged.length,
      errors: plan.errors.length,
    },
    plan,
  });
  if (request.dryRun)
    return report(await database.read((db) => planImport(db, caller.workspaceId, doc, options)));
  if (caller.userId === null) throw new Error("an import needs the acting user");
  const userId = caller.userId;
  const plan = await database.write(async (tx) => {
    const done = await withImportPageCache(database, tx, () =>
      applyImport(
        tx,
        caller.workspaceId,
        doc,
        {
          userId,
          now: caller.now,
          change: {
            tool: "import",
            ...(caller.tokenId ? { tokenId: caller.tokenId } : {}),
            ...(caller.requestId ? { requestId: caller.requestId } : {}),
            ...(source ? { source } : {}),
          },
        },
        options,
      ),
    );
    await recordAudit(tx, {
      workspaceId: caller.workspaceId,
      userId,
      tokenId: caller.tokenId ?? null,
      channel: caller.channel,
      method: "import",
      target: format.name,
      outcome: "ok",
      requestId: caller.requestId ?? null,
      createdAt: caller.now.toISOString(),
    });
    return done;
  });
  return report(plan);
}

/**
 * Page cache of an import's write transaction on an embedded database, in KiB (SQLite's default size).
 * The connection's own cache (`CACHE_KIB` in client.ts, 32 MiB, for searches at a million rows) would fill
 * with the import's dirty pages and stay resident: +43 MB of a 100 MB ReqIF import's growth. With a small
 * cache SQLite spills the pages to the WAL as the transaction goes (still one transaction: nothing is
 * visible before the commit), and the import is no slower (bench/interchange.ts, CPU time).
 */
export const IMPORT_PAGE_CACHE_KIB = 2048;

/**
 * Runs `fn` with the transaction's connection at `IMPORT_PAGE_CACHE_KIB` (embedded files only: a remote
 * database keeps its own cache), then gives the connection its size back, on success and failure alike.
 */
export async function withImportPageCache<T>(database: Database, tx: Tx, fn: () => Promise<T>): Promise<T> {
  if (database.client.protocol !== "file") return fn();
  const row = (await tx.all<{ cache_size: number }>(sql`PRAGMA cache_size`))[0];
  await tx.run(sql.raw(`PRAGMA cache_size = -${IMPORT_PAGE_CACHE_KIB}`));
  try {
    return await fn();
  } finally {
    if (row) await tx.run(sql.raw(`PRAGMA cache_size = ${Number(row.cache_size)}`)).catch(() => undefined);
  }
}

export { importRefused };
